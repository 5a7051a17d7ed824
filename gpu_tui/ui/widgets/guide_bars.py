"""One metric as horizontal bars, this machine's devices marked and a SIMULATED one labelled."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from gpu_tui.core.guide.lineup import WEAK_MARK, BarChart
from gpu_tui.core.units import format_rounded
from gpu_tui.ui.widgets.compare_bars import bar_text

SIMULATED_TAG = " (SIMULATED)"
MIN_BAR = 10
"""The narrowest a bar gets: a label longer than the rest allows wraps instead."""


class GuideBars(Static):
    """Renders one :class:`BarChart`; local rows bold in the accent colour, SIMULATED reversed."""

    chart: reactive[BarChart | None] = reactive(None, layout=True)

    def _widths(self, chart: BarChart) -> tuple[int, list[Text], int, int]:
        """The label column's width, the value texts, their column's width, the bars' width."""
        # Labels whole (a cut name misleads): the bars take what is left, down to MIN_BAR; past
        # that a label wraps onto a second line.
        # The value column as wide as its widest entry ("not published" is 13), kept first: a
        # value is never cut for a label.
        values = [
            Text(bar.missing, style="italic")
            if bar.value is None
            else Text(format_rounded(bar.value) + (WEAK_MARK if bar.weak else " "))
            for bar in chart.bars
        ]
        value_width = max(7, *(v.cell_len for v in values)) if values else 7
        longest = max((cell_len(bar.label) for bar in chart.bars), default=0)
        label_width = max(12, min(longest, self.size.width - value_width - 3 - MIN_BAR))
        bar_width = max(6, self.size.width - label_width - value_width - 3)
        return label_width, values, value_width, bar_width

    @staticmethod
    def _title(chart: BarChart) -> str:
        return f"{chart.title} ({chart.unit})"

    def bar_spans(self) -> list[tuple[int, int]]:
        """Each bar's first line in the widget and its height (a long label wraps), as drawn."""
        chart = self.chart
        if chart is None or not self.size.width:
            return []
        label_width = self._widths(chart)[0]
        console = self.app.console
        start = len(Text(self._title(chart)).wrap(console, self.size.width))
        spans = []
        for bar in chart.bars:
            height = len(Text(bar.label).wrap(console, label_width))
            spans.append((start, height))
            start += height
        return spans

    def render(self) -> RenderableType:
        chart = self.chart
        if chart is None:
            return Text("Reading hardware…", style="italic")
        variables = self.app.get_css_variables()
        accent = variables.get("text-accent", "bold")
        warning = variables.get("text-warning", "bold")
        plain = variables.get("text-primary", "")
        label_width, values, value_width, bar_width = self._widths(chart)
        top = max((bar.value or 0.0) for bar in chart.bars) if chart.bars else 0.0
        table = Table.grid(padding=(0, 1))
        table.add_column(width=label_width)
        table.add_column(width=bar_width, no_wrap=True)
        table.add_column(justify="right", no_wrap=True, width=value_width)
        table.title = self._title(chart)
        table.title_style = "bold"
        table.title_justify = "left"
        for bar, value in zip(chart.bars, values, strict=True):
            label = Text(bar.label)
            style = f"bold {warning if bar.simulated else accent}" if bar.local else ""
            if bar.simulated:
                label.stylize(f"bold {warning}")
                label.stylize("reverse", len(label) - len(SIMULATED_TAG) + 1)
            elif style:
                label.stylize(style)
            fraction = (bar.value or 0.0) / top if top else 0.0
            table.add_row(label, Text(bar_text(fraction, bar_width), style=style or plain), value)
        return table
