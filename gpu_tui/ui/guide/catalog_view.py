"""The Guide's catalog: reference accelerators with this machine's devices, sortable, filterable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import DataTable, Input

from gpu_tui.core.devices.model import Inventory
from gpu_tui.core.devices.sources import Source
from gpu_tui.core.guide.lineup import (
    COLUMNS,
    WEAK_MARK,
    LineupRow,
    catalog_rows,
    filter_rows,
    header_labels,
    local_rows,
    local_summary,
    sort_rows,
)
from gpu_tui.core.units import format_rounded, gigabyte_symbol
from gpu_tui.ui.guide import device_name
from gpu_tui.ui.widgets.field import Field
from gpu_tui.ui.widgets.reading_box import ReadingBox
from gpu_tui.ui.widgets.scroll_hint import HintedTable

CELL_PADDING = 2
"""A DataTable cell's padding, both sides together (``cell_padding=1``)."""
_BF16 = next(i for i, column in enumerate(COLUMNS) if column.attr == "bf16_tflops")


def _shown(row: LineupRow, attr: str) -> Any:
    """A row's figure as shown: the memory in the size unit shown, the others as kept."""
    return row.memory_shown() if attr == "memory_gib" else getattr(row, attr)


def _cell(value: object, attr: str, weak: bool = False) -> str:
    if value is None:
        return "—"
    text = (
        format_rounded(float(value))
        if isinstance(value, int | float) and attr != "year"
        else str(value)
    )
    return text + WEAK_MARK if weak else text


def describe(row: LineupRow) -> Text:
    """Every figure of one row, its documents (title, then address), then its notes."""

    def fig(attr: str, unit: str = "") -> str:
        value = _shown(row, attr)
        if value is None:
            return row.missing(attr)
        text = str(value) if attr == "year" else format_rounded(float(value))
        return f"{text}{WEAK_MARK if attr in row.weak else ''}{unit}"

    head = Text(row.name, style="bold")
    facts = [row.vendor, row.architecture, *([fig("year")] if row.year else [])]
    kind = f"{row.memory_type}{WEAK_MARK if 'memory_type' in row.weak else ''}"
    if row.memory_gib is not None:
        memory = fig("memory_gib", f" {gigabyte_symbol()}") + (
            f" {kind}" if row.memory_type else ""
        )
    else:  # "memory HBM3e, size not published"
        memory = f"memory {kind + ', size ' if row.memory_type else ''}{row.missing('memory_gib')}"
    bf16 = fig("bf16_tflops")
    if row.bf16_sparse_tflops is not None:
        bf16 += f" (2:4 sparse {format_rounded(row.bf16_sparse_tflops)})"
    head.append(f" · {' '.join(facts)} · {memory} · {fig('bandwidth_tbps', ' TB/s')}")
    head.append(f" · TFLOP/s dense BF16 {bf16}, FP8 {fig('fp8_tflops')}")
    head.append(f", FP32 {fig('fp32_tflops')} · TDP {fig('tdp_watts', ' W')}")
    if row.weak:
        head.append(f"  {WEAK_MARK} = only a secondary source states it", style="italic")
    # Sources before notes: at 80×24 the last line is the one cut off. Titles first, so the
    # names survive a narrow screen; the addresses follow where there is room.
    if row.documents:
        head.append("\nsources: ", style="bold")
        head.append("; ".join(_citation(source) for source in row.documents))
    else:
        head.append("\nsource: ", style="bold")
        head.append(row.source)
    if row.notes:
        head.append(f"\n{row.notes}", style="italic")
    return head


def fitting_columns(widths: list[int], room: int | None, keep: int) -> list[int]:
    """The columns (indices into ``widths``, each with its padding) that fit whole in ``room``
    cells, in order: the first (the name) always, then each while it fits; the column ``keep``
    always, in place of the last ones if need be. The last column's right padding may fall off
    the edge (it is blank). ``room=None`` (not laid out yet): all of them."""
    if room is None:
        return list(range(len(widths)))
    room += 1
    shown, used = [0], widths[0]
    for index, width in enumerate(widths[1:], start=1):
        if used + width > room:
            break
        shown.append(index)
        used += width
    if keep not in shown:
        while len(shown) > 1 and used + widths[keep] > room:
            used -= widths[shown.pop()]
        shown.append(keep)
    return shown


