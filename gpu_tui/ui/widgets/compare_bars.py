"""Horizontal bars comparing one metric across devices, this machine's highlighted."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from gpu_tui.core.devices.compare import Comparison
from gpu_tui.core.units import format_rounded

BLOCKS = " ▏▎▍▌▋▊▉█"


def bar_text(fraction: float, width: int) -> str:
    """A bar ``width`` cells wide filled to ``fraction`` with eighth-block precision."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, rest = divmod(eighths, 8)
    text = "█" * full + (BLOCKS[rest] if rest else "")
    if not text and fraction > 0:
        text = "▏"  # never let a real but tiny value vanish: that is the CPU's story
    return text.ljust(width)


class CompareBars(Static):
    """Renders a list of :class:`Comparison`; the row marked ``this`` in the accent colour."""

    comparisons: reactive[tuple[Comparison, ...]] = reactive((), layout=True)

    def render(self) -> RenderableType:
        blocks: list[RenderableType] = []
        label_width = 22
        bar_width = max(8, self.size.width - label_width - 12)
        accent = self.app.get_css_variables().get("accent", "yellow")
        for comparison in self.comparisons:
            top = max((bar.value or 0.0) for bar in comparison.bars) or 1.0
            table = Table.grid(padding=(0, 1))
            table.add_column(width=label_width, no_wrap=True, overflow="ellipsis")
            table.add_column(width=bar_width, no_wrap=True)
            table.add_column(justify="right", no_wrap=True)
            for bar in comparison.bars:
                style = f"bold {accent}" if bar.this else ""
                value = "unknown" if bar.value is None else format_rounded(bar.value)
                table.add_row(
                    Text(bar.label.removeprefix("NVIDIA "), style=style),
                    Text(bar_text((bar.value or 0.0) / top, bar_width), style=style or "dim"),
                    Text(value, style=style),
                )
            title = Text(f"{comparison.metric} ({comparison.unit})", style="bold underline")
            blocks.extend([title, table, Text("")])
        return Group(*blocks)
