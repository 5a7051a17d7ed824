"""Monitor drawing helpers: the fast spark and graph rows draw what the plain loops drew,
and the kept ones what the whole history draws."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.control import strip_control_codes
from rich.style import Style
from rich.text import Text

from gpu_tui.core.monitor.history import Series
from gpu_tui.core.monitor.history_window import Columns
from gpu_tui.ui.monitor import draw
from gpu_tui.ui.monitor.draw import (
    BAND,
    GAP,
    NOTHING_YET,
    cells_text,
    fraction,
    graph_columns,
    graph_rows,
    rows_of,
    spark,
    spark_cells,
)
from gpu_tui.ui.monitor.history_cells import HistoryCells, graph_block

_LEVELS = " ▁▂▃▄▅▆▇█"
BLANK = object()
"""A graph column before the first reading."""


def spark_reference(values: list[float | None], width: int, low: float, high: float | None) -> str:
    cells = []
    for value in values[-width:] if width > 0 else ():
        share = fraction(value, low, high)
        cells.append(GAP if share is None else _LEVELS[1 + min(7, int(share * 8))])
    return "".join(cells).rjust(max(0, width))


def graph_reference(
    values: list[float | None], width: int, height: int, low: float, high: float | None
) -> list[str]:
    recent = list(values[-width:]) if width > 0 else []
    columns: list[object] = [BLANK] * (width - len(recent)) + recent
    rows = []
    for row in range(height - 1, -1, -1):
        cells = []
        for value in columns:
            if value is BLANK:
                cells.append(" ")
                continue
            share = fraction(value, low, high)  # type: ignore[arg-type]
            if share is None:
                cells.append(GAP if row == 0 else " ")
            else:
                eighths = max(1, round(share * height * 8))
                cells.append(_LEVELS[max(0, min(8, eighths - row * 8))])
        rows.append("".join(cells))
    return rows


def readings(seed: int, count: int) -> list[float | None]:
    rng = random.Random(seed)
    choices: list[float | None] = [None, float("nan"), -5.0, 0.0, 50.0, 100.0, 130.0]
    return [
        rng.choice(choices) if rng.random() < 0.2 else rng.uniform(0, 100) for _ in range(count)
    ]


READING = st.one_of(
    st.floats(0, 100),
    st.sampled_from([None, math.nan, -5.0, 0.0, 50.0, 100.0, 130.0]),
)
"""Mostly in the range; gaps, NaN, and values past either end."""


@given(
    values=st.lists(READING, max_size=140),
    shape=st.sampled_from([(0, 3), (1, 1), (7, 4), (60, 13), (200, 2)]),
    high=st.sampled_from([100.0, None, 0.0]),
)
@settings(max_examples=300, deadline=None)
def test_fast_drawing_matches_reference(
    values: list[float | None], shape: tuple[int, int], high: float | None
) -> None:
    width, height = shape
    assert spark(values, width, 0.0, high) == spark_reference(values, width, 0.0, high)
    assert graph_rows(values, width, height, 0.0, high) == graph_reference(
        values, width, height, 0.0, high
    )


def drawn_afresh(series: Series, window: int, width: int, height: int) -> tuple[str, list[str]]:
    """The sparkline and graph rows of freshly built columns: the whole history read again."""
    columns = Columns(series, window, width)
    columns.update()
    spark_row = "".join(spark_cells(columns.highs, series.low, series.high))
    cells = graph_columns(columns.lows, columns.highs, height, series.low, series.high)
    return spark_row, rows_of(cells, height)


@pytest.mark.parametrize("seed", range(24))
def test_kept_cells_draw_what_the_whole_history_draws(seed: int) -> None:
    """Tick by tick, with windows, shapes and limits changing, ``HistoryCells`` (the new
    readings only, graph rows moved along) draws exactly what the whole history draws."""
    rng = random.Random(seed)
    series = Series("power", "W", capacity=2000, high=None, tiers=())
    cells = HistoryCells()
    shapes = [(1, 1), (7, 3), (30, 12), (90, 7)]
    windows = [5_000, 60_000, 300_000]
    (width, height), window = rng.choice(shapes), rng.choice(windows)
    values = readings(seed, 150)
    assert values, "there must be readings to draw"
    for value in values:
        for _ in range(rng.choice([0, 1, 1, 1, 2, 9])):  # ticks drawn late, or not at all
            series.append(value)
        if rng.random() < 0.05:
            width, height = rng.choice(shapes)
        if rng.random() < 0.05:
            window = rng.choice(windows)
        if rng.random() < 0.05:
            series.high = rng.choice([None, 700.0, 500.0])
        spark_row, rows = drawn_afresh(series, window, width, height)
        assert cells.spark(series, window, width) == spark_row
        assert cells.graph(series, window, width, height) == rows


def test_one_reading_a_column_draws_what_graph_rows_draws() -> None:
    """A window as wide as the graph at one reading a second: a column per reading."""
    series = Series("busy", "%", capacity=100, high=100.0)
    cells = HistoryCells()
    ticks = 50
    for tick in range(ticks):
        series.append(None if tick % 11 == 0 else float(tick * 13 % 100))
        assert cells.graph(series, 30_000, 30, 4) == graph_rows(
            series.values(), 30, 4, series.low, series.high
        )
    assert len(series) == ticks, "every reading must have been drawn"


@pytest.mark.parametrize(
    ("low", "high", "column"),
    [
        (50.0, 50.0, "  ██"),  # one reading: solid to it
        (10.0, 90.0, "▅░░█"),  # it ranged: solid to the lowest, shaded to the highest
        (0.0, 100.0, "█░░░"),  # from nothing to everything: a solid peak on a shaded range
        (45.0, 55.0, " ▂██"),  # a range within a cell shades nothing
        (0.0, 0.0, "   ▁"),  # zero still draws a baseline
        (math.nan, math.nan, "   " + GAP),  # every reading unknown: a gap
        (None, None, "    "),  # before the first reading: nothing
    ],
)
def test_a_column_is_solid_to_its_lowest_reading_and_shaded_to_its_highest(
    low: float | None, high: float | None, column: str
) -> None:
    (drawn,) = graph_columns([low], [high], 4, 0.0, 100.0)
    assert drawn == column


@pytest.mark.parametrize(
    "parts",
    [
        (),
        ((" 50 ", Style(color="grey50")), ("▁▂▃█" * 40, Style(color="green"))),
        (("", Style(bold=True)), ("█████▍", Style(color="red")), ("───", Style.null())),
        ((GAP * 6, Style(dim=True)),),
    ],
)
def test_cells_text_is_what_rich_assembles(parts: tuple[tuple[str, Style], ...]) -> None:
    console = Console(width=200, color_system="truecolor")
    made, assembled = cells_text(*parts), Text.assemble(*parts)
    assert made.plain == assembled.plain
    assert len(made) == len(assembled)
    assert made.cell_len == assembled.cell_len
    assert list(made.render(console)) == list(assembled.render(console))
    # It behaves as a Text afterwards too: appended to, cut, appended to others.
    for text in (made, assembled):
        text.append(" 12%", style="bold")
        text.truncate(30, overflow="ellipsis")
    assert list(made.render(console)) == list(assembled.render(console))
    assert list(Text("x").append_text(made).render(console)) == list(
        Text("x").append_text(assembled).render(console)
    )


def test_drawn_cells_hold_no_control_codes() -> None:
    """``cells_text`` skips Rich's scan for control codes: only the drawing alphabets go in."""
    alphabet = _LEVELS + draw._EIGHTHS + GAP + BAND + NOTHING_YET + "─" + "0123456789. ?"
    alphabet += "-smhd now"  # the time axis
    assert strip_control_codes(alphabet) == alphabet
    assert all(character.isprintable() for character in alphabet)


def test_a_graph_row_that_reads_the_same_is_the_same_text() -> None:
    """Unchanged graph rows are handed over again (the widget then skips them); a row that
    moved along is made afresh, and every row reads what ``graph_rows`` draws."""
    series = Series("busy", "%", capacity=50, high=100.0)
    cells = HistoryCells()

    def style(part: str) -> Style:
        return Style(color="green") if part == "graph" else Style(dim=True)

    def block() -> list[Text]:
        return graph_block("busy", series, (24, 4), ("100", "50", "0"), style, cells, 20_000)

    for _ in range(3):
        series.append(5.0)
    first = block()
    series.append(5.0)
    second = block()
    assert second[1] is first[1]  # the top row: blank both times
    assert second[-2] is not first[-2]  # the bottom row gained a reading
    assert second[-1] is first[-1]  # the time axis stays
    rows = graph_rows(series.values(), 20, 4, series.low, series.high)
    assert [text.plain[4:] for text in second[1:-1]] == rows
    assert second[-2].spans[-1].style == style("graph")
    assert second[-1].plain == "    -20s      -10s   now"
