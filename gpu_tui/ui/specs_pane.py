"""The Specs pane: a browsable spec sheet of the CPU, memory and each accelerator."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.data_table import ColumnKey
from textual.widgets.option_list import Option

from gpu_tui.core.compare import Comparison, compare_accelerator, compare_cpu
from gpu_tui.core.devices.model import Inventory
from gpu_tui.core.explain import explain
from gpu_tui.core.spec_sheet import SpecRow, SpecSection, spec_sheet
from gpu_tui.ui.config import AppConfig
from gpu_tui.ui.pane import Pane
from gpu_tui.ui.widgets.compare_bars import CompareBars

FIELD_WIDTH = 18


class SpecsPane(Pane, can_focus=False):
    """Devices on the left, the selected device's fields on the right, an explanation below."""

    def __init__(self, config: AppConfig, *, id: str | None = None) -> None:
        super().__init__(config, id=id)
        self.sections: tuple[SpecSection, ...] = ()
        self.comparisons: tuple[tuple[Comparison, ...], ...] = ()

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield OptionList(Option("Reading hardware…", disabled=True), id="spec-devices")
            with Vertical(id="spec-main"):
                yield DataTable(id="spec-table", cursor_type="row", zebra_stripes=True)
                yield Static(id="spec-explain")
            yield CompareBars(id="spec-compare")

    def on_mount(self) -> None:
        table = self.query_one("#spec-table", DataTable)
        table.add_column("Field", key="field", width=FIELD_WIDTH)
        table.add_column("Value", key="value")
        self.query_one("#spec-devices", OptionList).border_title = "Devices"
        self.query_one("#spec-compare", CompareBars).border_title = "How it compares"

    def focus(self, scroll_visible: bool = True) -> SpecsPane:
        self.query_one("#spec-devices", OptionList).focus(scroll_visible)
        return self

    def watch_inventory(self, inventory: Inventory | None) -> None:
        if inventory is None:
            return
        self.sections = spec_sheet(inventory)
        # Same order as spec_sheet: CPU, memory, accelerators, backends.
        self.comparisons = (
            compare_cpu(inventory.cpu),
            (),
            *(() if gpu.lost else compare_accelerator(gpu) for gpu in inventory.accelerators),
            *(() for _ in inventory.backends),
        )
        devices = self.query_one("#spec-devices", OptionList)
        devices.clear_options()
        devices.add_options(_device_option(i, s) for i, s in enumerate(self.sections))
        devices.highlighted = 0
        self.show_section(0)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id == "spec-devices" and event.option_index < len(self.sections):
            self.show_section(event.option_index)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.query_one("#spec-table", DataTable).focus()

    def show_section(self, index: int) -> None:
        """Fill the table with one section's rows."""
        section = self.sections[index]
        table = self.query_one("#spec-table", DataTable)
        table.clear()
        table.border_title = section.title
        table.set_class(section.simulated, "-simulated")
        self.fit_value_column()
        for number, spec_row in enumerate(section.rows):
            value = Text(
                spec_row.value,
                style="dim italic" if spec_row.unknown else "",
                overflow="ellipsis",
                no_wrap=True,
            )
            table.add_row(spec_row.label, value, key=str(number))
        table.move_cursor(row=0)
        compare = self.query_one("#spec-compare", CompareBars)
        compare.comparisons = self.comparisons[index] if index < len(self.comparisons) else ()
        compare.set_class(not compare.comparisons, "-empty")
        self.explain_row(section.rows[0] if section.rows else None)

    def on_resize(self) -> None:
        self.fit_value_column()

    def fit_value_column(self) -> None:
        """Let values use the table's width and end in an ellipsis rather than scroll sideways;
        the full value is always in the explanation below."""
        table = self.query_one("#spec-table", DataTable)
        available = table.scrollable_content_region.width - FIELD_WIDTH - 4
        column = table.columns.get(ColumnKey("value"))
        if column is not None and available > 10:
            column.auto_width = False
            column.width = available
            table.refresh()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        section = self.current_section()
        if section is not None and event.cursor_row < len(section.rows):
            self.explain_row(section.rows[event.cursor_row])

    def current_section(self) -> SpecSection | None:
        highlighted = self.query_one("#spec-devices", OptionList).highlighted
        if highlighted is None or highlighted >= len(self.sections):
            return None
        return self.sections[highlighted]

    def explain_row(self, spec_row: SpecRow | None) -> None:
        """Show what the field means and why it matters for AI, with its note (basis, reason)."""
        panel = self.query_one("#spec-explain", Static)
        if spec_row is None:
            panel.update("")
            return
        text = Text()
        text.append(f"{spec_row.label}: ", style="bold")
        text.append(spec_row.value, style="bold")
        if spec_row.note:
            text.append(f"\n{spec_row.note}", style="italic")
        meaning = explain(spec_row.key)
        if meaning:
            text.append("\n" + meaning)
        panel.update(text)


def _device_option(index: int, section: SpecSection) -> Option:
    label = Text(section.label or section.title, overflow="ellipsis", no_wrap=True)
    if section.simulated:
        label.append("\n")
        label.append(" SIMULATED ", style="bold reverse")
    elif section.problem:
        label.stylize("bold")
    return Option(label, id=f"section-{index}")
