"""Snapshots of the Kitchen pane on a fake clock, each fixed screen at 80×24 and 160×48: a paused
race, the result, the slow hallway's result, the plots, and "run it for real" from recorded bench
messages (sync tests: snap_compare runs the app itself)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from gpu_tui.core.bench import messages as m
from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.ui.app import GpuTuiApp
from gpu_tui.ui.kitchen.measure_panel import MeasurePanel
from gpu_tui.ui.kitchen_pane import KitchenPane
from tests.polling import settle, until

Before = Callable[[Pilot[Any]], Any]


# Colour and Textual settings from the shell must not leak into snapshots (tests/ui/conftest.py).
pytestmark = pytest.mark.usefixtures("plain_environment")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def result(variant: str, device: str, seconds: float) -> BenchResult:
    times = (seconds, seconds * 0.95, seconds * 1.05, 50)
    return BenchResult("reduction", variant, device, "fp64", {"n": 10_000}, *times, 0.0, "us", None)


CPU_RUN = [
    m.Status("loading PyTorch (a few seconds)"),
    m.Skipped("reduction", "gpu", "no GPU visible to the worker"),
    m.Progress(0, 1, "reduction", "cpu"),
    m.ResultReady(result("python-loop", "cpu", 176e-6)),
    m.ResultReady(result("builtin-sum", "cpu", 37.7e-6)),
    m.ResultReady(result("torch-sum", "cpu", 2.87e-6)),
]
GPU_RUN = [
    *CPU_RUN[2:],
    m.ResultReady(result("gpu-resident", "cuda:0", 8.2e-6)),
    m.ResultReady(result("gpu-end-to-end", "cuda:0", 41.5e-6)),
]


class RecordedRunner:
    """Plays recorded bench messages; ``hold`` stops mid-run until cancelled (a frozen frame)."""

    def __init__(self, events: list[m.Message], hold: bool = False) -> None:
        self.events, self.hold = events, hold
        self.stopped = threading.Event()
        self.document = RunDocument("quick", 0.1, "recorded")

    def start(self) -> None:
        pass

    def messages(self, stop: Callable[[], bool] | None = None) -> Iterator[m.Message]:
        yield from self.events
        if self.hold:
            self.stopped.wait(30)
        status = "cancelled" if self.stopped.is_set() else "completed"
        yield m.Finished(status, self.document)

    def cancel(self) -> None:
        self.stopped.set()

    def kill(self, why: str = "cancel") -> None:
        self.stopped.set()

    def end_now(self) -> None:
        self.stopped.set()

    def fail(self, kind: str, message: str) -> m.Finished:
        return m.Finished("failed", self.document)


def on_fake_clock(keys: tuple[str, ...], *, plots: bool = False) -> Before:
    """Put the race on a fake clock, press ``keys`` (pause first: the frame is then exact)."""

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        pane = pilot.app.query_one(KitchenPane)
        pane.playback.clock = FakeClock()
        pane.playback.reset()
        await pilot.press(*keys)
        if plots:  # the plots (imported in a thread) are drawn once their boxes are there
            drawn = lambda: pane.plots is not None and bool(pane.plots.query(".plot-legend"))  # noqa: E731
            await until(pilot, drawn, "the plots drawn", timeout=10)
        await settle(pilot)

    return before


def measured(events: list[m.Message], *, hold: bool = False) -> Before:
    """Pause the race, press m with a recorded runner, wait for the last recorded message."""

    async def before(pilot: Pilot[Any]) -> None:
        roomy = pilot.app.size.width >= 120
        await on_fake_clock(("space", "r"), plots=roomy)(pilot)
        panel = pilot.app.query_one(MeasurePanel)
        runner = RecordedRunner(events, hold=hold)
        panel.make_runner = lambda plan, python: runner
        await pilot.press("m")
        want = sum(isinstance(e, m.ResultReady) for e in events)
        done = lambda: len(panel.results) >= want and (hold or panel.finished)  # noqa: E731
        await until(pilot, done, "the last recorded message", timeout=10, every=0.02)
        await settle(pilot)

    return before


def kitchen(app_factory: Callable[..., GpuTuiApp]) -> GpuTuiApp:
    return app_factory(pane="kitchen", demo=False)


SIZES = [(80, 24), (160, 48)]
size_ids = pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")


def roomy(size: tuple[int, int]) -> bool:
    """From 120×40 the plots sit under the race (the screenshot waits for them)."""
    return size[0] >= 120 and size[1] >= 40


@size_ids
def test_race_paused_mid_run(
    snap_compare: Any, app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    before = on_fake_clock(("space", "r", *["full_stop"] * 14), plots=roomy(size))
    assert snap_compare(kitchen(app_factory), terminal_size=size, run_before=before)


@size_ids
def test_result(
    snap_compare: Any, app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    before = on_fake_clock(("space", "end"), plots=roomy(size))
    assert snap_compare(kitchen(app_factory), terminal_size=size, run_before=before)


@size_ids
def test_slow_hallway_result(
    snap_compare: Any, app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    """Its headline is two kitchens against one, with the keys that turn it round."""
    keys = ("s", "s", "s", "space", "end")
    before = on_fake_clock(keys, plots=roomy(size))
    assert snap_compare(kitchen(app_factory), terminal_size=size, run_before=before)


@size_ids
def test_plots(
    snap_compare: Any, app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    """ "g" at the result: at 80 columns the first plot alone, from 120 all three."""
    before = on_fake_clock(("space", "end", "g"), plots=True)
    assert snap_compare(kitchen(app_factory), terminal_size=size, run_before=before)


@size_ids
def test_measuring(
    snap_compare: Any, app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    before = measured(CPU_RUN[:4], hold=True)
    assert snap_compare(kitchen(app_factory), terminal_size=size, run_before=before)


@size_ids
def test_measured_without_gpu(
    snap_compare: Any, app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    before = measured(CPU_RUN)
    assert snap_compare(kitchen(app_factory), terminal_size=size, run_before=before)


@size_ids
def test_measured_with_gpu(
    snap_compare: Any, app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    before = measured(GPU_RUN)
    assert snap_compare(kitchen(app_factory), terminal_size=size, run_before=before)
