"""Bench › Compare: a saved run chosen from the list, typed as a path, or completed with Tab;
an empty line drops the baseline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from gpu_tui.ui.bench.path_dialog import PathDialog, completion
from gpu_tui.ui.bench.results_table import ResultsTable
from gpu_tui.ui.bench_pane import BenchPane
from gpu_tui.ui.widgets.field import Field
from tests.polling import until
from tests.ui.test_bench_pane import EARLIER, bench_app, with_recorded_runs


async def open_compare(pilot: Pilot[Any], pane: BenchPane) -> Field:
    app = pilot.app
    await until(pilot, lambda: bool(pane.results), "the saved run shown")
    # the pane's keys reach it once it has the focus (given after its first refresh)
    focused = lambda: app.focused is not None and pane in app.focused.ancestors_with_self  # noqa: E731
    await until(pilot, focused, "the keyboard in the Bench pane")
    await pilot.press("c")  # the runs offered are read (checked) in a thread first
    await until(pilot, lambda: isinstance(app.screen, PathDialog), "the run picker", timeout=10)
    field = app.screen.query_one("#path-input", Field)
    await until(pilot, lambda: app.focused is field, "the field focused")
    return field


async def test_a_typed_path_of_a_saved_run_is_compared_with(private_data_dir: Path) -> None:
    with_recorded_runs(private_data_dir)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        field = await open_compare(pilot, pane)
        assert field.value.endswith(EARLIER)  # the newest other run, to accept with Enter
        await pilot.press("ctrl+u")  # clear it, and type the path, digits and q included
        path = str(private_data_dir / "results" / EARLIER)
        assert "q" in path
        assert any(c.isdigit() for c in path)
        await pilot.press(*path)
        assert field.value == path
        await pilot.press("enter")
        await until(pilot, lambda: pane.baseline is not None, "the baseline loaded")
        assert app.return_code is None  # still running: no q was taken as quit
        assert pane.query_one(ResultsTable).deltas


async def test_tab_completes_a_saved_run_and_an_empty_line_drops_the_baseline(
    private_data_dir: Path,
) -> None:
    with_recorded_runs(private_data_dir)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        field = await open_compare(pilot, pane)
        await pilot.press("ctrl+u", *EARLIER[:12], "tab")
        assert field.value == str(private_data_dir / "results" / EARLIER)
        await pilot.press("enter")
        await until(pilot, lambda: pane.baseline is not None, "the baseline loaded")
        field = await open_compare(pilot, pane)
        await pilot.press("ctrl+u", "enter")
        await until(pilot, lambda: pane.baseline is None, "the baseline dropped")


def test_completion_prefers_a_name_that_starts_with_what_was_typed() -> None:
    runs = [Path("/r/bench-20261203-quick.json"), Path("/r/bench-20261202-full.json")]
    assert completion("bench-2026120", runs) == runs[0]
    assert completion("full", runs) == runs[1]  # held, not started with
    assert completion("/r/bench-20261202", runs) == runs[1]
    assert completion("comm", runs) is None
    assert completion("", runs) is None


async def test_the_dialog_hint_fits_one_line_at_80x24_and_the_border_says_how_to_close(
    private_data_dir: Path,
) -> None:
    with_recorded_runs(private_data_dir)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_compare(pilot, app.query_one(BenchPane))
        hint = app.screen.query_one("#path-hint")
        assert hint.size.height == 1  # no word left alone on a second line
        assert "Tab completes" in str(hint.render())
        assert app.screen.query_one("#path-dialog").border_subtitle == "esc closes"
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, PathDialog), "the dialog closed")


async def test_a_late_tab_event_leaves_an_open_dialog_its_focus(private_data_dir: Path) -> None:
    """A pane activated while a dialog is open (a tab event handled after the dialog opened,
    as on a busy machine) moves the home screen's focus, never the dialog's."""
    with_recorded_runs(private_data_dir)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        field = await open_compare(pilot, app.query_one(BenchPane))
        await app.activate("bench")
        await pilot.pause()
        assert app.focused is field
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, PathDialog), "the dialog closed")
