"""A driver that hangs never hangs gpu-tui: NVML import, init, discovery and reads have a limit.

NVIDIA is nvidia-ml-py's own ``pynvml`` over a simulated driver (``tests/fakes/simulated_driver``),
whose C functions hang until released (``SimulatedLibrary.hang``). A subprocess gets the same
through a ``pynvml.py`` shim (``tests/fakes/simulated_binding``), where a hang is never released:
the process has to finish on its own, within the NVML call limit and a little more. Every
in-process hang is released at teardown, and the shared NVML thread is seen answering again
before the next test.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from textual.widgets import Static

from gpu_tui.core.bench.telemetry import READ_DEADLINE_SECONDS, Telemetry
from gpu_tui.core.devices import CHECKING, discover_host, nvml_guard
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.live_sources import open_gpu_sources
from gpu_tui.core.devices.nvidia import discover_nvidia
from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.devices.nvml_guard import GATE
from gpu_tui.core.monitor.sampler import Sampler
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.monitor.gpu_card import GpuCard
from gpu_tui.ui.monitor.host_panel import HostPanel
from gpu_tui.ui.monitor_pane import MonitorPane
from gpu_tui.ui.specs_pane import SpecsPane
from tests.conftest import SimulatedNvml
from tests.fakes import scripted_worker, simulated_binding
from tests.fakes.simulated_binding import IMPORT_ERRORS, install_as_pynvml
from tests.fakes.simulated_driver import SimulatedLibrary
from tests.helpers.running_app import Terminal
from tests.polling import until, wait_for

T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[2]
LIMIT_SECONDS = 5.0
"""The product's NVML call limit (checked below): every message here spells it as "5 s"."""
SHORT_LIMIT_SECONDS = 0.5
"""In-process tests lower the limit (``nvml_guard.CALL_LIMIT_SECONDS``) to stay quick."""
NO_ANSWER = "not answering ({} did not return within {:g} s)"
WITHIN_ONE_LIMIT = 2 * LIMIT_SECONDS
"""A command that waits out the limit once ends before twice the limit, start-up and its own
lines included even with the machine busy; one that waited on a second stuck call would not."""
RUN_TIMEOUT_SECONDS = LIMIT_SECONDS + 15
"""A subprocess still running by then is stopped, and its test fails: the hang came back."""


def reason(call: str, limit: float = LIMIT_SECONDS) -> str:
    what = call if call == "import pynvml" else f"NVML call {call}"
    return NO_ANSWER.format(what, limit)


def words(text: str) -> str:
    """``text`` with its line wrapping undone (``info`` wraps long notes)."""
    return " ".join(text.split())


# --- subprocesses with the real pynvml over the simulated driver ------------------------------


@dataclass(frozen=True)
class Run:
    returncode: int | None
    """None: still running after ``RUN_TIMEOUT_SECONDS`` (then stopped)."""
    out: str
    err: str
    seconds: float
    """Until the process ended, or (for bench) until it said how long the suite will take."""


HANGS: dict[str, tuple[dict[str, Any], str]] = {
    # fault name → (the simulated binding's choice of fault, the call named in the message)
    "nvmlInit": ({"hang": ["nvmlInit"]}, "nvmlInit"),
    "nvmlDeviceGetCount": ({"hang": ["nvmlDeviceGetCount"]}, "nvmlDeviceGetCount"),
    "import": ({"import_fault": "hang"}, "import pynvml"),
}
COMMANDS = {
    "info": ("info",),
    "info --json": ("info", "--json"),
    "watch": ("watch", "--count", "2"),
    "watch --json": ("watch", "--json", "--count", "2"),
}
BENCH = ("bench", "--suite", "full", "--device", "cpu", "--only", "gemm", "--budget", "0.05")


def environment(shim: Path, **fault: Any) -> dict[str, str]:
    """A subprocess whose ``import pynvml`` is the real binding over the H200's simulated
    driver, with ``fault`` (:func:`tests.fakes.simulated_binding.environment`'s choices)."""
    return simulated_binding.environment(shim, **fault) | {"COLUMNS": "100"}


