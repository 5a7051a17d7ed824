"""Every word reachable, nothing cut: each pane at 80×24 and 160×48, every explained field
selected, its whole explanation read off the screen (directly, or by keyboard scrolling)."""

from __future__ import annotations

import contextlib
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import DataTable, OptionList

from gpu_tui.core.bench import result_text as rt
from gpu_tui.core.bench.store import compare
from gpu_tui.core.devices.explain import explain
from gpu_tui.core.devices.spec_rows import SpecRow
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.bench.path_dialog import PathDialog
from gpu_tui.ui.bench.results_table import ResultsTable
from gpu_tui.ui.bench_pane import BenchPane
from gpu_tui.ui.specs_pane import SpecsPane
from gpu_tui.ui.widgets.textual_internals import screen_strips
from tests.polling import until
from tests.ui.conftest import fixed_inventory

SIZES = [(80, 24), (160, 48)]
BENCH_RUNS = Path(__file__).parent / "fixtures" / "bench" / "data" / "results"
FULL_RUN = "bench-20261203T154950Z-quick.json"  # 35 CPU rows, numpy beside torch
EARLIER_RUN = "bench-20261202T181152Z-quick.json"
ELLIPSIS = "…"


def screen_lines(app: GpuTuiApp, region: Region) -> list[str]:
    """The text the terminal shows inside ``region`` (screen cells), one string per row."""
    strips = screen_strips(app.screen)
    return [strips[y].crop(region.x, region.right).text for y in range(region.y, region.bottom)]


def squeeze(text: str) -> str:
    """Text without its white space: wrapping (at any width) changes nothing else."""
    return re.sub(r"\s+", "", text)


def rows_to_walk(size: tuple[int, int], texts: list[str]) -> list[int]:
    """Which rows to select, given each row's text: every row on the narrow screen, where
    words get cut; on the wide one the first, the last and the row with the most to say (where
    a cut would show first). Walking every row at both sizes doubled the suite's slowest file."""
    assert texts, "nothing to walk"
    if size == SIZES[0]:
        return list(range(len(texts)))
    longest = max(range(len(texts)), key=lambda at: len(texts[at]))
    return sorted({0, longest, len(texts) - 1})


async def select_row(
    pilot: Pilot[Any],
    at: int,
    previous: int | None,
    move: Callable[[], None],
    detail: Callable[[], str],
) -> None:
    """Go to row ``at`` (by ↓ from the row just above it, as a person would, else directly) and
    wait until ``detail()``, what the row's explanation holds, has changed with it."""
    if previous is None:
        await pilot.pause()
        return
    before = detail()
    if at == previous + 1:
        await pilot.press("down")
    else:
        move()
    await until(pilot, lambda: detail() != before, f"the explanation of row {at}")
    await pilot.pause()


def scroller_of(widget: Widget) -> ScrollableContainer | None:
    node: Any = widget
    while node is not None and not isinstance(node, ScrollableContainer):
        node = node.parent
    return node if isinstance(node, ScrollableContainer) else None


async def read(pilot: Pilot[Any], widget: Widget, *, by_keyboard: bool = True) -> str:
    """Everything a person can read of ``widget``: what shows, and when it lives in a box that
    scrolls, what Tab then Page Down bring into view (then Shift+Tab back where they were).

    ``by_keyboard=False`` scrolls the box directly: for the same box again, once the keyboard
    has been shown to reach it (each key press costs a whole refresh of the app)."""
    app = pilot.app
    box = scroller_of(widget)
    if box is None or box.max_scroll_y == 0:
        return "\n".join(screen_lines(app, (box or widget).scrollable_content_region))
    if not by_keyboard:
        return await read_by_scrolling(pilot, box)
    presses = 0
    while app.focused is not box:
        assert presses < 12, f"Tab never reaches {box!r}, whose text is taller than the box"
        await pilot.press("tab")
        presses += 1
    await pilot.press("home")
    seen: dict[int, str] = {}
    while True:
        region = box.scrollable_content_region
        for row, line in enumerate(screen_lines(app, region)):
            seen[round(box.scroll_y) + row] = line
        if box.scroll_y >= box.max_scroll_y:
            break
        await pilot.press("pagedown")
    await pilot.press(*["shift+tab"] * presses)
    return "\n".join(seen[row] for row in sorted(seen))


