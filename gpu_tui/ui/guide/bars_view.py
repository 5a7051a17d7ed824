"""The Guide's bars: bandwidth, dense BF16 and memory, this machine placed among the catalog."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Container, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from gpu_tui.core.guide.lineup import LineupRow, bar_charts
from gpu_tui.ui.widgets.guide_bars import GuideBars
from gpu_tui.ui.widgets.scroll_hint import ScrollHint, out_of_sight

NOTE = (
    "▶ this machine: memory as its driver reports it, peaks computed from its clocks; the CPU "
    "sits in the BF16 chart by its FP32 peak (no CPU BF16 peak is computed). Others: vendor "
    "datasheets, dense; each row's source is under the Catalog table. † = only a secondary "
    "source states it; not published = no document gives it; no BF16 = the architecture has "
    "none (before Ampere). The bars show what the Catalog filter (/) leaves."
)


class BarsView(ScrollHint, VerticalScroll):
    """Three charts: stacked at 80 columns (scroll with ↑↓), side by side on a wide terminal.
    The border counts the bars out of sight, as a table's counts its rows."""

    HINT_UNIT = "bars"
    HINT_REACH = ""  # the section's key puts the keyboard here

    rows: reactive[tuple[LineupRow, ...]] = reactive(())

    def compose(self) -> ComposeResult:
        with Container(id="guide-charts"):
            for metric in ("bandwidth", "bf16", "memory"):
                yield GuideBars(id=f"guide-bars-{metric}", classes="guide-chart")
        yield Static(NOTE, id="guide-bars-note")

    def hint_counts(self) -> tuple[int, int]:
        top = self.scroll_y
        bottom = top + self.scrollable_content_region.height
        # A chart's first line in the scrolled content: its place in the charts' container,
        # and the container's in this view (neither moves as the view scrolls).
        charts = self.query_one("#guide-charts").virtual_region.y
        spans = [
            (charts + chart.virtual_region.y + start, height)
            for chart in self.query(GuideBars)
            for start, height in chart.bar_spans()
        ]
        return out_of_sight(spans, top, bottom)

    def show_hint(self) -> None:
        super().show_hint()
        # Every bar in sight, the note under them not: say only where the rest of it lies.
        if self.border_subtitle is None and self.max_scroll_y > self.scroll_y:
            self.border_subtitle = "↓ more"

    def watch_rows(self, rows: tuple[LineupRow, ...]) -> None:
        if not rows:
            return
        for chart, widget in zip(bar_charts(rows), self.query(GuideBars), strict=True):
            widget.chart = chart
        self.call_after_refresh(self.show_hint)  # the charts are laid out a pass later