def run_gpu_tui(args: tuple[str, ...], env: dict[str, str]) -> Run:
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "gpu_tui", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired as stopped:
        return Run(None, str(stopped.stdout or ""), str(stopped.stderr or ""), stopped.timeout)
    return Run(done.returncode, done.stdout, done.stderr, time.monotonic() - started)


def start_bench(env: dict[str, str]) -> Run:
    """``bench --suite full`` up to its duration estimate (which asks NVML how many GPUs there
    are), then Ctrl-C: what follows is the worker's business, not NVML's."""
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "gpu_tui", *BENCH],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    lines: queue.SimpleQueue[str] = queue.SimpleQueue()
    stderr = process.stderr
    threading.Thread(target=lambda: [lines.put(line) for line in stderr], daemon=True).start()
    estimate = ""
    while not estimate and time.monotonic() - started < RUN_TIMEOUT_SECONDS:
        try:
            line = lines.get(timeout=0.1)
        except queue.Empty:
            if process.poll() is not None:
                break
            continue
        estimate = line if "full suite" in line else ""
    seconds = time.monotonic() - started
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    return Run(process.returncode if estimate else None, "", estimate, seconds)


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_as_pynvml(tmp_path_factory.mktemp("simulated-pynvml")).parent


@pytest.fixture(scope="module")
def hung(shim: Path) -> Callable[[str], dict[str, Run]]:
    """Every command run once per hang, all at the same time (each waits the whole limit)."""
    done: dict[str, dict[str, Run]] = {}

    def runs(fault: str) -> dict[str, Run]:
        if fault not in done:
            env = environment(shim, **HANGS[fault][0])
            with ThreadPoolExecutor(len(COMMANDS) + 1) as pool:
                started = {
                    name: pool.submit(run_gpu_tui, args, env) for name, args in COMMANDS.items()
                }
                started["bench"] = pool.submit(start_bench, env)
            done[fault] = {name: future.result() for name, future in started.items()}
        return done[fault]

    return runs


@pytest.mark.parametrize("fault", HANGS)
def test_info_gives_up_on_a_hung_driver_and_shows_the_cpu(
    hung: Callable[[str], dict[str, Run]], fault: str
) -> None:
    run = hung(fault)["info"]
    assert run.returncode == 0, run.err
    assert run.seconds < WITHIN_ONE_LIMIT
    shown = words(run.out)
    assert f"Status not available ({reason(HANGS[fault][1])})" in shown
    assert "Fix" in shown
    assert run.out.startswith("CPU · ")
    assert f"/ {os.cpu_count()} logical" in shown
    assert run.err == ""


@pytest.mark.parametrize("fault", HANGS)
def test_info_json_has_the_nvml_backend_unavailable_with_the_reason(
    hung: Callable[[str], dict[str, Run]], fault: str
) -> None:
    run = hung(fault)["info --json"]
    assert run.returncode == 0, run.err
    assert run.seconds < WITHIN_ONE_LIMIT
    document = json.loads(run.out)
    nvml = document["backends"]["nvml"]
    assert nvml["available"] is False
    assert nvml["reason"] == reason(HANGS[fault][1])
    assert nvml["fix"]
    assert document["accelerators"] == []
    assert document["cpu"]["logical_cores"] == os.cpu_count()
    assert document["memory"]["total_bytes"] > 0


@pytest.mark.parametrize("fault", HANGS)
def test_watch_says_why_once_and_the_cpu_lines_keep_coming(
    hung: Callable[[str], dict[str, Run]], fault: str
) -> None:
    run = hung(fault)["watch"]
    assert run.returncode == 0, run.err
    assert run.seconds < WITHIN_ONE_LIMIT
    assert run.err == f"gpu-tui watch: NVIDIA GPUs: {reason(HANGS[fault][1])}; CPU readings go on\n"
    lines = run.out.splitlines()
    assert len(lines) == 2
    assert all(" | cpu " in line and " | mem " in line and "gpu0" not in line for line in lines)


@pytest.mark.parametrize("fault", HANGS)
def test_watch_json_lines_keep_coming_with_no_gpus(
    hung: Callable[[str], dict[str, Run]], fault: str
) -> None:
    run = hung(fault)["watch --json"]
    assert run.returncode == 0, run.err
    assert run.seconds < WITHIN_ONE_LIMIT
    assert run.err == f"gpu-tui watch: NVIDIA GPUs: {reason(HANGS[fault][1])}; CPU readings go on\n"
    records = [json.loads(line) for line in run.out.splitlines()]
    assert len(records) == 2
    for record in records:
        assert record["gpus"] == []
        assert len(record["cpu"]["per_core_percent"]) == os.cpu_count()