@dataclass
class DetailReads:
    """Reading each row's explanation as a table is walked. Scrolled through to its end: by
    keyboard for the first two rows, directly for the last row and for every explanation
    longer than all read so far. A shorter one than that must show its own text, uncut, in
    what the box shows (each scroll costs a whole refresh of the app, and scrolling a shorter
    text in the same box to its end proves nothing new)."""

    last: int
    longest_read: int = 0

    async def readable(self, pilot: Pilot[Any], detail: Widget, expected: str, at: int) -> bool:
        whole = squeeze(expected)
        if at < 2 or at == self.last or len(whole) > self.longest_read:
            self.longest_read = max(self.longest_read, len(whole))
            return whole in squeeze(await read(pilot, detail, by_keyboard=at < 2))
        box = scroller_of(detail) or detail
        shown = squeeze("\n".join(screen_lines(pilot.app, box.scrollable_content_region)))
        return bool(shown) and shown in whole


async def read_by_scrolling(pilot: Pilot[Any], box: ScrollableContainer) -> str:
    seen: dict[int, str] = {}
    box.scroll_to(y=0, animate=False, immediate=True)
    await pilot.pause()
    while True:
        region = box.scrollable_content_region
        for row, line in enumerate(screen_lines(pilot.app, region)):
            seen[round(box.scroll_y) + row] = line
        if box.scroll_y >= box.max_scroll_y:
            break
        box.scroll_to(y=box.scroll_y + region.height, animate=False, immediate=True)
        await pilot.pause()
    return "\n".join(seen[row] for row in sorted(seen))


def assert_readable(expected: str, seen: str, where: str) -> None:
    problem = f"{where}: cut or unreachable\n{expected}\n---\n{seen}"
    assert squeeze(expected) in squeeze(seen), problem


