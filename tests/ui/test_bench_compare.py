"""Bench › Compare: a saved run chosen from the list, typed as a path, or completed with Tab;
an empty line drops the baseline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Label

from gpu_tui.ui.bench.path_dialog import PathDialog, completion
from gpu_tui.ui.bench.results_table import ResultsTable
from gpu_tui.ui.bench_pane import BenchPane
from gpu_tui.ui.widgets.field import Field
from tests.polling import until
from tests.ui.test_bench_pane import EARLIER, bench_app, notice, with_recorded_runs


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


async def test_the_offered_path_is_selected_so_typing_replaces_it_and_enter_takes_it(
    private_data_dir: Path,
) -> None:
    with_recorded_runs(private_data_dir)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        field = await open_compare(pilot, pane)
        offered = field.value
        assert field.selected_text == offered  # the whole path, ready to be typed over
        await pilot.press("q", "u")
        assert field.value == "qu"  # replaced, not appended to
        await pilot.press("ctrl+u", *EARLIER[:12], "tab")  # Tab completes as before
        assert field.value == offered
        assert field.selected_text == ""  # the cursor at the end: typing goes on
        await pilot.press("escape")
        field = await open_compare(pilot, pane)
        await pilot.press("enter")  # the offered run, as it opened
        await until(pilot, lambda: pane.baseline is not None, "the baseline loaded")
        assert pane.baseline_name == EARLIER


async def test_keys_with_nothing_to_offer_say_so_in_the_hint(private_data_dir: Path) -> None:
    with_recorded_runs(private_data_dir)  # two runs: one shown, one to compare with
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_compare(pilot, app.query_one(BenchPane))
        hint = app.screen.query_one("#path-hint", Label)
        await pilot.press("down")
        assert "No older saved run" in str(hint.render())
        await pilot.press("up")
        assert "newest saved run" in str(hint.render())
        await pilot.press("z", "z", "tab")
        assert "No saved run's name" in str(hint.render())
        assert hint.size.height == 1
        await pilot.press("backspace")  # the field changed: the usual hint again
        assert "Tab completes" in str(hint.render())
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, PathDialog), "the dialog closed")
        await pilot.press("x")  # Export: no saved runs offered at all
        await until(pilot, lambda: isinstance(app.screen, PathDialog), "the export dialog")
        await pilot.press("up")
        assert "No other saved run to offer" in str(app.screen.query_one("#path-hint").render())


async def test_a_missing_file_is_said_plainly_and_a_later_compare_takes_the_notice_down(
    private_data_dir: Path, tmp_path: Path
) -> None:
    with_recorded_runs(private_data_dir)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        await open_compare(pilot, pane)
        await pilot.press(*str(tmp_path / "gone.json"), "enter")
        await until(pilot, lambda: "No such file" in notice(pane), "the missing file said")
        assert "left as it is" not in notice(pane)  # there is no file to leave
        await open_compare(pilot, pane)
        await pilot.press("enter")
        await until(pilot, lambda: pane.baseline is not None, "the baseline loaded")
        await until(pilot, lambda: notice(pane) == "", "the notice taken down")


async def test_an_export_takes_a_file_problem_down(private_data_dir: Path, tmp_path: Path) -> None:
    with_recorded_runs(private_data_dir)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        await open_compare(pilot, pane)
        await pilot.press(*str(tmp_path / "gone.json"), "enter")
        await until(pilot, lambda: "No such file" in notice(pane), "the missing file said")
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, PathDialog), "the export dialog")
        await pilot.press(*str(tmp_path / "out"), "enter")
        await until(pilot, lambda: (tmp_path / "out.csv").exists(), "the export written")
        await until(pilot, lambda: notice(pane) == "", "the notice taken down")