@pytest.mark.parametrize("fault", HANGS)
def test_bench_starts_after_at_most_the_limit(
    hung: Callable[[str], dict[str, Run]], fault: str
) -> None:
    run = hung(fault)["bench"]
    assert run.returncode is not None, "no duration estimate: bench is stuck before it starts"
    assert run.seconds < WITHIN_ONE_LIMIT
    assert "plus about 3 min per GPU" in run.err  # NVML could not say how many GPUs


@pytest.mark.parametrize("error", ["OSError", "RuntimeError", "SyntaxError", "ImportError"])
def test_a_broken_binding_is_explained_by_info_and_watch(shim: Path, error: str) -> None:
    env = environment(shim, import_fault=error)
    expected = (
        "the nvidia-ml-py package is installed but broken: `import pynvml` failed with "
        f"{error}: {IMPORT_ERRORS[error]}"
    )
    info = run_gpu_tui(("info", "--json"), env)
    assert info.returncode == 0, info.err
    nvml = json.loads(info.out)["backends"]["nvml"]
    assert (nvml["available"], nvml["reason"]) == (False, expected)
    assert "pip install --force-reinstall nvidia-ml-py" in nvml["fix"]
    human = run_gpu_tui(("info",), env)
    assert human.returncode == 0, human.err
    assert expected in words(human.out)
    assert human.out.startswith("CPU · ")
    watch = run_gpu_tui(("watch", "--count", "1", "--interval", "0.1"), env)
    assert watch.returncode == 0, watch.err
    assert watch.err == f"gpu-tui watch: NVIDIA GPUs: none ({expected})\n"
    assert " | cpu " in watch.out


# --- the terminal UI under a pseudo-terminal -------------------------------------------------


@pytest.mark.parametrize(
    ("pane", "key"), [("specs", "q"), ("monitor", "\x03")], ids=["specs-q", "monitor-ctrl+c"]
)
def test_q_and_ctrl_c_quit_at_once_while_nvml_init_hangs(shim: Path, pane: str, key: str) -> None:
    env = environment(shim, hang=["nvmlInit"])
    env = {k: v for k, v in env.items() if not k.startswith("TEXTUAL")} | {"TERM": "xterm"}
    terminal = Terminal(["--pane", pane], env)
    try:
        # The first screen comes after NVML init is already stuck: discovery starts it on a
        # thread of its own before the app is even imported.
        wait_for(lambda: terminal.shows("CPU"), "the first screen", timeout=20)
        pressed = time.monotonic()
        terminal.press(key)
        assert terminal.wait(10) == 0
        assert time.monotonic() - pressed < 1.5
    finally:
        terminal.close()


# --- in process: the guard, the panes ---------------------------------------------------------


@pytest.fixture
def short_limit(monkeypatch: pytest.MonkeyPatch) -> float:
    assert nvml_guard.CALL_LIMIT_SECONDS == LIMIT_SECONDS  # what the messages above spell out
    monkeypatch.setattr(nvml_guard, "CALL_LIMIT_SECONDS", SHORT_LIMIT_SECONDS)
    return SHORT_LIMIT_SECONDS


@pytest.fixture
def hanging(
    short_limit: float, simulated_nvml: SimulatedNvml
) -> Iterator[Callable[..., SimulatedLibrary]]:
    """Simulated drivers of the H200, each installed under the real ``pynvml`` in its turn (the
    latest one answers), with a call hanging; all released at teardown, and the NVML thread seen
    answering again, so no thread stays blocked and the next test starts clean."""
    made: list[SimulatedLibrary] = []

    def make(call: str | None = None, reading: str = "h200") -> SimulatedLibrary:
        library = simulated_nvml(reading)
        if call is not None:
            library.hang(call)
        made.append(library)
        return library

    yield make
    for library in made:  # the fixture releases only the one still installed
        library.release()
    answering_again()


