"""One run driver, one way to fail: ``gpu-tui bench``, the Bench pane and the Kitchen's "measure
for real" all follow the worker through :func:`gpu_tui.core.bench.runner.drive`, which never
raises; a background task that fails in the UI is shown, and the pane can run again.

Faults come from the real worker (a bad interpreter, a line that is JSON but not a message) and
from gpu-tui itself (reading a result raises), injected where the runner reads results.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from gpu_tui.commands.bench_console import Progress
from gpu_tui.core.bench import messages as m
from gpu_tui.core.bench import runner as runner_module
from gpu_tui.core.bench.runner import BenchRunner, drive
from gpu_tui.core.bench.suites import build_plan
from gpu_tui.core.devices.model import Inventory
from gpu_tui.ui.app import AppConfig, make_app
from gpu_tui.ui.bench.run_progress import RunProgress
from tests.fakes.scripted_worker import environment, install
from tests.helpers.running_app import saved_runs
from tests.polling import WORKER_RUN, until
from tests.ui.test_bench_pane import bench_app, notice, start_tiny_run
from tests.ui.test_kitchen_measure import kitchen_app, panel_text, quick

pytestmark = pytest.mark.usefixtures("no_process_left")


@pytest.fixture
def breakage() -> Iterator[pytest.MonkeyPatch]:
    """A patch of its own, to undo mid-test: ``monkeypatch.undo()`` would also undo the suite's
    private data dir, and the rerun would save into the real one."""
    with pytest.MonkeyPatch.context() as patch:
        yield patch


TINY_PLAN = build_plan("quick", only=["launch"], devices=["cpu"], budget_seconds=0.02)


def run(runner: BenchRunner, **options: Any) -> list[m.Message]:
    seen: list[m.Message] = []
    finished = drive(runner, seen.append, **options)
    assert seen[-1] is finished
    return seen


def broken_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """gpu-tui itself fails on the first result it reads (a bug, say)."""

    def fail(*args: object) -> object:
        raise RuntimeError("a bug in reading results")

    monkeypatch.setattr(runner_module, "from_worker", fail)


def test_a_worker_that_cannot_start_is_a_failed_run_not_an_exception(
    private_data_dir: Path,
) -> None:
    messages = run(BenchRunner(TINY_PLAN, python="/no/such/python"))
    error, finished = messages
    assert isinstance(error, m.BenchError)
    assert error.kind == "start"
    assert error.message == "--bench-python /no/such/python: no executable file there"
    assert isinstance(finished, m.Finished)
    assert finished.status == "failed"
    assert not saved_runs(private_data_dir)  # nothing ran: nothing to keep


def test_a_failure_while_following_the_run_ends_it_and_keeps_the_worker_from_running_on(
    private_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken_reader(monkeypatch)
    runner = BenchRunner(TINY_PLAN)
    messages = run(runner)
    error, finished = messages[-2:]
    assert isinstance(error, m.BenchError)
    assert error.kind == "internal"
    assert "RuntimeError: a bug in reading results" in error.message
    assert isinstance(finished, m.Finished)
    assert finished.status == "failed"
    assert runner._process is not None
    assert runner._process.wait(5) is not None  # the worker was stopped
    [stored] = saved_runs(private_data_dir)
    assert stored["errors"][-1]["kind"] == "internal"


def test_a_message_that_makes_no_sense_is_one_error_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = [
        environment(),
        {"type": "progress", "index": 0, "total": 1, "benchmark": "launch", "device": "cpu"},
        {"type": "result", "benchmark": "launch", "timing": "not an object"},
        {"type": "done", "cancelled": False},
    ]
    python = install(tmp_path, script, monkeypatch)
    messages = run(BenchRunner(TINY_PLAN, python=python, save=False))
    errors = [message for message in messages if isinstance(message, m.BenchError)]
    assert [error.kind for error in errors] == ["protocol"]
    assert "could not read" in errors[0].message
    finished = messages[-1]
    assert isinstance(finished, m.Finished)
    assert finished.status == "completed"


def test_stop_is_looked_at_while_the_worker_is_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script: list[dict[str, Any]] = [environment(), {"sleep": 20}, {"type": "done"}]
    python = install(tmp_path, script, monkeypatch)
    runner = BenchRunner(TINY_PLAN, python=python, save=False)
    messages = run(runner, stop=lambda: runner.document.environment is not None)
    finished = messages[-1]
    assert isinstance(finished, m.Finished)
    assert finished.status == "cancelled"


def test_a_cancel_before_the_start_stops_the_run_at_once(private_data_dir: Path) -> None:
    runner = BenchRunner(TINY_PLAN)
    runner.cancel()  # e.g. Ctrl-C while the worker was being started
    finished = run(runner)[-1]
    assert isinstance(finished, m.Finished)
    assert finished.status == "cancelled"
    assert finished.document.interrupted
    assert not runner.stored  # nothing was measured: nothing stands in the store as a run
    assert not saved_runs(private_data_dir)


def test_a_cancel_while_the_plan_is_on_its_way_stops_the_run_cleanly(
    private_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A signal can land after the worker started and before it has its plan: "stop" must
    not reach it first (it would be read as the plan)."""
    runner = BenchRunner(TINY_PLAN)
    pump = BenchRunner._pump

    def pump_then_signal(stream: Any, put: Any, *, end: bool) -> None:
        pump(stream, put, end=end)
        if end:
            runner.cancel()  # the signal lands between starting the worker and the plan

    monkeypatch.setattr(BenchRunner, "_pump", staticmethod(pump_then_signal))
    messages = run(runner)
    assert not [message for message in messages if isinstance(message, m.BenchError)]
    finished = messages[-1]
    assert isinstance(finished, m.Finished)
    assert finished.status == "cancelled"