def spec_explanation(row: SpecRow) -> str:
    parts = [f"{row.label}: {row.value}", row.note, explain(row.key)]
    return "\n".join(part for part in parts if part)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_specs_every_field_and_explanation_can_be_read(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    app = app_factory(demo=True)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        pane = app.query_one(SpecsPane)
        table = app.query_one("#spec-table", DataTable)
        text = app.query_one("#spec-explain")
        assert isinstance(app.focused, OptionList)
        for number in range(len(pane.sections)):
            if number:
                await pilot.press("down")
            if number == len(pane.sections) - 1:  # the health check runs when first shown
                await until(pilot, lambda: pane.health is not None, "the health check done")
            section = pane.sections[number]
            await pilot.press("enter")  # into the fields
            assert app.focused is table
            texts = [spec_explanation(row) for row in section.rows]
            previous: int | None = None
            for at in rows_to_walk(size, texts):
                spec_row = section.rows[at]
                await select_row(
                    pilot,
                    at,
                    previous,
                    lambda at=at: table.move_cursor(row=at),
                    lambda: plain(text),
                )
                previous = at
                where = f"{size} {section.title} / {spec_row.label}"
                shown = "\n".join(screen_lines(app, table.scrollable_content_region))
                assert ELLIPSIS not in shown, where
                assert_readable(f"{spec_row.label}{spec_row.value}", shown, where)
                seen = await read(pilot, text, by_keyboard=number == 0 and at < 2)
                assert_readable(spec_explanation(spec_row), seen, where)
            await pilot.press("shift+tab")  # back to the devices
            assert isinstance(app.focused, OptionList)


def bench_app(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> GpuTuiApp:
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(data_dir))
    (data_dir / "results").mkdir(parents=True)
    for name in (FULL_RUN, EARLIER_RUN):
        shutil.copy(BENCH_RUNS / name, data_dir / "results" / name)
    inventory = fixed_inventory(demo=False)
    return make_app(AppConfig(pane="bench", discover=lambda: inventory, host="test"))


async def check_every_bench_row(pilot: Pilot[Any], pane: BenchPane, size: tuple[int, int]) -> None:
    table = pane.query_one(ResultsTable)
    detail = pane.query_one("#bench-detail")
    table.move_cursor(row=0)
    assert pilot.app.focused is table
    baseline = pane.baseline
    deltas = compare(table.results, baseline) if baseline else {}
    texts = ["\n".join(rt.explain(r, deltas.get(r.key))) for r in table.results]
    previous: int | None = None
    walk = rows_to_walk(size, texts)
    details = DetailReads(last=walk[-1])
    for at in walk:
        result = table.results[at]
        await select_row(
            pilot, at, previous, lambda at=at: table.move_cursor(row=at), lambda: plain(detail)
        )
        previous = at
        where = f"{size} row {at} {rt.name_cell(result)}"
        shown = "\n".join(screen_lines(pilot.app, table.scrollable_content_region))
        assert ELLIPSIS not in shown, where
        words = shown.split()
        delta = compare([result], pane.baseline).get(result.key) if pane.baseline else None
        cells = [rt.name_cell(result), rt.value_cell(result), rt.size_cell(result)]
        if table.deltas is not None:
            cells.append(rt.delta_cell(delta))
        for cell in cells:
            for word in cell.split():
                assert word in words, f"{where}: {word!r} of {cell!r} is not on screen"
        notes = re.split(r"[\s,]+", shown)  # notes read "few,load", or wrap after a comma
        for note in filter(None, rt.notes_cell(result).split(",")):
            assert note in notes, f"{where}: note {note!r} is not on screen"
        expected = "\n".join(rt.explain(result, delta))
        assert await details.readable(pilot, detail, expected, at), f"{where}: detail cut"


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_bench_every_row_and_what_it_measured_can_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    app = bench_app(tmp_path / "data", monkeypatch)
    async with app.run_test(size=size) as pilot:
        pane = app.query_one(BenchPane)
        await until(pilot, lambda: len(pane.results) == 35, "the 35 saved results")
        await pilot.pause()
        await check_every_bench_row(pilot, pane, size)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_bench_compared_with_a_baseline_shows_the_vs_base_column_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    app = bench_app(tmp_path / "data", monkeypatch)
    async with app.run_test(size=size) as pilot:
        pane = app.query_one(BenchPane)
        await until(pilot, lambda: len(pane.results) == 35, "the 35 saved results")
        await pilot.pause()
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, PathDialog), "the run picker")
        await pilot.press("enter")
        await until(pilot, lambda: pane.baseline is not None, "the baseline loaded")
        app.clear_notifications()  # the "Comparing with …" toast sits over the detail a while
        await pilot.pause()
        table = pane.query_one(ResultsTable)
        assert table.max_scroll_x == 0
        header = screen_lines(app, table.scrollable_content_region)[0]
        assert "vs base" in header
        await check_every_bench_row(pilot, pane, size)


# --- Guide and Kitchen: read only (other panes' own tests own their layout) ------------------


def plain(widget: Widget) -> str:
    """The whole text a Static holds (what it would show with room enough)."""
    return str(widget.render())