def answering_again() -> None:
    """Wait (bounded) until the NVML thread's stuck call, released, has returned."""
    wait_for(lambda: GATE.stuck is None, "the released NVML call to return", timeout=5, every=0.01)


def within(seconds: float, call: Callable[[], T]) -> tuple[T, float]:
    """``call()`` and how long it took; fails (instead of hanging the suite) past ``seconds``."""
    outcome: queue.SimpleQueue[tuple[T | None, BaseException | None]] = queue.SimpleQueue()

    def target() -> None:
        try:
            outcome.put((call(), None))
        except BaseException as error:  # handed to the test
            outcome.put((None, error))

    started = time.monotonic()
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    try:
        result, error = outcome.get(timeout=seconds)
    except queue.Empty:
        raise AssertionError(f"still blocked after {seconds} s") from None
    waited = time.monotonic() - started
    thread.join()  # it has put its outcome: gone at once, so thread counts stay exact
    if error is not None:
        raise error
    return result, waited  # type: ignore[return-value]  # None only with an error


def test_a_hung_init_is_given_up_on_and_later_calls_fail_at_once(
    hanging: Callable[..., SimulatedLibrary],
) -> None:
    (gpus, status), waited = within(5, lambda: discover_nvidia(hanging("nvmlInit").binding))
    assert gpus == ()
    assert not status.available
    assert status.reason == reason("nvmlInit", SHORT_LIMIT_SECONDS)
    assert status.fix is not None
    assert "nvidia-smi" in status.fix
    assert SHORT_LIMIT_SECONDS <= waited < SHORT_LIMIT_SECONDS + 1
    threads = threading.active_count()
    healthy = hanging()
    for _ in range(3):  # while the first call is stuck: no wait, no new thread, not even tried
        (_, again), waited = within(5, lambda: discover_nvidia(healthy.binding))
        assert again.reason == status.reason
        assert waited < 0.1
    assert threading.active_count() == threads
    assert healthy.calls == []


def test_the_driver_is_asked_again_once_the_stuck_call_returns(
    hanging: Callable[..., SimulatedLibrary],
) -> None:
    stuck = hanging("nvmlDeviceGetHandleByIndex")
    (_, status), _ = within(5, lambda: discover_nvidia(stuck.binding))
    assert status.reason == reason("nvmlDeviceGetHandleByIndex", SHORT_LIMIT_SECONDS)
    stuck.release()
    answering_again()
    (gpus, status), _ = within(5, lambda: discover_nvidia(hanging().binding))
    assert status.available
    assert [gpu.name for gpu in gpus] == ["NVIDIA H200"]


def test_a_session_that_cannot_count_its_gpus_says_why(
    hanging: Callable[..., SimulatedLibrary],
) -> None:
    stuck = hanging("nvmlDeviceGetCount")
    sources, _ = within(5, lambda: open_gpu_sources(demo=True, nvml=stuck.binding))
    assert sources.real == []
    assert sources.note == reason("nvmlDeviceGetCount", SHORT_LIMIT_SECONDS)
    assert sources.hung is not None
    assert sources.hung.call == "nvmlDeviceGetCount"
    assert sources.inline[0].sample(0).simulated  # --demo still has its GPU


def test_a_live_read_stuck_past_the_limit_is_named(
    hanging: Callable[..., SimulatedLibrary],
) -> None:
    driver = hanging()
    session, _ = within(5, lambda: NvmlSession.open(driver.binding))
    sampler = Sampler(gpu_sources=[session], gpu_deadline=0.05)
    assert not sampler.tick().gpus[0].stale
    driver.hang("nvmlDeviceGetPowerUsage")
    assert sampler.tick().gpus[0].stale
    assert sampler.not_answering == ()  # stale, but not yet past the limit
    time.sleep(SHORT_LIMIT_SECONDS)
    late = sampler.tick()
    assert late.gpus[0].stale
    assert late.cpu.per_core_percent
    (stuck,) = sampler.not_answering
    assert stuck.reason == reason("nvmlDeviceGetPowerUsage", SHORT_LIMIT_SECONDS)
    driver.release()
    sampler.stop()


