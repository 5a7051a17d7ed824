"""Monitor drawing helpers: the fast spark and graph rows draw what the plain loops drew,
and the kept ones what the whole history draws."""

from __future__ import annotations

import random

import pytest
from rich.console import Console
from rich.control import strip_control_codes
from rich.style import Style
from rich.text import Text

from gpu_tui.core.history import Series
from gpu_tui.ui.monitor import draw
from gpu_tui.ui.monitor.draw import (
    GAP,
    NOTHING_YET,
    cells_text,
    fraction,
    graph_block,
    graph_rows,
    spark,
)
from gpu_tui.ui.monitor.history_cells import HistoryCells

_LEVELS = " ▁▂▃▄▅▆▇█"


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
    columns: list[float | None] = [None] * (width - len(recent)) + recent
    rows = []
    for row in range(height - 1, -1, -1):
        cells = []
        for value in columns:
            share = fraction(value, low, high)
            if share is None:
                cells.append((GAP if row == 0 else " ") if value is not None else " ")
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


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize(("width", "height"), [(0, 3), (1, 1), (7, 4), (60, 13), (200, 2)])
@pytest.mark.parametrize("high", [100.0, None, 0.0])
def test_fast_drawing_matches_reference(
    seed: int, width: int, height: int, high: float | None
) -> None:
    values = readings(seed, seed * 7)
    assert spark(values, width, 0.0, high) == spark_reference(values, width, 0.0, high)
    assert graph_rows(values, width, height, 0.0, high) == graph_reference(
        values, width, height, 0.0, high
    )


@pytest.mark.parametrize("seed", range(24))
def test_kept_cells_draw_what_the_whole_history_draws(seed: int) -> None:
    """Tick by tick, with shapes and limits changing and the ring wrapping, ``HistoryCells``
    (the new readings only, graph rows moved along) draws exactly what ``spark`` and
    ``graph_rows`` draw from all; a ring as wide as the graph shares its cells with wider ones."""
    rng = random.Random(seed)
    series = Series("power", "W", capacity=rng.choice([5, 7, 40, 600]), high=None)
    cells = HistoryCells()
    width, height = rng.choice([(1, 1), (7, 3), (30, 12), (90, 7)])
    for value in readings(seed, 150):
        for _ in range(rng.choice([0, 1, 1, 1, 2, 9])):  # ticks drawn late, or not at all
            series.append(value)
        if rng.random() < 0.05:
            width, height = rng.choice([(1, 1), (7, 3), (30, 12), (90, 7)])
        if rng.random() < 0.05:
            series.high = rng.choice([None, 700.0, 500.0])
        history = series.values()
        assert cells.spark(series, width) == spark(history, width, series.low, series.high)
        assert cells.graph(series, width, height) == graph_rows(
            history, width, height, series.low, series.high
        )


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
    alphabet = _LEVELS + draw._EIGHTHS + GAP + NOTHING_YET + "─" + "0123456789. ?"
    assert strip_control_codes(alphabet) == alphabet
    assert all(character.isprintable() for character in alphabet)


def test_graph_rows_follow_cells_drawn_for_a_wider_graph() -> None:
    """A graph as wide as the ring shares its cells with wider graphs of the same series,
    which move them along without moving its rows: those must not be moved along again."""
    series = Series("power", "W", capacity=7, high=100.0)
    cells = HistoryCells()
    for tick in range(40):
        series.append(float(tick * 13 % 100))
        for width in (7, 30) if tick % 3 else (30, 7):
            expected = graph_rows(series.values(), width, 4, series.low, series.high)
            assert cells.graph(series, width, 4) == expected


def test_a_graph_row_that_reads_the_same_is_the_same_text() -> None:
    """Unchanged graph rows are handed over again (the widget then skips them); a row that
    moved along is made afresh, and every row reads what ``graph_rows`` draws."""
    series = Series("busy", "%", capacity=50, high=100.0)
    cells = HistoryCells()

    def style(part: str) -> Style:
        return Style(color="green") if part == "graph" else Style(dim=True)

    def block() -> list[Text]:
        return graph_block("busy", series, (24, 4), ("100", "50", "0"), style, cells)

    for _ in range(3):
        series.append(5.0)
    first = block()
    series.append(5.0)
    second = block()
    assert second[1] is first[1]  # the top row: blank both times
    assert second[-1] is not first[-1]  # the bottom row gained a reading
    rows = graph_rows(series.values(), 20, 4, series.low, series.high)
    assert [text.plain[4:] for text in second[1:]] == rows
    assert second[-1].spans[-1].style == style("graph")