async def check_table_rows_and_detail(
    pilot: Pilot[Any], table: DataTable[Any], detail: Widget, size: tuple[int, int], where: str
) -> list[str]:
    """Walk every row of ``table``: what was cut (the first few), for the caller to assert.
    Cut means a cell ends in "…", the highlighted row's name or a header is not whole on
    screen (a name may wrap), the table scrolls sideways, or the detail cannot be read."""
    problems: list[str] = []
    table.focus()
    table.move_cursor(row=0)
    if table.max_scroll_x > table.cell_padding:  # the last cell's blank padding may fall off
        problems.append(f"{where}: the table is wider than the screen")
    texts = [" ".join(map(str, table.get_row_at(at))) for at in range(table.row_count)]
    previous: int | None = None
    walk = rows_to_walk(size, texts)
    details = DetailReads(last=walk[-1])
    for at in walk:
        if len(problems) >= 3:
            break
        await select_row(
            pilot, at, previous, lambda at=at: table.move_cursor(row=at), lambda: plain(detail)
        )
        previous = at
        lines = screen_lines(pilot.app, table.scrollable_content_region)
        shown = "\n".join(lines)
        if ELLIPSIS in shown:
            cut = next(line for line in shown.splitlines() if ELLIPSIS in line)
            problems.append(f"{where} row {at}: table cell cut: {cut.strip()}")
        name = str(table.get_row_at(at)[0])
        if not set(name.split()) <= set(shown.split()):
            problems.append(f"{where} row {at}: name not whole on screen: {name!r}")
        # A heading may take two lines (header_height): each of its lines on the screen's.
        headers = [str(column.label).split("\n") for column in table.ordered_columns]
        if not all(part in lines[i] for header in headers for i, part in enumerate(header)):
            problems.append(f"{where}: a header is cut: {lines[0].strip()}")
        if not await details.readable(pilot, detail, plain(detail), at):
            problems.append(f"{where} row {at}: detail cut: {plain(detail)[:60]}…")
    return problems


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_guide_catalog_rows_and_their_detail_can_be_read(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    app = app_factory(demo=True, pane="guide")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table = app.query_one("#guide-table", DataTable)
        problems = await check_table_rows_and_detail(
            pilot, table, app.query_one("#guide-detail"), size, f"{size} Guide catalog"
        )
        assert not problems, "\n".join(problems)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_guide_fit_rows_and_their_detail_can_be_read(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    app = app_factory(demo=True, pane="guide")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("f", "escape")  # the Fit section, from its form to its table
        await pilot.pause()
        table = app.query_one("#fit-table", DataTable)
        problems = await check_table_rows_and_detail(
            pilot, table, app.query_one("#fit-detail"), size, f"{size} Guide fit"
        )
        assert not problems, "\n".join(problems)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_guide_every_metric_explanation_can_be_read(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    app = app_factory(demo=True, pane="guide")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        metrics = app.query_one("#metrics-list", OptionList)
        text = app.query_one("#metrics-text")
        metrics.focus()
        for at in range(metrics.option_count):
            if at:
                await pilot.press("down")
            await pilot.pause()
            assert_readable(plain(text), await read(pilot, text), f"{size} metric {at}")


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_guide_fit_summary_and_every_cost_source_can_be_read(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    from gpu_tui.ui.guide.cost_view import CLOUD_FIELDS, NODE_FIELDS

    app = app_factory(demo=True, pane="guide")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        summary = app.query_one("#fit-summary")
        shown = "\n".join(screen_lines(app, summary.region))
        assert_readable(plain(summary), shown, f"{size} fit summary")
        assert "nothing reserved for activations or overhead" in shown
        await pilot.press("escape", "o")
        await pilot.pause()
        source = app.query_one("#cost-source")

        def shown() -> str:
            return "\n".join(screen_lines(app, source.region))

        for field in (*CLOUD_FIELDS, *NODE_FIELDS):
            app.query_one(f"#cost-{field.id}").focus()
            # The box is laid out again for the new text (a frame later on a loaded machine).
            with contextlib.suppress(AssertionError):
                await until(
                    pilot,
                    lambda: squeeze(plain(source)) in squeeze(shown()),
                    "the source laid out",
                    timeout=5,
                )
            assert_readable(plain(source), shown(), f"{size} cost source of {field.label}")


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_guide_every_bar_label_can_be_read(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    from gpu_tui.ui.widgets.guide_bars import GuideBars

    app = app_factory(demo=True, pane="guide")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        charts = list(app.query(GuideBars))
        assert charts, f"{size}: the guide must show its bar charts"
        seen = (await read(pilot, charts[0])).split()
        for chart in charts:
            assert chart.chart is not None
            assert chart.chart.bars, f"{size} {chart.chart.title}: a chart with no bars"
            for bar in chart.chart.bars:
                assert ELLIPSIS not in " ".join(seen)
                for word in bar.label.split():
                    assert word in seen, f"{size} {chart.chart.title}: {bar.label!r} is cut"


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_kitchen_every_story_and_result_can_be_read(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    from gpu_tui.core.kitchen.scenarios import SCENARIOS

    app = app_factory(demo=True, pane="kitchen")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for at, name in enumerate(SCENARIOS):
            if at:
                await pilot.press("s")
            await pilot.press("e")  # straight to the result
            await pilot.pause()
            for part in ("#kitchen-story", "#result-text"):
                widget = app.query_one(part)
                if widget.display:
                    assert_readable(plain(widget), await read(pilot, widget), f"{size} {name}")
