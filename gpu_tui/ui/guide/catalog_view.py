"""The Guide's catalog: reference accelerators with this machine's devices, sortable, filterable."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import DataTable, Input, Static

from gpu_tui.core.devices.model import Inventory
from gpu_tui.core.guide.lineup import (
    COLUMNS,
    LineupRow,
    catalog_rows,
    filter_rows,
    local_rows,
    sort_rows,
)
from gpu_tui.core.sources import Source
from gpu_tui.ui.widgets.guide_bars import SIMULATED_TAG, fit_label, number

NAME_WIDTH = 26
_BF16 = next(i for i, column in enumerate(COLUMNS) if column.attr == "bf16_tflops")


WEAK_MARK = "†"
"""Follows a figure only a secondary source states (the legend says so under the table)."""


def _cell(value: object, attr: str, weak: bool = False) -> str:
    if value is None:
        return "—"
    text = number(float(value)) if isinstance(value, int | float) and attr != "year" else str(value)
    return text + WEAK_MARK if weak else text


def name_cell(row: LineupRow, accent: str, warning: str, width: int = NAME_WIDTH) -> Text:
    """The device name; this machine's marked ▶, a simulated one's tag reversed and never cut."""
    text = Text(fit_label(f"▶ {row.name}" if row.local else row.name, width))
    if row.simulated:
        text.stylize(f"bold {warning}")
        text.stylize("reverse", len(text) - len(SIMULATED_TAG) + 1)
    elif row.local:
        text.stylize(f"bold {accent}")
    return text


def describe(row: LineupRow) -> Text:
    """Every figure of one row, its documents (title, then address), then its notes."""

    missing = "unknown" if row.local else "n/p"

    def fig(attr: str, unit: str = "") -> str:
        value = getattr(row, attr)
        if value is None:
            return missing
        text = str(value) if attr == "year" else number(float(value))
        return f"{text}{WEAK_MARK if attr in row.weak else ''}{unit}"

    head = Text(row.name, style="bold")
    facts = [row.vendor, row.architecture, *([fig("year")] if row.year else [])]
    memory = fig("memory_gib", " GiB") if row.memory_gib is not None else f"memory {missing}"
    if row.memory_type:
        memory += f" {row.memory_type}{WEAK_MARK if 'memory_type' in row.weak else ''}"
    bf16 = fig("bf16_tflops")
    if row.bf16_sparse_tflops is not None:
        bf16 += f" (2:4 sparse {number(row.bf16_sparse_tflops)})"
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
    figures = (
        row.memory_gib,
        row.bandwidth_tbps,
        row.bf16_tflops,
        row.fp8_tflops,
        row.fp32_tflops,
        row.tdp_watts,
    )
    if not row.local and None in figures:
        head.append("  n/p = not published", style="italic")
    return head


def _citation(source: Source) -> str:
    weak = f" ({WEAK_MARK} secondary)" if not source.primary else ""
    return f"{source.title or source.url}{weak} {source.url}" if source.title else source.url


class CatalogView(Widget):
    """Filter line, the table, and the highlighted row's figures with their source."""

    BINDINGS = [  # noqa: RUF012 — Textual API
        Binding("slash", "filter", "Filter", key_display="/"),
        Binding("s", "sort", "Sort"),
        Binding("r", "reverse", "Reverse"),
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

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder="/ filter by vendor, name or year: e.g. nvidia h100, amd, tpu",
            id="guide-filter",
            compact=True,
        )
        yield DataTable(id="guide-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="guide-detail")

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
        self.query_one("#guide-filter", Input).focus()

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
        if event.column_index == self.sort_index:
            self.action_reverse()
        else:
            self.set_reactive(CatalogView.descending, COLUMNS[event.column_index].numeric)
            self.sort_index = event.column_index

    @on(DataTable.RowHighlighted, "#guide-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self.rows):
            self.query_one("#guide-detail", Static).update(describe(self.rows[event.cursor_row]))

    def refill(self, *, to_top: bool = False) -> None:
        """Rebuild the table for the current hardware, filter and sort; keep the cursor's row."""
        if not self.is_mounted:
            return
        table = self.query_one("#guide-table", DataTable)
        at = table.cursor_row
        keep = self.rows[at].key if not to_top and 0 <= at < len(self.rows) else None
        column = COLUMNS[self.sort_index]
        shown = filter_rows((*local_rows(self.inventory), *self.catalog), self.query_text)
        self.rows = sort_rows(shown, column, self.descending)
        variables = self.app.get_css_variables()
        accent, warning = variables["text-accent"], variables["text-warning"]
        table.clear(columns=True)
        cells = [
            [_cell(getattr(row, col.attr), col.attr, col.attr in row.weak) for col in COLUMNS[1:]]
            for row in self.rows
        ]
        # A column with a marked figure keeps its digits in line: unmarked numbers leave room.
        for i, col in enumerate(COLUMNS[1:]):
            if col.numeric and any(r[i].endswith(WEAK_MARK) for r in cells):
                for r in cells:
                    r[i] = r[i] if r[i].endswith(WEAK_MARK) else r[i] + " "
        headers = []
        for index, col in enumerate(COLUMNS):
            arrow = (" ▼" if self.descending else " ▲") if index == self.sort_index else ""
            headers.append(col.label + arrow)
            width = NAME_WIDTH if col.attr == "name" else None
            table.add_column(Text(col.label + arrow, style="bold" if arrow else ""), width=width)
        # DataTable ignores a cell's justify, so numbers are padded to line up on the right.
        widths = [
            max(len(header), *(len(r[i]) for r in cells)) for i, header in enumerate(headers[1:])
        ]
        for row, texts in zip(self.rows, cells, strict=True):
            padded = [
                Text(t.rjust(w) if col.numeric else t)
                for t, w, col in zip(texts, widths, COLUMNS[1:], strict=True)
            ]
            table.add_row(name_cell(row, accent, warning), *padded, key=row.key)
        keys = [row.key for row in self.rows]
        table.move_cursor(row=keys.index(keep) if keep in keys else 0)
        local = sum(row.local for row in self.rows)
        table.border_title = (
            f"{len(self.rows) - local} of {len(self.catalog)} · ▶ this machine ({local})"
            f" · sorted by {column.label}{' ▼' if self.descending else ' ▲'}"
        )
        table.border_subtitle = f"{WEAK_MARK} secondary source · s sort · r reverse · / filter"
        # Moving to the row it was already on posts no RowHighlighted, so refresh the detail here.
        cursor = table.cursor_row
        detail = describe(self.rows[cursor]) if 0 <= cursor < len(self.rows) else ""
        self.query_one("#guide-detail", Static).update(detail)
        self.post_message(self.Shown(self.rows))
