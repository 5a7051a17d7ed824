"""The Guide's bars: bandwidth, dense BF16 and memory, this machine placed among the catalog."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Container, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from gpu_tui.core.guide.lineup import LineupRow, bar_charts
from gpu_tui.ui.widgets.guide_bars import GuideBars

NOTE = (
    "▶ this machine: memory as its driver reports it, peaks computed from its clocks; the CPU "
    "sits in the BF16 chart by its FP32 peak (no CPU BF16 peak is computed). Others: vendor "
    "datasheets, dense; each row's source is under the Catalog table. † = only a secondary "
    "source states it; not published = no document gives it; no BF16 = the architecture has "
    "none (before Ampere). The bars show what the Catalog filter (/) leaves."
)


class BarsView(VerticalScroll):
    """Three charts: stacked at 80 columns (scroll with ↑↓), side by side on a wide terminal."""

    rows: reactive[tuple[LineupRow, ...]] = reactive(())

    def compose(self) -> ComposeResult:
        with Container(id="guide-charts"):
            for metric in ("bandwidth", "bf16", "memory"):
                yield GuideBars(id=f"guide-bars-{metric}", classes="guide-chart")
        yield Static(NOTE, id="guide-bars-note")

    def watch_rows(self, rows: tuple[LineupRow, ...]) -> None:
        if not rows:
            return
        for chart, widget in zip(bar_charts(rows), self.query(GuideBars), strict=True):
            widget.chart = chart