def test_a_gpu_that_never_answered_says_which_call_hangs(
    hanging: Callable[..., SimulatedLibrary],
) -> None:
    driver = hanging()
    session, _ = within(5, lambda: NvmlSession.open(driver.binding))
    driver.hang("nvmlDeviceGetUtilizationRates")
    sampler = Sampler(gpu_sources=[session], gpu_deadline=0.05)
    sampler.tick()
    time.sleep(SHORT_LIMIT_SECONDS)
    power = sampler.tick().gpus[0].power_watts
    assert isinstance(power, Unknown)
    assert power.reason == reason("nvmlDeviceGetUtilizationRates", SHORT_LIMIT_SECONDS)
    driver.release()
    sampler.stop()


def test_bench_telemetry_neither_waits_for_nor_is_held_by_a_hung_driver(
    hanging: Callable[..., SimulatedLibrary],
) -> None:
    record = scripted_worker.environment(scripted_worker.cuda_device())["environment"]
    stuck = hanging("nvmlInit")
    (telemetry, records), waited = within(5, lambda: Telemetry.open(record, stuck.binding))
    assert telemetry is None
    assert records["cuda:0"] == {
        "nvml_index": None,
        "reason": reason("nvmlInit", SHORT_LIMIT_SECONDS),
    }
    assert waited < SHORT_LIMIT_SECONDS + 1
    stuck.release()
    answering_again()
    driver = hanging()
    (telemetry, records), _ = within(5, lambda: Telemetry.open(record, driver.binding))
    assert telemetry is not None
    assert records["cuda:0"]["before"]["power_watts"] == 74.58
    driver.hang("nvmlDeviceGetPowerUsage")
    reading, waited = within(5, lambda: telemetry.sample("cuda:0"))
    assert waited < READ_DEADLINE_SECONDS + 0.5
    assert reading.power_watts == 74.58  # the last real reading; no new one was made up
    after, waited = within(5, telemetry.stop)
    assert waited < 2 * telemetry.interval + 1 + READ_DEADLINE_SECONDS + 0.5
    assert after["cuda:0"]["power_watts"] == 74.58


async def test_the_specs_pane_shows_the_cpu_then_nvml_not_answering(
    hanging: Callable[..., SimulatedLibrary],
) -> None:
    driver = hanging("nvmlInit")
    app = make_app(AppConfig(demo=False, pane="specs", host="test-host", nvml=driver.binding))
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            pane = app.query_one(SpecsPane)

            def nvml_row() -> tuple[str, str]:
                section = next(s for s in pane.sections if s.title == "NVIDIA driver (NVML)")
                return section.rows[0].value, section.rows[0].note

            await until(pilot, lambda: bool(pane.sections), "the CPU shown")
            assert pane.sections[0].title.startswith("CPU")
            assert nvml_row() == ("not available", CHECKING)  # the CPU did not wait for NVML
            expected = reason("nvmlInit", SHORT_LIMIT_SECONDS)
            await until(pilot, lambda: nvml_row()[1] == expected, "NVML shown not answering")
            assert nvml_row()[0] == "not available"
            await pilot.press("q")
        finally:
            driver.release()


async def test_the_specs_pane_shows_the_gpu_once_a_driver_that_did_not_answer_does(
    hanging: Callable[..., SimulatedLibrary],
) -> None:
    driver = hanging("nvmlInit")
    app = make_app(AppConfig(demo=False, pane="specs", host="test-host", nvml=driver.binding))
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            expected = reason("nvmlInit", SHORT_LIMIT_SECONDS)
            await until(
                pilot,
                lambda: (
                    app.inventory is not None
                    and app.inventory.backends.get("nvml") is not None
                    and app.inventory.backends["nvml"].reason == expected
                ),
                "NVML not answering",
            )
            driver.release()  # the stuck init returns; the next discovery finds the GPU
            await until(
                pilot,
                lambda: app.inventory is not None and bool(app.inventory.accelerators),
                "the GPU discovered again",
                timeout=8,
            )
            assert [gpu.name for gpu in app.inventory.accelerators] == ["NVIDIA H200"]
            await pilot.press("q")
        finally:
            driver.release()


