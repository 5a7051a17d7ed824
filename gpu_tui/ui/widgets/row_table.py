"""A row-cursor DataTable whose Home and End go to the first and last row, as the Monitor's
process table does; a DataTable's own Home/End scroll sideways, which in a table read by rows
looks like the columns jumping."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import DataTable


class RowTable(DataTable[Any]):
    """Home: the first row; End: the last (Ctrl+Home/End do the same, as in DataTable)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "first_row", "First row", show=False),
        Binding("end", "last_row", "Last row", show=False),
    ]

    def action_first_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)
