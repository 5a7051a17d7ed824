"""Sparklines and graphs of live history, kept from one tick to the next."""

from __future__ import annotations

from gpu_tui.core.history import Series
from gpu_tui.ui.monitor.draw import NOTHING_YET, graph_columns, rows_of, spark_cells

MAX_KEPT = 64
"""Shapes kept per widget before starting afresh (a resize or a new limit adds new shapes)."""


class HistoryCells:
    """The cells each series was drawn with last tick, by shape and scale.

    A tick adds one reading to every series and moves each graph along by one column, so the
    cells already drawn are reused and only the new readings are worked out: a big screen draws
    some forty graph rows a tick. Each widget keeps its own; the result is what ``spark`` and
    ``graph_rows`` draw from the whole history.
    """

    def __init__(self) -> None:
        self._kept: dict[tuple[Series, int, int, float, float | None], tuple[int, list[str]]] = {}

    def spark(self, series: Series, width: int) -> str:
        """The newest ``width`` readings as a sparkline (see ``draw.spark``)."""
        return "".join(self._cells(series, width, 0))

    def graph(self, series: Series, width: int, height: int) -> list[str]:
        """The newest ``width`` readings as graph rows, top first (see ``draw.graph_rows``)."""
        return rows_of(self._cells(series, width, height), height)

    def _cells(self, series: Series, width: int, height: int) -> list[str]:
        """One cell per reading (a column ``height`` tall; 0: a sparkline), oldest first."""
        if width <= 0:
            return []
        blank = NOTHING_YET * max(1, height)
        held = min(width, series.capacity)  # older readings have left the ring: blank
        key = (series, held, height, series.low, series.high)
        kept = self._kept.get(key)
        if kept is None:
            if len(self._kept) >= MAX_KEPT:
                self._kept.clear()
            seen, cells = 0, [blank] * held
        else:
            seen, cells = kept
        appended, fresh = series.newer(seen, held)
        if kept is None or appended != seen:
            if height:
                new = graph_columns(fresh, height, series.low, series.high)
            else:
                new = spark_cells(fresh, series.low, series.high)
            cells = (cells + new)[-held:]
            self._kept[key] = (appended, cells)
        return cells if held == width else [blank] * (width - held) + cells
