"""The Kitchen's "run it for real" key with the real bench worker: rows, missing torch, cancel."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static

from gpu_tui.core.bench import BenchRunner
from gpu_tui.core.bench import messages as m
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.kitchen.measure_panel import MeasurePanel
from gpu_tui.ui.kitchen_pane import KitchenPane
from gpu_tui.ui.widgets.textual_internals import screen_strips
from tests.polling import WORKER_RUN, until, wait_for
from tests.ui.conftest import fixed_inventory


def panel_text(app: GpuTuiApp) -> str:
    """What the panel shows, as plain text (its Static holds a Rich group)."""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(app.query_one("#measure-body", Static).content)
    return console.export_text()


def quick(app: GpuTuiApp) -> MeasurePanel:
    """A short, CPU-only run: the test machine may have a GPU, and the suite must stay fast."""
    panel = app.query_one(MeasurePanel)
    panel.budget, panel.devices = 0.02, ["cpu"]
    return panel


def kitchen_app(bench_python: str | None = None) -> GpuTuiApp:
    inventory = fixed_inventory(demo=False)
    return make_app(
        AppConfig(pane="kitchen", discover=lambda: inventory, host="t", bench_python=bench_python)
    )


def measure_workers(app: GpuTuiApp) -> list[object]:
    return [w for w in app.workers if w.group == "kitchen-measure" and not w.is_finished]


async def test_m_measures_the_onions_beside_the_model() -> None:
    app = kitchen_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = quick(app)
        await pilot.press("m")
        pane = app.query_one(KitchenPane)
        assert pane.has_class("-measure")
        assert not app.query_one("#race").display  # the panel takes the race's rows
        assert not pane.playback.playing  # frames would steal the cores being measured
        assert "loading PyTorch" in panel_text(app)
        await until(pilot, lambda: panel.finished, "the measurement to finish", timeout=WORKER_RUN)
        shown = panel_text(app)
        assert "measured: 3 results" in shown or "measured: 4 results" in shown  # numpy optional
        for row in ("chef: Python loop, one at a time", "brigade: vectorised, CPU cores"):
            line = next(x for x in shown.splitlines() if x.startswith(row))
            assert " s" in line  # the model's time
            assert "µs" in line or "ms" in line  # the measured one beside it
        assert "This machine: vectorised" in shown
        assert "Holds: " in shown
        # Finished is posted from inside the worker, so its thread may still be returning:
        # wait for it, but briefly; a worker that never ends fails here
        await until(pilot, lambda: not measure_workers(app), "the worker gone", timeout=5)
        await pilot.press("escape")
        assert not pane.has_class("-measure")
        assert app.query_one("#race").display


async def test_a_python_without_torch_says_how_to_get_it(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path)], check=True)
    python = tmp_path / "bin" / "python"
    probe = subprocess.run([python, "-c", "import torch"], capture_output=True, check=False)
    assert probe.returncode != 0, "the bare venv must lack torch"
    app = kitchen_app(str(python))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = quick(app)
        await pilot.press("m")
        await until(pilot, lambda: panel.finished, "the measurement to finish", timeout=WORKER_RUN)
        shown = " ".join(panel_text(app).split())
        assert "PyTorch is not installed" in shown
        assert "pip install 'gpu-tui[torch]'" in shown
        assert "--bench-python" in shown
        assert "failed: 0 results" in shown


async def test_a_missing_bench_python_is_one_clear_line(tmp_path: Path) -> None:
    app = kitchen_app(str(tmp_path / "nothing-here"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = quick(app)
        await pilot.press("m")
        await until(pilot, lambda: panel.finished, "the measurement to finish", timeout=WORKER_RUN)
        shown = " ".join(panel_text(app).split())
        assert "no executable file there" in shown
        assert "pip install 'gpu-tui[torch]'" in shown


@pytest.mark.parametrize("key", ["m", "escape"])
async def test_the_same_key_or_esc_stops_the_run(key: str) -> None:
    app = kitchen_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = quick(app)
        await pilot.press("m")
        runner = panel.runner
        assert isinstance(runner, BenchRunner)
        assert measure_workers(app)
        await pilot.press(key)
        await until(pilot, lambda: panel.finished, "the run stopped", timeout=10)
        assert "stopped" in panel_text(app)
        await until(pilot, lambda: not measure_workers(app), "the worker gone", timeout=5)
        assert not runner.running
        assert app.query_one(KitchenPane).has_class("-measure")  # the numbers stay up


async def test_leaving_the_app_stops_the_worker_process() -> None:
    app = kitchen_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = quick(app)
        await pilot.press("m")
        runner = panel.runner
    assert isinstance(runner, BenchRunner)
    wait_for(lambda: not runner.running, "the runner to stop", timeout=5, every=0.05)


async def test_another_scenario_closes_the_panel_and_knobs_move_the_model() -> None:
    app = kitchen_app("/nonexistent/python")  # fails at once: no worker needed here
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = quick(app)
        await pilot.press("m")
        await until(pilot, lambda: panel.finished, "the measurement to finish", timeout=WORKER_RUN)
        await pilot.press("right")  # cooks 10,000 → 20,000: the model column follows
        assert panel.params is not None
        assert panel.params.cooks == 20_000
        assert app.query_one(KitchenPane).has_class("-measure")
        await pilot.press("s")
        assert not app.query_one(KitchenPane).has_class("-measure")
        assert panel.check is None


def _loop(seconds: float) -> BenchResult:
    times = (seconds, seconds, seconds, 20)
    args = ("reduction", "python-loop", "cpu", "fp64", {"n": 10_000})
    return BenchResult(*args, *times, 0.0, "us", None)


async def test_the_warm_up_pass_is_shown_as_such_and_never_timed() -> None:
    """The plan runs every benchmark twice; what the first (warm-up) half measures is dropped,
    so a cold first call never reaches the table."""
    from tests.ui.test_kitchen_snapshots import RecordedRunner

    events: list[m.Message] = [
        m.Progress(0, 2, "reduction", "cpu"),  # the warm-up pass: cold, 65× slow
        m.Heartbeat("sum of 10000 numbers: python-loop", 0.5),
        m.ResultReady(_loop(8e-3)),
        m.Progress(1, 2, "reduction", "cpu"),  # the timed pass
        m.ResultReady(_loop(123e-6)),
    ]
    app = kitchen_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = quick(app)
        seen: list[str] = []
        original = panel.draw

        def draw() -> None:  # every status the panel showed, in order
            original()
            seen.append(panel.status)

        panel.draw = draw  # type: ignore[method-assign]
        panel.make_runner = lambda plan, python: RecordedRunner(events)
        await pilot.press("m")
        await until(pilot, lambda: panel.finished, "the measurement to finish", timeout=WORKER_RUN)
        assert [r.median_seconds for r in panel.results] == [123e-6]
        assert any(s.startswith("warming up (not timed): sum of 10000") for s in seen)
        assert "123 µs" in panel_text(app)
        assert "8 ms" not in panel_text(app)
        assert "measured: 1 result" in panel_text(app)


async def test_what_does_not_fit_at_80x24_scrolls_with_the_keyboard() -> None:
    from tests.ui.test_kitchen_snapshots import CPU_RUN, RecordedRunner

    app = kitchen_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = quick(app)
        panel.make_runner = lambda plan, python: RecordedRunner(CPU_RUN)
        await pilot.press("m")
        await until(pilot, lambda: panel.finished, "the measurement to finish", timeout=WORKER_RUN)
        await pilot.pause()
        assert panel.max_scroll_y > 0  # no GPU: the notes need more rows than 80×24 has
        assert "Tab, then ↑↓: the rest" in panel_text(app)
        await pilot.press("tab")
        assert app.focused is panel
        await pilot.press(*["down"] * panel.max_scroll_y)
        assert panel.scroll_y == panel.max_scroll_y
        screen = "".join(s.text for s in screen_strips(app.screen))
        assert "outweighs the whole job." in screen  # the analogy's last words
        await pilot.press("escape")  # closes the panel; the knobs have the keys again
        assert isinstance(app.focused, KitchenPane)
