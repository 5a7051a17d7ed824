"""The copies matrix as a table: rows copy from, columns copy to, each cell GB/s (or µs),
coloured by how it compares with the best of its kind; the host is the last row and column.

It takes the place of the plot while a copies view is shown (``p`` cycles the views of a comm
run). Columns are as narrow as their cells (nine columns need about 55 of the 62 the plots get
at 160 columns), and a table wider than its space scrolls sideways: nothing is cut.
"""

from __future__ import annotations

from rich.console import JustifyMethod
from rich.text import Text
from textual.widgets import DataTable

from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.comm.copies import CopyMatrix, short
from gpu_tui.core.units import format_number

BANDS = ((0.8, "good"), (0.5, "fair"), (0.2, "poor"))
"""Share of the best cell of its kind → colour band; under the last, ``low``."""
CORNER = "from\\to"


def band(share: float | None) -> str | None:
    if share is None:
        return None
    return next((name for floor, name in BANDS if share >= floor), "low")


def cells(matrix: CopyMatrix) -> list[list[str]]:
    """The table as text, heading row first: what the widget shows, for tests and widths."""
    rows = [[CORNER, *(short(n) for n in matrix.names)]]
    for src in matrix.names:
        row = [short(src)]
        for dst in matrix.names:
            value = matrix.value(src, dst)
            row.append("-" if value is None else format_number(value))
        rows.append(row)
    return rows


class CopyTable(DataTable[Text]):
    """One :class:`CopyMatrix`; the cursor moves over cells and names the copy under it."""

    DEFAULT_CSS = """
    CopyTable {
        display: none;  /* until the pane shows a copies view */
        height: 1fr;
        scrollbar-size: 1 1;
        & > .copy-table--good { color: $text-success; }
        & > .copy-table--fair { color: $text; }
        & > .copy-table--poor { color: $text-warning; }
        & > .copy-table--low { color: $text-error; }
        & > .copy-table--wrong { color: $text-error; text-style: bold reverse; }
        & > .copy-table--none { color: $text-muted; }
    }
    """
    COMPONENT_CLASSES = {  # noqa: RUF012 — Textual API
        "copy-table--good",
        "copy-table--fair",
        "copy-table--poor",
        "copy-table--low",
        "copy-table--wrong",
        "copy-table--none",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="cell", cell_padding=0, fixed_columns=1)
        self.matrix: CopyMatrix | None = None

    def show(self, matrix: CopyMatrix) -> None:
        """Lay the table out again only when the matrix changed (results arrive one by one)."""
        if matrix == self.matrix:
            return
        place = self.cursor_coordinate
        self.matrix = matrix
        self.clear(columns=True)
        rows = cells(matrix)
        widths = [max(len(r[i]) for r in rows) + 1 for i in range(len(rows[0]))]
        for index, (heading, width) in enumerate(zip(rows[0], widths, strict=True)):
            place_text: JustifyMethod = "left" if index == 0 else "right"
            self.add_column(Text(heading, justify=place_text), width=width, key=str(index))
        for src, row in zip(matrix.names, rows[1:], strict=True):
            texts = [Text(row[0], style="bold")]
            for dst, shown in zip(matrix.names, row[1:], strict=True):
                texts.append(Text(shown, style=self._style(matrix, src, dst), justify="right"))
            self.add_row(*texts, key=src)
        if self.row_count:
            self.move_cursor(row=min(place.row, self.row_count - 1), column=max(1, place.column))

    def _style(self, matrix: CopyMatrix, src: str, dst: str) -> str:
        found = matrix.result(src, dst)
        if found is None:
            name = "none"
        elif (found.checks or {}).get("ok") is False:
            name = "wrong"
        else:
            name = band(matrix.share(src, dst)) or "none"
        return str(self.get_component_rich_style(f"copy-table--{name}"))

    def current(self) -> BenchResult | None:
        """The copy under the cursor (None on a heading, the diagonal or a copy not made)."""
        if self.matrix is None:
            return None
        row, column = self.cursor_coordinate
        names = self.matrix.names
        if not (0 <= row < len(names) and 1 <= column <= len(names)):
            return None
        return self.matrix.result(names[row], names[column - 1])
