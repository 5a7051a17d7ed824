"""Sparklines and graphs of live history over a zoom window, kept from one tick to the next."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text

from gpu_tui.core.monitor.history import Series
from gpu_tui.core.monitor.history_window import Columns, axis_row
from gpu_tui.ui.monitor.draw import (
    NOTHING_YET,
    cells_text,
    graph_columns,
    rows_of,
    scale_labels,
    spark_cells,
)

if TYPE_CHECKING:
    from rich.style import Style

MAX_KEPT = 64
"""Shapes kept per widget before starting afresh (a resize, a zoom or a new limit adds some)."""
MAX_ROW_TEXTS = 512
"""Graph rows kept as Text per widget before starting afresh (a few big graphs' worth)."""


@dataclass
class _Kept:
    """One series drawn in one shape: its columns, and the cells and rows drawn from them."""

    columns: Columns
    cells: list[str]
    """One cell (a graph column top first, or a sparkline cell) per column, oldest first."""
    rows: list[str] | None = None
    """The graph's rows, top first, read across the cells."""


class HistoryCells:
    """The cells each series was drawn with last tick, by window, shape and scale.

    A tick changes the newest column of a graph or adds one and moves the rest along
    (``Columns.update`` says which), so only those cells are worked out again and a graph's
    rows move along too, each losing its oldest cells and gaining the new ones, instead of
    being read across every column again. A big screen draws some forty graph rows a tick. Each
    widget keeps its own; the result is what the whole history draws (``draw.graph_columns``
    over freshly built ``Columns``).
    """

    def __init__(self) -> None:
        self._kept: dict[tuple[Series, int, int, int, float, float | None], _Kept] = {}
        self._row_texts: dict[tuple[str, str, Style, Style], Text] = {}

    def row_text(self, label: str, row: str, label_style: Style, graph_style: Style) -> Text:
        """A graph row after its scale label, as Text: the one made last time for the same row
        when there was one. Most rows of a steady graph (an idle host, a flat memory line) read
        the same tick after tick; the widget then finds them unchanged without comparing them.
        These Texts are shared between ticks, so they must not be changed once made."""
        key = (label, row, label_style, graph_style)
        text = self._row_texts.get(key)
        if text is None:
            if len(self._row_texts) >= MAX_ROW_TEXTS:
                self._row_texts.clear()
            text = self._row_texts[key] = cells_text((label, label_style), (row, graph_style))
        return text

    def axis_text(self, window: int, indent: int, width: int, style: Style) -> Text:
        """The time axis under a graph ``width`` columns wide, after ``indent`` blank cells
        (the scale column); the same Text while the window and width stay the same."""
        return self.row_text(" " * indent, axis_row(window, width), style, style)

    def spark(self, series: Series, window: int, width: int) -> str:
        """The last ``window`` ms of ``series`` as a sparkline ``width`` cells wide, each cell
        at its column's highest reading."""
        if width <= 0:
            return ""
        return "".join(self._update(series, window, width, 0).cells)

    def graph(self, series: Series, window: int, width: int, height: int) -> list[str]:
        """The last ``window`` ms of ``series`` as graph rows, top first (see
        ``draw.graph_columns``)."""
        if width <= 0:
            return [""] * height
        return self._update(series, window, width, height).rows or []

    def _update(self, series: Series, window: int, width: int, height: int) -> _Kept:
        key = (series, window, width, height, series.low, series.high)
        kept = self._kept.get(key)
        if kept is None:
            if len(self._kept) >= MAX_KEPT:
                self._kept.clear()
            blank = NOTHING_YET * max(1, height)
            kept = self._kept[key] = _Kept(Columns(series, window, width), [blank] * width)
            if height:
                kept.rows = rows_of(kept.cells, height)
        columns = kept.columns
        moved, changed = columns.update()
        if not changed:
            return kept
        lows, highs = columns.lows[-changed:], columns.highs[-changed:]
        if height:
            fresh = graph_columns(lows, highs, height, series.low, series.high)
        else:
            fresh = spark_cells(highs, series.low, series.high)
        keep = width - changed
        kept.cells = kept.cells[moved : moved + keep] + fresh
        if height:
            rows = kept.rows
            if rows is None or not keep:
                kept.rows = rows_of(kept.cells, height)
            else:
                added = rows_of(fresh, height)
                kept.rows = [
                    row[moved : moved + keep] + more for row, more in zip(rows, added, strict=True)
                ]
        return kept


def graph_block(
    caption: str,
    series: Series,
    size: tuple[int, int],
    labels: tuple[str, str, str],
    style: Callable[[str], Style],
    cells: HistoryCells,
    window: int,
    *,
    axis: bool = True,
) -> list[Text]:
    """A caption row, a labelled graph of ``series`` over the last ``window`` ms, ``size``
    (width, height) cells, on the series' own fixed scale, and the time axis under it unless
    ``axis`` is False (a graph with another of the same width below); ``cells`` keeps the
    graph's columns from the last tick.

    ``style(part)`` gives the widget's ``label`` and ``graph`` styles (its component classes).
    """
    width, height = size
    scale = scale_labels(labels, height)
    label_width = max(len(label) for label in labels) + 1
    graph_width = max(1, width - label_width)
    rows = cells.graph(series, window, graph_width, height)
    label_style, graph_style = style("label"), style("graph")
    lines = [Text(caption, style=label_style)] + [
        cells.row_text(label, row, label_style, graph_style)
        for label, row in zip(scale, rows, strict=True)
    ]
    if axis:
        lines.append(cells.axis_text(window, label_width, graph_width, label_style))
    return lines