def test_the_exporter_exports_the_gpus_once_a_driver_that_did_not_answer_does(
    hanging: Callable[..., SimulatedLibrary],
) -> None:
    from gpu_tui.commands.export import open_when_answering
    from gpu_tui.core.fleet.exporter import ExporterHealth, MetricsPage

    driver = hanging("nvmlInit")
    sources = open_gpu_sources(demo=False)  # the binding gpu-tui imports: this driver's
    assert sources.hung is not None
    sampler = Sampler(gpu_sources=sources.real, interval=0.1)
    page = MetricsPage(lambda: sampler.latest, (), "gpu-node-7", ExporterHealth("gpu-node-7"))
    opened = [sources]
    stop = threading.Event()
    retrying = threading.Thread(target=open_when_answering, args=(sampler, page, opened, stop))
    retrying.start()
    try:
        sampler.tick()
        assert b"DCGM_FI_DEV_GPU_TEMP" not in page.render()  # nothing to export yet
        driver.release()
        retrying.join(timeout=10)
        assert not retrying.is_alive()
        assert [gpu.model for gpu in page.gpus] == ["NVIDIA H200"]
        sampler.tick()
        assert b'DCGM_FI_DEV_GPU_TEMP{gpu="0"' in page.render()
    finally:
        stop.set()
        retrying.join(timeout=10)
        sampler.stop()
        for each in opened:
            each.close(reads_hung=False)


def monitor_app(driver: SimulatedLibrary) -> GpuTuiApp:
    """The Monitor on the real host, its GPUs read through ``driver``, ticking ten times a
    second."""
    config = AppConfig(
        demo=False,
        pane="monitor",
        host="test-host",
        nvml=driver.binding,
        refresh_seconds=0.1,
        discover=discover_host,
    )
    return make_app(config)


async def test_the_monitor_reads_the_cpu_while_nvml_init_hangs(
    hanging: Callable[..., SimulatedLibrary],
) -> None:
    driver = hanging("nvmlInit")
    app = monitor_app(driver)
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            pane = app.query_one(MonitorPane)
            host = app.query_one(HostPanel)
            no_gpu = app.query_one("#monitor-no-gpu", Static)
            await until(pilot, lambda: host.sample is not None, "CPU readings", timeout=2)
            expected = f"No GPUs to show: {reason('nvmlInit', SHORT_LIMIT_SECONDS)}."
            # NVML still stuck in its init (or, on a loaded machine, already given up on)
            assert any(words in str(no_gpu.render()) for words in ("Opening GPUs", expected))
            assert host.core_count == os.cpu_count()
            await until(pilot, lambda: expected in str(no_gpu.render()), "GPUs not answering")
            drawn = pane.redraws
            await until(pilot, lambda: pane.redraws > drawn + 2, "CPU readings go on")
        finally:
            driver.release()


async def test_the_monitor_asks_again_and_shows_the_gpus_once_the_driver_answers(
    hanging: Callable[..., SimulatedLibrary],
) -> None:
    driver = hanging("nvmlInit")
    app = monitor_app(driver)
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            pane = app.query_one(MonitorPane)
            no_gpu = app.query_one("#monitor-no-gpu", Static)
            await until(pilot, lambda: "Asking again in 2 s" in str(no_gpu.render()), "a retry")
            driver.release()  # the stuck init returns; the next ask finds the GPU
            await until(pilot, lambda: bool(pane.query(GpuCard)), "the GPU card", timeout=8)
            assert not pane.has_class("-no-gpu")
            # the note is removed as the card mounts: its removal finishes a refresh later
            await until(pilot, lambda: not pane.query("#monitor-no-gpu"), "the no-GPU note gone")
        finally:
            driver.release()


async def test_the_monitor_names_a_live_call_stuck_past_the_limit(
    hanging: Callable[..., SimulatedLibrary],
) -> None:
    driver = hanging()
    app = monitor_app(driver)
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            await until(pilot, lambda: bool(app.query(GpuCard)), "the H200's card")
            await until(pilot, lambda: app.query_one(GpuCard).gpu is not None, "a reading")
            driver.hang("nvmlDeviceGetPowerUsage")
            status = app.query_one("#monitor-status")
            expected = (
                "1 GPU(s) not answering (NVML call nvmlDeviceGetPowerUsage did not return "
                f"within {SHORT_LIMIT_SECONDS:g} s): last readings shown"
            )
            await until(pilot, lambda: expected in str(status.render()), "the stuck call named")
            assert app.query_one(GpuCard).state == "STALE"
        finally:
            driver.release()
