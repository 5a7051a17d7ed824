"""The Bench pane with Pilot: real tiny CPU runs, cancel, worker faults, keys, compare, export."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, SelectionList, Static
from textual.widgets._footer import FooterKey

from gpu_tui.core.bench import build_plan, estimate_seconds, result_text
from gpu_tui.core.bench import messages as bench_messages
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.suites import HostSpeed, task_points
from gpu_tui.core.devices.nvidia import discover_nvidia
from gpu_tui.ui import bench_pane
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.bench import bench_plot, plot_data, results_table
from gpu_tui.ui.bench.chooser import BUDGET_STEPS as BENCH_BUDGET_STEPS
from gpu_tui.ui.bench.chooser import BenchChooser
from gpu_tui.ui.bench.path_dialog import PathDialog
from gpu_tui.ui.bench.results_table import ResultsTable
from gpu_tui.ui.bench.run_progress import RunProgress
from gpu_tui.ui.bench.run_tracker import RunTracker
from gpu_tui.ui.bench_pane import BenchPane
from gpu_tui.ui.widgets.reading_box import ReadingBox
from tests.conftest import SimulatedNvml
from tests.fakes import faulty_worker
from tests.fakes.scripted_worker import cuda_device, environment, gemm_result, install
from tests.polling import WORKER_RUN, until
from tests.ui.conftest import fixed_inventory

FIXTURES = Path(__file__).parent / "fixtures" / "bench" / "data" / "results"
RECORDED = "bench-20261202T181839Z-quick.json"
EARLIER = "bench-20261202T181152Z-quick.json"
TINY = {
    "gemm": {"cpu": {"dtypes": {"fp32": [32, 64]}}},
    "reduction": {"cpu": {"n": 100}},
    "linear": {"cpu": {"batch": 8, "features": 64}},
    "crossover": {"cpu": {"sizes": [16, 32]}},
}


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def with_recorded_runs(data_dir: Path) -> None:
    (data_dir / "results").mkdir(parents=True)
    shutil.copy(FIXTURES / RECORDED, data_dir / "results" / RECORDED)
    shutil.copy(FIXTURES / EARLIER, data_dir / "results" / EARLIER)


def bench_app(**config: Any) -> GpuTuiApp:
    inventory = fixed_inventory(demo=False)
    return make_app(AppConfig(pane="bench", discover=lambda: inventory, host="test", **config))


async def start_tiny_run(pilot: Pilot[Any], only: list[str]) -> BenchPane:
    await pilot.pause()  # the app focuses the pane after its first refresh
    pane = pilot.app.query_one(BenchPane)
    chooser = pane.query_one(BenchChooser)
    chooser.overrides = TINY
    chooser.budget = 0.02
    chooser.select(only)
    await pilot.press("r")
    assert pane.has_class("-view-table")  # a run shows the table (it may already be over)
    return pane


def esc_says(app: GpuTuiApp) -> list[str]:
    """What the footer says Esc does now (nothing, Stop or Back)."""
    return [key.description for key in app.screen.query(FooterKey) if key.key == "escape"]


def notice(pane: BenchPane) -> str:
    return str(pane.query_one("#bench-notice", Static).render())


async def test_a_tiny_cpu_run_fills_the_table_and_every_cpu_plot(
    data_dir: Path, simulated_nvml: SimulatedNvml
) -> None:
    library = simulated_nvml("h200")
    app = bench_app(nvml=library.binding)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await start_tiny_run(pilot, ["gemm", "crossover", "linear"])
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=WORKER_RUN)
        table = pane.query_one(ResultsTable)
        names = [r.benchmark for r in table.results]
        assert names.count("gemm") == 4  # n=32, 64 through torch and through numpy
        assert names.count("crossover") >= 2
        assert "linear" in names
        assert table.row_count == len(names)
        for view in ("gemm", "crossover", "linear"):
            assert plot_data.build(view, table.results).has_data, view
        assert "Done" in pane.query_one("#bench-progress").headline  # type: ignore[attr-defined]
        saved = json.loads(next((data_dir / "results").glob("bench-*.json")).read_text())
        assert len(saved["results"]) == len(names)
        assert library.called("nvmlDeviceGetClockInfo") == 0  # a CPU run reads no GPU telemetry


async def test_esc_stops_the_worker_within_a_second_and_keeps_completed_rows(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hung = faulty_worker.install(tmp_path, "hang:reduction", monkeypatch)  # ignores "stop"
    app = bench_app(bench_python=hung)  # so the worker must be killed
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await start_tiny_run(pilot, ["gemm", "reduction"])
        runner = pane.runner
        assert runner is not None
        tracker = pane.query_one("#bench-progress").tracker  # type: ignore[attr-defined]
        await until(
            pilot,
            lambda: tracker.current.startswith("reduction"),
            "the reduction",
            timeout=WORKER_RUN,
        )
        assert esc_says(app) == ["Stop"]
        await pilot.press("escape")
        stopped_at = time.monotonic()
        await until(pilot, lambda: not runner.running, "the worker gone", timeout=5)
        gone = time.monotonic() - stopped_at
        print(f"Esc to worker gone: {gone:.2f} s")
        assert gone < 1.5  # 1 s grace, then SIGKILL; the margin is for a busy test machine
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=5)
        assert [r.benchmark for r in pane.query_one(ResultsTable).results] == ["gemm"] * 4
        assert "Stopped: 4 results (kept)" in pane.query_one("#bench-progress").headline  # type: ignore[attr-defined]
        saved = json.loads(next((data_dir / "results").glob("bench-*.json")).read_text())
        assert saved["interrupted"] is True
        assert len(saved["results"]) == 4


async def test_the_footer_says_what_esc_does_now_and_nothing_when_it_does_nothing(
    data_dir: Path,
) -> None:
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        await until(pilot, lambda: esc_says(app) == ["Back"], "Esc as Back in the options")
        await pilot.press("escape")
        assert pane.view == "table"
        await until(pilot, lambda: esc_says(app) == [], "no Esc key on the table")
        await pilot.press("p")
        await until(pilot, lambda: esc_says(app) == ["Back"], "Esc as Back from a plot")
        await pilot.resize_terminal(160, 48)  # every view shows side by side: nothing to go back to
        await until(pilot, lambda: esc_says(app) == [], "no Esc key when wide")


async def test_a_crashing_worker_shows_what_happened_and_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = bench_app(bench_python=faulty_worker.install(tmp_path, "crash:reduction", monkeypatch))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await start_tiny_run(pilot, ["gemm", "reduction"])
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=WORKER_RUN)
        text = notice(pane)
        assert "the worker died (signal 9) during reduction" in text
        assert "smaller budget" in text
        assert pane.query_one("#bench-notice").has_class("-error")
        assert len(pane.query_one(ResultsTable).results) == 4  # the rows before the crash
        await pilot.press("o")  # the app goes on
        assert pane.view == "setup"


async def test_a_python_without_torch_says_how_to_fix_it(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    app = bench_app(bench_python=str(venv / "bin" / "python"))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await start_tiny_run(pilot, ["gemm"])
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=WORKER_RUN)
        text = notice(pane)
        assert "PyTorch is not installed for" in text
        assert "--bench-python PATH" in text


async def test_a_missing_bench_python_is_one_clear_line(tmp_path: Path) -> None:
    app = bench_app(bench_python=str(tmp_path / "nope"))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await start_tiny_run(pilot, ["gemm"])
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=WORKER_RUN)
        assert "no executable file there" in notice(pane)


async def test_keyboard_alone_chooses_reads_and_plots_at_80x24(data_dir: Path) -> None:
    with_recorded_runs(data_dir)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        await until(pilot, lambda: bool(pane.results), "the saved run shown")
        await pilot.pause()
        assert pane.view == "table"  # the last saved run is shown at start
        table = pane.query_one(ResultsTable)
        assert table.row_count == 23
        assert app.focused is table
        # Not every row fits: the border says how many lie below.
        await until(pilot, lambda: bool(table.border_subtitle), "the rows-below hint")
        below = int(str(table.border_subtitle).split()[1])
        assert str(table.border_subtitle) == f"↓ {below} more rows"
        assert 0 < below < 23
        await pilot.press("down", "down")
        detail = str(pane.query_one("#bench-detail", Static).render())
        assert "1024×1024 fp32" in detail
        assert "% of the" in detail
        await pilot.press("o")
        chooser = pane.query_one(BenchChooser)
        assert isinstance(app.focused, SelectionList)
        await pilot.press("s", "minus", "space")  # full suite, smaller budget, drop GEMM
        assert (chooser.suite, chooser.budget) == ("full", 0.5)
        assert "gemm" not in chooser.selected()
        await pilot.press("p")
        assert pane.view == "plot"
        seen = [pane.plot_index]
        for _ in plot_data.VIEWS:
            await pilot.press("p")
            seen.append(pane.plot_index)
        assert sorted(set(seen)) == [0, 1, 2, 3]
        await pilot.press("t")
        assert pane.view == "table"


async def test_the_widest_figures_fit_their_columns_at_80x24_without_scrolling_sideways(
    data_dir: Path,
) -> None:
    widest = [
        gpu_result("gemm", "mm", 8192, 5.56e-4, dtype="fp8", value=1979.4, unit="TFLOP/s"),
        gpu_result("bandwidth", "triad", 0, 1e-3, params={"array_bytes": 15 << 27}),
        gpu_result("mlp", "forward", 0, 1e-3, params={"batch": 512, "d": 1024}),
    ]
    with_recorded_runs(data_dir)  # so the pane opens on its table
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        await until(pilot, lambda: bool(pane.results), "the saved run shown")
        table = pane.query_one(ResultsTable)
        table.show(widest)
        await pilot.pause()
        assert table.max_scroll_x == 0
        rows = [table.render_line(y).text for y in range(1, 4)]
        assert "1,979 TFLOP/s" in rows[0]
        assert "1.875 GiB" in rows[1]
        assert "B=512 d=1024" in rows[2]  # every cell whole: the columns take what they need
        assert "cuda:0" in rows[2]
        # what the width left out is named, with where to read it
        assert "spread" not in table.widths
        assert str(table.border_title).endswith(" · p20-80 below")


async def test_compare_with_an_earlier_run_adds_deltas_and_base_series(data_dir: Path) -> None:
    with_recorded_runs(data_dir)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        await until(pilot, lambda: bool(pane.results), "the saved run shown")
        await pilot.pause()
        await pilot.press("c")  # the runs offered are read (checked) in a thread first
        await until(pilot, lambda: isinstance(app.screen, PathDialog), "the run picker", timeout=10)
        await pilot.press("enter")  # the newest other run
        await until(pilot, lambda: pane.baseline is not None, "the baseline loaded")
        await pilot.pause()
        table = pane.query_one(ResultsTable)
        assert table.deltas
        assert any(str(table.get_row_at(i)[-1]).endswith("%") for i in range(table.row_count))
        assert str(table.border_title).endswith(f" · vs {EARLIER}")  # named after the toast
        baseline = pane.baseline.results if pane.baseline else []
        spec = plot_data.build("gemm", pane.results, baseline)
        assert any(s.baseline for s in spec.series)


async def test_export_writes_json_and_csv(data_dir: Path, tmp_path: Path) -> None:
    with_recorded_runs(data_dir)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        await until(pilot, lambda: bool(pane.results), "the saved run shown")
        await pilot.pause()
        await pilot.press("x")
        app.screen.query_one(Input).value = str(tmp_path / "out" / "run")
        await pilot.press("enter")
        await until(pilot, lambda: (tmp_path / "out" / "run.csv").exists(), "run.csv")
        await until(pilot, lambda: (tmp_path / "out" / "run.json").exists(), "run.json")
        rows = (tmp_path / "out" / "run.csv").read_text().splitlines()
        assert len(rows) == 24


def gpu_result(benchmark: str, variant: str, n: int, seconds: float, **extra: Any) -> BenchResult:
    """A made-up GPU row (test data, not a measurement) for the plots a CPU cannot fill."""
    base: dict[str, Any] = dict(
        benchmark=benchmark,
        variant=variant,
        device="cuda:0",
        dtype="fp32",
        params={"n": n},
        median_seconds=seconds,
        p20_seconds=seconds,
        p80_seconds=seconds,
        repeats=10,
        value=seconds * 1e6,
        unit="us",
        percent_of_peak=None,
    )
    return BenchResult(**{**base, **extra})


def test_crossover_plot_marks_where_the_gpu_starts_to_win() -> None:
    cpu = [
        BenchResult(
            "crossover", "cpu-torch", "cpu", "fp32", {"n": n}, t, t, t, 10, t * 1e6, "us", None
        )
        for n, t in ((16, 2e-6), (64, 2e-5), (256, 3e-4))
    ]
    gpu = [gpu_result("crossover", "gpu-resident", n, 1e-5) for n in (16, 64, 256)]
    spec = plot_data.build("crossover", cpu + gpu, gpu=True)
    assert [label for _, label in spec.vlines] == ["cuda:0 resident wins from n=64"]
    assert {s.label for s in spec.series} == {"cpu-torch", "gpu-resident"}


def test_a_plot_the_run_shown_did_not_measure_says_so_not_no_results_yet() -> None:
    cpu_only = [
        BenchResult(
            "gemm", "mm", "cpu", "fp32", {"n": 256}, 1e-3, 1e-3, 1e-3, 5, 30.0, "GFLOP/s", None
        )
    ]
    # the machine has a GPU (NVML), the run did not measure one: no host↔device copies
    spec = plot_data.build("transfer", cpu_only, gpu=True)
    assert not spec.has_data
    assert spec.note == plot_data.EMPTY_IN_RUN
    assert plot_data.build("gemm", cpu_only, gpu=True).note != plot_data.EMPTY_IN_RUN
    assert plot_data.build("transfer", [], gpu=True).note == ""  # no run yet: "yet" is right


@pytest.mark.parametrize(
    ("ys", "ticks"),
    [
        ([0.83, 1041.0], [1.0, 10.0, 100.0, 1000.0]),  # 0.1 would sit on the axis label's row
        ([1.6, 2000.0], [10.0, 100.0, 1000.0]),
        ([2.0, 8.0], [2.0, 5.0]),  # no decade inside: 1-2-5 steps
        ([3.0, 3.5], []),  # nothing round inside: plotext's own
    ],
)
def test_log_axis_ticks_are_round_numbers_inside_the_data(
    ys: list[float], ticks: list[float]
) -> None:
    assert bench_plot._log_ticks(ys) == pytest.approx(ticks)


def recorded_app(data_dir: Path) -> GpuTuiApp:
    """The pane showing a fixed, recorded CPU run (no live timing)."""
    (data_dir / "results").mkdir(parents=True)
    shutil.copy(FIXTURES / RECORDED, data_dir / "results" / RECORDED)
    return bench_app()


async def loaded(pilot: Pilot[Any]) -> None:
    pane = pilot.app.query_one(BenchPane)
    await until(pilot, lambda: bool(pane.results), "the saved run shown")
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause(0.5)  # the plot's first redraw is rate-limited


@pytest.mark.usefixtures("plain_environment")
@pytest.mark.parametrize(
    ("size", "keys"),
    [((80, 24), ("down", "down")), ((80, 24), ("p",)), ((160, 48), ("down", "p"))],
    ids=["table-80x24", "gemm-plot-80x24", "wide-160x48"],
)
def test_snapshot(
    snap_compare: Any, data_dir: Path, size: tuple[int, int], keys: tuple[str, ...]
) -> None:
    assert snap_compare(recorded_app(data_dir), press=keys, terminal_size=size, run_before=loaded)


async def test_a_gpu_run_shows_live_clock_power_temperature_and_throttling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, simulated_nvml: SimulatedNvml
) -> None:
    library = simulated_nvml("h200")
    library.set_reading(
        0, sm_clock_mhz=1980, power_watts=612, temperature_c=64, clocks_event_reasons=0x4
    )
    release = tmp_path / "release"
    script = [
        environment({"device": "cpu"}, cuda_device()),
        {"type": "progress", "index": 0, "total": 1, "benchmark": "gemm", "device": "cuda:0"},
        {"type": "heartbeat", "label": "GEMM bf16 n=8192 on cuda:0", "fraction": 0.3},
        {"wait_file": str(release)},  # mid-measurement until the test has seen the line
        gemm_result("cuda:0", 8192, 1.5e-3),
        {"type": "done", "cancelled": False},
    ]
    app = bench_app(bench_python=install(tmp_path, script, monkeypatch), nvml=library.binding)
    line = "SM 1980 MHz · 612/700 W · 64 °C · power cap"
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await start_tiny_run(pilot, ["gemm"])
        progress = pane.query_one(RunProgress)
        await until(
            pilot, lambda: line in str(progress.render()), "the GPU line", timeout=WORKER_RUN
        )
        assert "GEMM bf16" in str(progress.render())  # beside the current measurement
        release.touch()
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=WORKER_RUN)
        assert line not in str(progress.render())  # only while a GPU run goes on
        (result,) = pane.query_one(ResultsTable).results
        assert result.telemetry is not None
        assert any(w.startswith("throttled: power cap") for w in result.warnings)


# --- every cell whole, unticked boxes empty, skips said on screen ------------------------------


def test_columns_give_way_in_a_fixed_order_and_never_cut() -> None:
    needs = {"benchmark": 21, "device": 3, "dtype": 4, "size": 9, "value": 13, "peak": 3}
    needs |= {"spread": 6, "notes": 14, "delta": 7}
    mins = needs | {"benchmark": 11, "notes": 6}
    wide = results_table.fit_columns(needs, mins, 120, one_device=True)
    assert wide == needs  # room for everything: every column as wide as its widest cell
    # 98 wide with padding: the spread goes, then the lone device, then notes wrap
    narrow = results_table.fit_columns(needs, mins, 76, one_device=True)
    assert "spread" not in narrow
    assert "device" not in narrow
    assert narrow["notes"] == 6  # "noisy," a line: as narrow as a note allows
    assert narrow["benchmark"] == 20  # then the names give the last column
    assert sum(w + 2 for w in narrow.values()) == 76
    # several devices: the device column stays; names wrap, then the type goes
    mixed = results_table.fit_columns(needs, mins, 76, one_device=False)
    assert "device" in mixed
    assert mixed["notes"] == 6
    assert sum(w + 2 for w in mixed.values()) <= 76
    assert {"benchmark", "value", "peak", "delta"} <= set(mixed)


async def test_unticked_benchmarks_have_an_empty_box(data_dir: Path) -> None:
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        chooser = app.query_one(BenchChooser)
        chooser.select(["gemm", "linear"])
        await pilot.pause()
        listing = app.query_one("#bench-list", SelectionList)
        lines = {
            listing.get_option_at_index(i).value: listing.render_line(i).text
            for i in range(listing.option_count)
        }
        assert lines["gemm"].startswith("▐✓▌ GEMM")
        assert lines["transfer"].startswith("▐ ▌ Host")
        assert lines["reduction"].startswith("▐ ▌ Add up")
        assert "X" not in "".join(line[:4] for line in lines.values())


def test_skips_are_said_once_per_reason_with_what_to_do() -> None:
    numpy = "numpy is not installed: no numpy row"
    skips = [{"benchmark": "gemm", "reason": numpy}] * 4
    skips += [{"benchmark": "linear", "reason": numpy}]
    skips += [{"benchmark": "mlp", "reason": "no GPU visible to the worker"}]
    text = result_text.skip_notice(skips)
    assert text.splitlines()[0] == f"Skipped 5 rows (gemm, linear): {numpy}."
    assert "pip install numpy" in text
    assert "GPU" not in text  # the options already say there is none
    assert result_text.skip_notice([]) == ""


async def test_a_worker_without_numpy_says_so_on_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skip = {"type": "skip", "device": "cpu", "reason": "numpy is not installed: no numpy row"}
    script = [
        environment({"device": "cpu"}),
        {"type": "progress", "index": 0, "total": 1, "benchmark": "gemm", "device": "cpu"},
        gemm_result("cpu", 64, 1e-5),
        {**skip, "benchmark": "gemm", "params": {"n": 64}},
        {"type": "done", "cancelled": False},
    ]
    app = bench_app(bench_python=install(tmp_path, script, monkeypatch))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await start_tiny_run(pilot, ["gemm"])
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=WORKER_RUN)
        text = notice(pane)
        assert "Skipped 1 row (gemm): numpy is not installed" in text
        assert "pip install numpy" in text
        assert pane.query_one("#bench-notice-box").display
        assert not pane.query_one("#bench-notice").has_class("-error")


async def test_a_loaded_run_that_skipped_numpy_rows_says_so(data_dir: Path) -> None:
    (data_dir / "results").mkdir(parents=True)
    run = json.loads((FIXTURES / RECORDED).read_text())
    run["skipped"].append(
        {"benchmark": "linear", "device": "cpu", "reason": "numpy is not installed: no numpy row"}
    )
    (data_dir / "results" / RECORDED).write_text(json.dumps(run))
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        await until(pilot, lambda: bool(pane.results), "the saved run shown")
        await pilot.pause()
        assert "Skipped 1 row (linear): numpy is not installed" in notice(pane)


async def test_what_it_measured_scrolls_by_keyboard_and_says_so(data_dir: Path) -> None:
    with_recorded_runs(data_dir)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        await until(pilot, lambda: bool(pane.results), "the saved run shown")
        await pilot.pause()
        box = pane.query_one("#bench-detail-box", ReadingBox)
        assert box.overflows  # 5 lines of room at 80×24
        # the hint follows the box's size, after the refresh that laid it out
        hinted = lambda text: lambda: box.border_subtitle == text  # noqa: E731
        await until(pilot, hinted("↓ more: Tab, then ↓"), "the hint to scroll")
        await pilot.press("tab")
        assert app.focused is box
        await until(pilot, hinted("↑↓ PgUp PgDn · Shift+Tab back"), "the keys to scroll")
        await pilot.press("end")
        await until(pilot, lambda: box.scroll_y == box.max_scroll_y, "the end of the box")
        await until(pilot, hinted("end · Shift+Tab back"), "the hint at the end")
        await pilot.press("shift+tab")
        assert app.focused is pane.query_one(ResultsTable)


# --- the ETA: per benchmark from budget and sizes, smooth, and a bar that moves -----------------


def tracker_for(plan: dict[str, Any], host: HostSpeed) -> RunTracker:
    tracker = RunTracker(plan, estimate_seconds(plan, host=host), host)
    tracker.start(0.0)
    return tracker


def replay(tracker: RunTracker, timeline: list[tuple[float, Any]], end: float) -> list[float]:
    """Feed ``(time, event)`` pairs ("result" for a result) and read the ETA every 0.5 s."""
    etas, at, now = [], 0, 0.0
    while now <= end:
        while at < len(timeline) and timeline[at][0] <= now:
            when, event = timeline[at]
            if event == "result":
                tracker.result(when)
            else:
                tracker.apply(event, when)
            at += 1
        etas.append(tracker.eta(now))
        now += 0.5
    return etas


VM = HostSpeed(cpu_gflops=332.8, cores=2, cache_bytes=480 << 20, free_bytes=23 << 30)
"""The 2-vCPU test VM the estimates were measured on."""


def timeline_for(plan: dict[str, Any], host: HostSpeed, slow: dict[str, float]) -> list[Any]:
    """Each result when the model says, times ``slow[benchmark]`` (1 when not named)."""
    events: list[Any] = [(1.0, bench_messages.EnvironmentReady({"devices": [{"device": "cpu"}]}))]
    now = 1.0
    specs = [s for s in plan["benchmarks"] if s.get("cpu") is not None]
    for index, spec in enumerate(specs):
        events.append((now, bench_messages.Progress(index, len(specs), spec["name"], "cpu")))
        for seconds in task_points(spec, "cpu", plan["budget_seconds"], host):
            now += seconds * slow.get(spec["name"], 1.0)
            events.append((now, "result"))
    return events


def test_on_schedule_the_eta_counts_down_with_the_clock() -> None:
    plan = build_plan("quick", devices=["cpu"], nice=10)
    tracker = tracker_for(plan, VM)
    timeline = timeline_for(plan, VM, {})
    end = timeline[-1][0]
    etas = replay(tracker, timeline, end)
    assert etas[0] == pytest.approx(tracker.estimate)
    assert tracker.estimate == pytest.approx(end, rel=0.05)
    for before, after in itertools.pairwise(etas):
        assert after <= before + 0.05  # never up
        assert before - after <= 1.0  # and never down faster than a second per half second


def test_a_slow_step_moves_the_eta_up_gently_and_the_bar_keeps_moving() -> None:
    plan = build_plan("quick", devices=["cpu"], nice=10)
    tracker = tracker_for(plan, VM)
    # the bandwidth arrays take three times as long to fill: 40 s more than expected
    timeline = timeline_for(plan, VM, {"bandwidth": 3.0})
    end = timeline[-1][0]
    bars: list[float] = []
    etas, at, now = [], 0, 0.0
    while now <= end:
        while at < len(timeline) and timeline[at][0] <= now:
            when, event = timeline[at]
            if event == "result":
                tracker.result(when)
            else:
                tracker.apply(event, when)
            at += 1
        etas.append(tracker.eta(now))
        bars.append(tracker.overall(now))
        now += 0.5
    for before, after in itertools.pairwise(etas):
        assert after - before < 1.0  # no jump such as 0:14 → 2:02
    assert max(etas) < tracker.estimate + 40
    for before, after in itertools.pairwise(bars):
        assert after >= before  # the bar never goes back
    # within the long set-up, with no message for ~55 s, the bar still moves
    during = [bars[i] for i in range(len(bars)) if 12 <= i * 0.5 <= 50]
    assert during[-1] - during[0] > 0.2


async def test_a_plot_with_nothing_to_draw_says_why_once(data_dir: Path) -> None:
    app = bench_app()
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await start_tiny_run(pilot, ["reduction"])
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=WORKER_RUN)
        await pilot.pause()
        # The GEMM plot is shown first; this run measured no GEMM and the machine has no GPU.
        plot = str(pane.query_one(bench_plot.BenchPlot).render())
        below = str(pane.query_one("#bench-plot-note", Static).render())
        assert "A GPU would add one line per dtype" in plot
        assert "A GPU would add" not in below


async def test_the_keys_screen_says_what_the_tables_short_headings_mean(data_dir: Path) -> None:
    with_recorded_runs(data_dir)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        await until(pilot, lambda: bool(pane.results), "the saved run shown")
        await pilot.press("question_mark")
        await pilot.pause()
        legend = next(s for s in app.screen.place if s.title == "What the Bench shows")  # type: ignore[attr-defined]
        said = {row.keys for row in legend.rows}
        headings = {str(column.label) for column in pane.query_one(ResultsTable).columns.values()}
        assert headings - {"Benchmark", "Dev", "Type", "Size", "Value"} <= said


# --- an option key says what it did where the options are out of sight ------------------------


def said(app: GpuTuiApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_option_keys_on_the_results_at_80x24_say_what_they_changed(data_dir: Path) -> None:
    app = recorded_app(data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        pane = app.query_one(BenchPane)
        chooser = pane.query_one(BenchChooser)
        assert pane.view == "table"  # the options are hidden at 80 columns
        await pilot.press("s")
        assert chooser.suite == "full"
        assert said(app)[-1] == "Suite: full · o shows the options"
        await pilot.press("plus")
        assert said(app)[-1] == f"Time per point: {chooser.budget:g} s · o shows the options"
        await pilot.press("d")  # no GPU here: cpu is all there is, and the note says so
        assert said(app)[-1].startswith("Devices: cpu (the only choice")
        app.clear_notifications()
        await pilot.press("o", "s")  # in view, the options show the change themselves
        assert chooser.suite == "comm"
        assert said(app) == []
        for _ in BENCH_BUDGET_STEPS:
            await pilot.press("minus")
        assert set(said(app)) == {f"Time per point: {chooser.budget:g} s (the least)"}


async def test_option_keys_beside_the_options_at_160x48_say_nothing(data_dir: Path) -> None:
    app = recorded_app(data_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        await pilot.press("s", "plus")
        assert said(app) == []


# --- GPUs NVML sees, a torch that sees none -----------------------------------------------------


def nvml_gpu_app(library: Any) -> GpuTuiApp:
    """The Bench pane on a machine whose NVML (the real binding, simulated driver) sees GPUs."""
    found, _ = discover_nvidia(library.binding)
    inventory = replace(fixed_inventory(demo=False), accelerators=found)
    config = AppConfig(pane="bench", discover=lambda: inventory, host="test", nvml=library.binding)
    return make_app(config)


async def test_a_cpu_build_of_torch_is_said_in_the_options_and_leaves_cpu_to_choose(
    simulated_nvml: SimulatedNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench_pane, "torch_cuda", lambda python: None)  # torch.version.cuda
    app = nvml_gpu_app(simulated_nvml("h200"))
    async with app.run_test(size=(80, 24)) as pilot:
        chooser = app.query_one(BenchChooser)
        await until(pilot, lambda: chooser.gpus == 1, "the GPU from NVML")
        await until(pilot, lambda: bool(chooser.torch_note), "torch's build read")
        assert chooser.device_choices() == ("cpu",)
        assert chooser.device == "cpu"
        settings = str(chooser.query_one("#bench-settings", Static).render())
        assert "torch here is a CPU build" in " ".join(settings.split())


async def test_a_gpu_run_whose_torch_sees_no_gpu_says_why_and_keeps_the_last_run(
    data_dir: Path, simulated_nvml: SimulatedNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CUDA build can still see no GPU (CUDA_VISIBLE_DEVICES=""): here the venv's own torch,
    said to be a CUDA build, runs the worker and finds none."""
    monkeypatch.setattr(bench_pane, "torch_cuda", lambda python: "12.4")
    with_recorded_runs(data_dir)
    app = nvml_gpu_app(simulated_nvml("h200"))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        chooser = pane.query_one(BenchChooser)
        await until(pilot, lambda: bool(pane.results) and chooser.gpus == 1, "the last run")
        shown = list(pane.results)
        chooser.device = "gpu"
        pane = await start_tiny_run(pilot, ["gemm"])
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=WORKER_RUN)
        headline = pane.query_one(RunProgress).headline
        assert headline.startswith("Done: 0 results (the worker's torch sees no GPU)")
        assert "last run shown again" in headline
        assert pane.results == shown
        assert pane.query_one(ResultsTable).row_count == len(shown)
        assert "torch saw none of the GPUs" in " ".join(notice(pane).split())
        assert chooser.device_choices() == ("cpu",)  # the options say so from now on


async def test_o_and_t_at_160x48_take_the_keyboard_to_the_options_and_the_table(
    data_dir: Path,
) -> None:
    """Wide, every view shows at once: o and t move the keyboard there, however it got away."""
    app = recorded_app(data_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        table, options = app.query_one(ResultsTable), app.query_one("#bench-list")
        assert app.query_one(BenchPane).view == "table"
        options.focus()  # as Tab or a click would
        await pilot.press("t")
        await pilot.pause()
        assert app.focused is table
        await pilot.press("o")
        await pilot.pause()
        assert app.focused is options
        table.focus()
        await pilot.press("o")
        await pilot.pause()
        assert app.focused is options