def _citation(source: Source) -> str:
    weak = f" ({WEAK_MARK} secondary)" if not source.primary else ""
    return f"{source.title or source.url}{weak} {source.url}" if source.title else source.url


class CatalogView(Widget):
    """Filter line, the table, and the highlighted row's figures with their source."""

    BINDINGS = [  # noqa: RUF012 — Textual API
        Binding("slash", "filter", "Filter", key_display="/", tooltip="by vendor, name or year"),
        Binding("s", "sort", "Sort", tooltip="by the next column"),
        Binding("r", "reverse", "Reverse", tooltip="the order"),
        Binding("escape", "leave", "To the table", show=False),
    ]

    inventory: reactive[Inventory | None] = reactive(None)
    sort_index: reactive[int] = reactive(_BF16)
    descending: reactive[bool] = reactive(True)
    query_text: reactive[str] = reactive("")

    @dataclass
    class Shown(Message):
        """The rows on show changed (filter or hardware): the pane hands them to the bars."""

        rows: tuple[LineupRow, ...]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.catalog = catalog_rows()
        self.rows: tuple[LineupRow, ...] = ()
        self.shown_columns: list[int] = list(range(len(COLUMNS)))
        """Indices into ``COLUMNS`` of the table's columns, in order."""

    def compose(self) -> ComposeResult:
        yield Field(
            placeholder="/ filter by vendor, name or year: e.g. nvidia h100, amd, tpu",
            id="guide-filter",
            compact=True,
        )
        # The pane's keyboard is on the table, so its hint says only what lies out of sight.
        yield HintedTable(reach="", id="guide-table", cursor_type="row", zebra_stripes=True)
        yield ReadingBox(text_id="guide-detail", id="guide-detail-box")

    def on_mount(self) -> None:
        self.refill()

    def focus(self, scroll_visible: bool = True) -> CatalogView:
        self.query_one("#guide-table", DataTable).focus(scroll_visible)
        return self

    def watch_inventory(self) -> None:
        self.refill()

    # A new order starts at its top: the ranking is the point, not the row the cursor was on.
    def watch_sort_index(self) -> None:
        self.refill(to_top=True)

    def watch_descending(self) -> None:
        self.refill(to_top=True)

    def watch_query_text(self) -> None:
        self.refill()

    def action_filter(self) -> None:
        """``/`` says "I am going to type a filter": the field is entered at once."""
        field = self.query_one("#guide-filter", Field)
        field.focus()
        field.edit()

    def action_sort(self) -> None:
        """Next column; numbers start largest first, names A to Z."""
        index = (self.sort_index + 1) % len(COLUMNS)
        self.set_reactive(CatalogView.descending, COLUMNS[index].numeric)
        self.sort_index = index

    def action_reverse(self) -> None:
        self.descending = not self.descending

    @on(Input.Changed, "#guide-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value

    @on(Input.Submitted, "#guide-filter")
    def _filter_done(self) -> None:
        self.focus()

    def action_leave(self) -> None:
        self.focus()

    @on(DataTable.HeaderSelected, "#guide-table")
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        index = self.shown_columns[event.column_index]
        if index == self.sort_index:
            self.action_reverse()
        else:
            self.set_reactive(CatalogView.descending, COLUMNS[index].numeric)
            self.sort_index = index

    def on_resize(self) -> None:
        self.refill()  # the columns that fit whole change with the width

    @on(DataTable.RowHighlighted, "#guide-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self.rows):
            self.show_detail(describe(self.rows[event.cursor_row]))

    def show_detail(self, text: Text | str) -> None:
        self.query_one("#guide-detail-box", ReadingBox).update(text)

    def refill(self, *, to_top: bool = False) -> None:
        """Rebuild the table for the current hardware, filter and sort; keep the cursor's row."""
        if not self.is_mounted:
            return
        table = self.query_one("#guide-table", HintedTable)
        at = table.cursor_row
        keep = self.rows[at].key if not to_top and 0 <= at < len(self.rows) else None
        column = COLUMNS[self.sort_index]
        shown = filter_rows((*local_rows(self.inventory), *self.catalog), self.query_text)
        self.rows = sort_rows(shown, column, self.descending)
        variables = self.app.get_css_variables()
        accent, warning = variables["text-accent"], variables["text-warning"]
        table.clear(columns=True)
        cells = [
            [_cell(_shown(row, col.attr), col.attr, col.attr in row.weak) for col in COLUMNS[1:]]
            for row in self.rows
        ]
        # A column with a marked figure keeps its digits in line: unmarked numbers leave room.
        for i, col in enumerate(COLUMNS[1:]):
            if col.numeric and any(r[i].endswith(WEAK_MARK) for r in cells):
                for r in cells:
                    r[i] = r[i] if r[i].endswith(WEAK_MARK) else r[i] + " "
        arrow = " ▼" if self.descending else " ▲"
        headers = [
            label + (arrow if i == self.sort_index else "")
            for i, label in enumerate(header_labels())
        ]
        # DataTable ignores a cell's justify, so numbers are padded to line up on the right.
        widths = [
            max(len(header), *(len(r[i]) for r in cells)) for i, header in enumerate(headers[1:])
        ]
        # Only whole columns: one cut at the right edge reads wrong ("202" for 2024). What is
        # left out is in the detail box below, and the sorted column is always shown.
        labels = (device_name.label(row.name, row.local) for row in self.rows)
        name_width = max(len(headers[0]), device_name.column_width(labels))
        room = table.content_region.width - table.styles.scrollbar_size_vertical
        self.shown_columns = fitting_columns(
            [name_width + CELL_PADDING, *(w + CELL_PADDING for w in widths)],
            room if table.content_region.width else None,
            self.sort_index,
        )
        for index in self.shown_columns:
            label, sorted_here = headers[index], index == self.sort_index
            width = name_width if index == 0 else None
            table.add_column(Text(label, style="bold" if sorted_here else ""), width=width)
        for row, texts in zip(self.rows, cells, strict=True):
            padded = [
                Text(t.rjust(w) if col.numeric else t)
                for t, w, col in zip(texts, widths, COLUMNS[1:], strict=True)
            ]
            visible = [padded[index - 1] for index in self.shown_columns[1:]]
            name = device_name.name_cell(
                row.name,
                local=row.local,
                simulated=row.simulated,
                accent=accent,
                warning=warning,
                width=name_width,
                console=self.app.console,
            )
            table.add_row(name, *visible, key=row.key, height=device_name.height(name))
        keys = [row.key for row in self.rows]
        table.move_cursor(row=keys.index(keep) if keep in keys else 0)
        catalog = sum(not row.local for row in self.rows)
        table.border_title = (
            f"catalog {catalog} of {len(self.catalog)} · ▶ this machine: {local_summary(self.rows)}"
            f" · sorted by {header_labels()[self.sort_index]}{' ▼' if self.descending else ' ▲'}"
        )
        # The columns out of sight follow the rows out of sight ("↑ 3 · ↓ 12 more rows · ").
        table.HINT_KEYS = _subtitle(
            [headers[i] for i in range(len(headers)) if i not in self.shown_columns],
            table.size.width - 4 - len("↑ 99 · ↓ 99 more rows · "),
        )
        table.show_hint()
        # Moving to the row it was already on posts no RowHighlighted, so refresh the detail here.
        cursor = table.cursor_row
        detail = describe(self.rows[cursor]) if 0 <= cursor < len(self.rows) else ""
        self.show_detail(detail)
        self.post_message(self.Shown(self.rows))


def _subtitle(hidden: list[str], room: int) -> str:
    """The table's keys, and which columns did not fit: they are in the detail box below, and
    sorting by one shows it."""
    keys = f"{WEAK_MARK} secondary source · s sort · r reverse · / filter"
    if not hidden:
        return keys
    for told in (f"{', '.join(hidden)}: below", f"{len(hidden)} more columns below"):
        text = f"{WEAK_MARK} secondary source · s sort · r reverse · {told}"
        if len(text) <= room:
            return text
    return f"{WEAK_MARK} secondary source · {len(hidden)} more columns below"
