"""Snapshots of the Monitor pane: scripted host readings, nvidia-ml-py's own ``pynvml`` over a
simulated driver, host processes described by the test, ticks the test drives itself, then paused
(sync tests: snap_compare runs the app itself)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import psutil
import pytest
from textual.pilot import Pilot

from gpu_tui.ui.app import GpuTuiApp
from gpu_tui.ui.monitor.host_panel import HostPanel
from gpu_tui.ui.monitor_pane import MonitorPane
from tests.conftest import SimulatedNvml
from tests.fakes.host import ScriptedHost
from tests.fakes.processes import FakeHostProcess, FakeProcess
from tests.fakes.simulated_driver import SimulatedLibrary
from tests.polling import until

TICKS = 48
"""History the test feeds in after the first tick: enough for the graphs to have a shape."""
NEVER = 60.0
"""Refresh interval: after the first tick the sampler's own clock never ticks again in a test
(the hand-made ticks are taken at 1 s: the pane is set to it once paused)."""
NOW = 1_800_000_000.0
"""The wall clock of the hand-made ticks: process ages read the same on every run."""
HOUR = 3700
"""Ticks for the zoomed-out screens: an hour of a training run, and a little more."""
MISSING_PID = 2**31 - 1  # above any pid_max: a host PID not visible here, on every machine


# Colour and Textual settings from the shell must not leak into snapshots (tests/ui/conftest.py).
pytestmark = pytest.mark.usefixtures("plain_environment")


def gpm(busy: int) -> dict[str, float]:
    """What GPM reads inside a training step that keeps the GPU ``busy`` % of the time: the
    SMs mostly busy, the tensor cores well under half of it."""
    return {
        "graphics_util": busy,
        "sm_util": busy * 0.85,
        "sm_occupancy": busy * 0.3,
        "any_tensor_util": busy * 0.4,
        "dram_bw_util": busy * 0.5,
        "fp64_util": 0.0,
        "fp32_util": busy * 0.1,
        "fp16_util": busy * 0.03,
    }


def vary(library: SimulatedLibrary, n: int) -> None:
    """Tick ``n``'s GPU readings: load that moves, with power, clocks and heat following it."""
    for index, device in enumerate(library.devices):
        busy = (11 * n + 29 * index) % 101
        device["utilization_percent"] = {"gpu": busy, "memory": busy // 3}
        library.set_reading(
            index,
            power_watts=80 + 6 * busy,
            sm_clock_mhz=345 + 16 * busy,
            temperature_c=30 + busy // 3,
            gpm=gpm(busy),
        )


def train(library: SimulatedLibrary, n: int) -> None:
    """Tick ``n`` of a training run: busy, a checkpoint every ten minutes (idle for twenty
    seconds), one stall at a minute and a half, and one tick of full power at 25 minutes."""
    checkpoint = n % 600 >= 580 or 90 <= n < 95
    busy = 3 if checkpoint else 92 + (7 * n) % 7
    for index, device in enumerate(library.devices):
        device["utilization_percent"] = {"gpu": busy, "memory": busy * 2 // 5}
        watts = 700 if n == 1500 else 90 + 5 * busy
        library.set_reading(index, power_watts=watts, sm_clock_mhz=345 + 16 * busy, gpm=gpm(busy))


def ticked(
    library: SimulatedLibrary,
    ticks: int = TICKS,
    load: Callable[[SimulatedLibrary, int], None] = vary,
    keys: tuple[str, ...] = (),
) -> Callable[[Pilot[Any]], Any]:
    """Wait for the sampler's first tick, pause it, then tick it ``ticks`` times by hand, 1 s
    apart, and press ``keys``."""

    async def before(pilot: Pilot[Any]) -> None:
        pane = pilot.app.query_one(MonitorPane)
        # The CPU is sampled from the first tick, the GPUs once NVML has opened, in a race: the
        # host holds the first tick's reading (``monitor``) until NVML has answered, so the
        # sampler's own tick, and every hand-made one below, carries the GPUs on every run.
        await until(pilot, lambda: pane.sources is not None, "NVML opened")
        host_reader = pane.config.host_reader
        assert isinstance(host_reader, ScriptedHost)
        host_reader.first_read.set()
        await until(pilot, lambda: pane.redraws > 0, "the first tick drawn")

        # The pane's keys reach it once it has the focus (given after the first refresh).
        def focused() -> bool:
            widget = pilot.app.focused
            return widget is not None and pane in widget.ancestors_with_self

        await until(pilot, focused, "the keyboard in the Monitor pane")
        await pilot.press("p")  # the sampler thread stops ticking; the status line says so
        await pilot.press(*["minus"] * 5)  # 60 s → 30, 10, 5, 2, 1 s
        assert pane.interval == 1.0
        sampler = pane.sampler
        assert sampler is not None
        sampler._wall_clock = lambda: NOW
        # A reading later than the deadline is drawn as missing: on a loaded test machine the
        # hand-made ticks wait for every one, so the frame is the same every run.
        sampler.gpu_deadline = 10.0
        for n in range(ticks):
            load(library, n)
            sampler.tick()  # synchronous: reads driver and host, records history, posts the tick
        host = pilot.app.query_one(HostPanel)
        await until(pilot, lambda: host.sample is sampler.latest, "the last tick drawn")
        if keys:
            await pilot.press(*keys)
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    return before


def monitor(
    app_factory: Callable[..., GpuTuiApp],
    library: SimulatedLibrary,
    host: ScriptedHost | None = None,
) -> GpuTuiApp:
    app = app_factory(demo=False, pane="monitor", nvml=library.binding, refresh=NEVER)
    host = host or ScriptedHost()
    host.first_read.clear()  # let through by ``ticked`` once NVML has opened
    app.config = replace(app.config, host_reader=host)  # before the pane is built
    return app


@pytest.fixture
def processes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's side of the GPU processes: two of alice's, started an hour and a day ago."""
    long = ["python", "-m", "torch.distributed.run", "--nproc-per-node=8", "train.py"]
    long += ["--config", "configs/llama-3.1-70b.yaml", "--resume", "latest"]
    table = {
        4242: FakeHostProcess("alice", long, rss=31 << 30, created=NOW - 3723),
        4343: FakeHostProcess("alice", ["python", "eval.py"], rss=3 << 29, created=NOW - 90061),
    }
    monkeypatch.setattr(FakeProcess, "table", table)
    monkeypatch.setattr(psutil, "Process", FakeProcess)


def training(simulated_nvml: SimulatedNvml) -> SimulatedLibrary:
    library = simulated_nvml("h200")
    library.set_processes(
        0,
        compute=[
            {"pid": 4242, "used_memory_bytes": 120 << 30, "sm_percent": 94},
            {"pid": 4343, "used_memory_bytes": 9 << 30, "sm_percent": 4},
            {"pid": MISSING_PID, "used_memory_bytes": 3 << 30},
        ],
    )
    return library


def h200(simulated_nvml: SimulatedNvml) -> SimulatedLibrary:
    library = simulated_nvml("h200")
    library.set_processes(0, compute=[{"pid": MISSING_PID, "used_memory_bytes": 3 << 30}])
    return library


def eight(simulated_nvml: SimulatedNvml) -> SimulatedLibrary:
    library = simulated_nvml("hgx_h100_8gpu")
    library.set_processes(2, compute=[{"pid": MISSING_PID, "used_memory_bytes": 5 << 30}])
    return library


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_one_h200(
    snap_compare: Any,
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
    size: tuple[int, int],
) -> None:
    library = h200(simulated_nvml)
    app = monitor(app_factory, library)
    assert snap_compare(app, terminal_size=size, run_before=ticked(library))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_eight_h100s(
    snap_compare: Any,
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
    size: tuple[int, int],
) -> None:
    library = eight(simulated_nvml)
    app = monitor(app_factory, library)
    assert snap_compare(app, terminal_size=size, run_before=ticked(library))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_no_gpu(
    snap_compare: Any,
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
    size: tuple[int, int],
) -> None:
    library = simulated_nvml("h200")
    library.fail_init("LibraryNotFound")
    app = monitor(app_factory, library, ScriptedHost(cores=4, swap=False))
    assert snap_compare(app, terminal_size=size, run_before=ticked(library))


@pytest.mark.usefixtures("processes")
@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_a_training_run_zoomed_out_to_an_hour(
    snap_compare: Any,
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
    size: tuple[int, int],
) -> None:
    library = training(simulated_nvml)
    app = monitor(app_factory, library)
    before = ticked(library, HOUR, train, ("z", "z", "z", "down"))
    assert snap_compare(app, terminal_size=size, run_before=before)
