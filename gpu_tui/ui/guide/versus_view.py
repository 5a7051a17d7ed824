"""GPU vs TPU vs CPU side by side, one row per aspect, with the sources underneath."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from gpu_tui.core.guide.versus import COLUMNS, ROWS, SOURCES


def versus_table() -> RenderableType:
    """A Rich table (it wraps long cells, which a DataTable does not), then the sources."""
    table = Table(expand=True, show_lines=True, header_style="bold", padding=(0, 1))
    table.add_column("", style="bold", ratio=2)
    for title in COLUMNS:
        table.add_column(title, ratio=3)
    for row in ROWS:
        table.add_row(row.aspect, row.cpu, row.gpu, row.tpu)
    sources = Text("sources: ", style="bold")
    sources.append("; ".join(SOURCES), style="italic")
    return Group(table, sources)


class VersusView(VerticalScroll):
    """Scrolls with ↑↓ at 80×24; fits whole on a large terminal."""

    def compose(self) -> ComposeResult:
        yield Static(versus_table(), id="versus-table")
