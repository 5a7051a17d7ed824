"""Sparklines and graphs of live history, kept from one tick to the next."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpu_tui.core.history import Series
from gpu_tui.ui.monitor.draw import NOTHING_YET, cells_text, graph_columns, rows_of, spark_cells

if TYPE_CHECKING:
    from rich.style import Style
    from rich.text import Text

MAX_KEPT = 64
"""Shapes kept per widget before starting afresh (a resize or a new limit adds new shapes)."""
MAX_ROW_TEXTS = 512
"""Graph rows kept as Text per widget before starting afresh (a few big graphs' worth)."""


@dataclass
class _Kept:
    """What one series was drawn with last tick, in one shape."""

    appended: int
    """Readings the series had appended in all when ``cells`` were drawn."""
    cells: list[str]
    """One cell (a graph column, or a sparkline cell) per reading held, oldest first."""
    rows: list[str] | None = None
    """The graph's rows, top first, read across the cells as they were at ``rows_at``."""
    rows_at: int = 0
    """``appended`` when ``rows`` were drawn."""


class HistoryCells:
    """The cells each series was drawn with last tick, by shape and scale.

    A tick adds one reading to every series and moves each graph along by one column, so the
    cells already drawn are reused and only the new readings are worked out; a graph's rows
    move along too, each losing its oldest cells and gaining the new ones, instead of being
    read across every column again. A big screen draws some forty graph rows a tick. Each
    widget keeps its own; the result is what ``spark`` and ``graph_rows`` draw from the whole
    history.
    """

    def __init__(self) -> None:
        self._kept: dict[tuple[Series, int, int, float, float | None], _Kept] = {}
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

    def spark(self, series: Series, width: int) -> str:
        """The newest ``width`` readings as a sparkline (see ``draw.spark``)."""
        return "".join(self._cells(series, width, 0))

    def graph(self, series: Series, width: int, height: int) -> list[str]:
        """The newest ``width`` readings as graph rows, top first (see ``draw.graph_rows``)."""
        if width <= 0 or width > series.capacity:  # cells with a blank margin: read afresh
            return rows_of(self._cells(series, width, height), height)
        kept = self._update(series, width, height)
        rows, new = kept.rows, kept.appended - kept.rows_at  # one cell per reading since
        if rows is None or not 0 <= new < width:
            rows = rows_of(kept.cells, height)
        elif new:
            added = rows_of(kept.cells[-new:], height)
            rows = [row[new:] + more for row, more in zip(rows, added, strict=True)]
        kept.rows, kept.rows_at = rows, kept.appended
        return rows

    def _cells(self, series: Series, width: int, height: int) -> list[str]:
        """One cell per reading (a column ``height`` tall; 0: a sparkline), oldest first."""
        if width <= 0:
            return []
        cells = self._update(series, width, height).cells
        held = len(cells)  # older readings have left the ring: blank
        return cells if held == width else [NOTHING_YET * max(1, height)] * (width - held) + cells

    def _update(self, series: Series, width: int, height: int) -> _Kept:
        """The series' cells, brought up to date."""
        held = min(width, series.capacity)
        key = (series, held, height, series.low, series.high)
        kept = self._kept.get(key)
        if kept is None:
            if len(self._kept) >= MAX_KEPT:
                self._kept.clear()
            kept = self._kept[key] = _Kept(0, [NOTHING_YET * max(1, height)] * held)
        seen = kept.appended
        appended, fresh = series.newer(seen, held)
        if appended == seen:
            return kept
        if height:
            new = graph_columns(fresh, height, series.low, series.high)
        else:
            new = spark_cells(fresh, series.low, series.high)
        kept.cells = (kept.cells + new)[-held:]
        kept.appended = appended
        return kept