# --- the panes -----------------------------------------------------------------------------------


async def test_the_bench_pane_shows_a_failed_run_and_can_run_again(
    breakage: pytest.MonkeyPatch, private_data_dir: Path
) -> None:
    broken_reader(breakage)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await start_tiny_run(pilot, ["reduction"])
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=WORKER_RUN)
        assert "a bug in reading results" in notice(pane)
        assert pane.query_one(RunProgress).headline.startswith("Failed: 0 results")
        assert not pane.has_class("-running")
        breakage.undo()
        await pilot.press("r")
        await until(
            pilot,
            lambda: pane.runner is None and bool(pane.results),
            "the rerun",
            timeout=WORKER_RUN,
        )
        assert pane.query_one(RunProgress).headline.startswith("Done: ")
        assert any(run["results"] for run in saved_runs(private_data_dir))  # kept there


async def test_a_failed_background_task_in_the_bench_pane_is_shown_not_swallowed(
    breakage: pytest.MonkeyPatch, private_data_dir: Path
) -> None:
    """Even a failure outside the driver (here: the task that runs it) is shown, and the pane
    is ready for a new run."""

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("the task itself broke")

    breakage.setattr("gpu_tui.ui.bench_pane.drive", broken)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await start_tiny_run(pilot, ["reduction"])
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=WORKER_RUN)
        assert (
            "A background task failed (bench-run): RuntimeError: the task itself broke. The "
            "rest of gpu-tui keeps working."
        ) in notice(pane).replace("\n", " ")
        assert pane.query_one(RunProgress).headline.startswith("Failed: 0 results")
        breakage.undo()
        await pilot.press("r")
        await until(
            pilot,
            lambda: pane.runner is None and bool(pane.results),
            "the rerun",
            timeout=WORKER_RUN,
        )
        assert any(run["results"] for run in saved_runs(private_data_dir))


async def test_the_kitchen_measurement_shows_a_failure_and_can_measure_again(
    breakage: pytest.MonkeyPatch,
) -> None:
    broken_reader(breakage)
    app = kitchen_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = quick(app)
        await pilot.press("m")
        await until(pilot, lambda: panel.finished, "the measurement to end", timeout=WORKER_RUN)
        assert "a bug in reading results" in panel_text(app)
        assert not panel.running
        breakage.undo()
        await pilot.press("m")
        await until(
            pilot,
            lambda: panel.finished and bool(panel.results),
            "the remeasurement",
            timeout=WORKER_RUN,
        )
        assert "measured:" in panel_text(app)


async def test_a_failed_measurement_task_stops_its_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    app = kitchen_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = quick(app)

        def broken(*args: object, **kwargs: object) -> object:
            raise RuntimeError("the measurement task broke")

        monkeypatch.setattr("gpu_tui.ui.kitchen.measure_panel.drive", broken)
        await pilot.press("m")
        await until(pilot, lambda: panel.finished, "the measurement to end", timeout=WORKER_RUN)
        assert "the measurement task broke" in panel_text(app)
        assert not panel.running
        assert isinstance(app.query_one("#measure-body", Static), Static)


async def test_a_failed_hardware_discovery_is_shown_and_the_app_goes_on() -> None:
    def broken() -> Inventory:
        raise RuntimeError("the inventory broke")

    app = make_app(AppConfig(pane="specs", discover=broken, host="t"))
    shown: list[str] = []
    app.notify = lambda message, **options: shown.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: bool(shown), "the failure notified", timeout=10)
        assert shown == [
            "A background task failed (inventory): RuntimeError: the inventory broke. The rest "
            "of gpu-tui keeps working."
        ]
        await pilot.press("3")  # the app still answers
        await until(
            pilot, lambda: "kitchen" in app.panes and app.panes["kitchen"].display, "the Kitchen"
        )


# --- a warning from the worker -------------------------------------------------------------------

WARNING = {
    "type": "warning",
    "message": "other processes are using 1.7 vCPU: CPU results will be low and noisy",
    "detail": "each result says how loaded it was",
}
WARNED_RUN = [environment(), WARNING, {"type": "done", "cancelled": False}]


def test_a_warning_from_the_worker_arrives_typed_with_its_detail_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = install(tmp_path, WARNED_RUN, monkeypatch)
    messages = run(BenchRunner(TINY_PLAN, python=python, save=False))
    [warning] = [message for message in messages if isinstance(message, m.RunWarning)]
    assert warning.message == WARNING["message"]
    assert warning.text == f"{WARNING['message']} ({WARNING['detail']})"
    assert not [message for message in messages if isinstance(message, m.Status)]


def test_the_console_says_a_warning_once_with_its_detail() -> None:
    stream = io.StringIO()
    Progress(stream).show(m.RunWarning("the clocks ramped late", "the first rows are slower"))
    assert stream.getvalue() == (
        "gpu-tui bench: warning: the clocks ramped late (the first rows are slower)\n"
    )


async def test_the_bench_pane_shows_a_warning_with_its_detail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = bench_app(bench_python=install(tmp_path, WARNED_RUN, monkeypatch))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await start_tiny_run(pilot, ["reduction"])
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=WORKER_RUN)
        shown = " ".join(notice(pane).split())
        assert f"{WARNING['message']} ({WARNING['detail']})" in shown


async def test_the_kitchen_shows_the_warning_s_news_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = kitchen_app(bench_python=install(tmp_path, WARNED_RUN, monkeypatch))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = quick(app)
        await pilot.press("m")
        await until(pilot, lambda: panel.finished, "the measurement to end", timeout=WORKER_RUN)
        assert panel.warning == WARNING["message"]
        assert WARNING["detail"] not in panel_text(app)
