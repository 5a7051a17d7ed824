"""The Specs pane: a browsable spec sheet of the CPU, memory and each accelerator, and the
machine's health check (run when its entry is first opened, off the event loop; ``c`` checks
again, with measurements)."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.data_table import ColumnKey
from textual.widgets.option_list import Option

from gpu_tui.core.check.findings import WARN, Report
from gpu_tui.core.check.health_sheet import health_section, verdict_words
from gpu_tui.core.devices.compare import Comparison, compare_accelerator, compare_cpu
from gpu_tui.core.devices.explain import explain
from gpu_tui.core.devices.machine_summary import machine_summary
from gpu_tui.core.devices.model import Inventory
from gpu_tui.core.devices.spec_rows import SpecRow, SpecSection
from gpu_tui.core.devices.spec_sheet import spec_sheet, wrap_value
from gpu_tui.ui.config import AppConfig
from gpu_tui.ui.pane import Pane
from gpu_tui.ui.widgets.compare_bars import CompareBars
from gpu_tui.ui.widgets.reading_box import ReadingBox
from gpu_tui.ui.widgets.scroll_hint import ScrollHint

FIELD_WIDTH = 18


class SpecTable(ScrollHint, DataTable[object]):
    """The sheet's table. Its width changes without the pane's (the comparison bars beside it
    come and go with the section): each change is posted, so the rows are refitted to it.
    The keyboard reaches it from the device list by Enter."""

    class Resized(Message):
        pass

    def on_resize(self) -> None:
        self.post_message(self.Resized())


class DeviceList(ScrollHint, OptionList):
    """The sheet's sections; it has the keyboard when the pane is shown (and its border no
    room for more than where the rest lies)."""

    HINT_UNIT = ""
    HINT_REACH = ""


class SpecsPane(Pane, can_focus=False):
    """Devices on the left, the selected device's fields on the right, an explanation below."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "c",
            "check",
            "Check health",
            tooltip="check again, measuring matrix-multiply speed, memory bandwidth and copies",
        ),
    ]

    def __init__(self, config: AppConfig, *, id: str | None = None) -> None:
        super().__init__(config, id=id)
        self.sections: tuple[SpecSection, ...] = ()
        self.comparisons: tuple[tuple[Comparison, ...], ...] = ()
        self._value_width = 0
        self.health: Report | None = None
        """The last health check (None: none has finished yet)."""
        self.checking = False
        self._explained: tuple[SpecRow | None, bool] = (None, False)
        """The row the box explains, and whether it was drawn wide."""

    def compose(self) -> ComposeResult:
        with Horizontal():
            with Vertical(id="spec-left"):
                yield DeviceList(Option("Reading hardware…", disabled=True), id="spec-devices")
                yield Static(id="spec-machine")  # shown on a wide screen only
            with Vertical(id="spec-main"):
                yield SpecTable(id="spec-table", cursor_type="row", zebra_stripes=True)
                yield ReadingBox(text_id="spec-explain", id="spec-explain-box")
            yield CompareBars(id="spec-compare")

    def on_mount(self) -> None:
        table = self.query_one("#spec-table", DataTable)
        table.add_column("Field", key="field", width=FIELD_WIDTH)
        table.add_column("Value", key="value")
        self.query_one("#spec-devices", OptionList).border_title = "Devices"
        self.query_one("#spec-machine", Static).border_title = "This machine"
        self.query_one("#spec-compare", CompareBars).border_title = "How it compares"

    def focus(self, scroll_visible: bool = True) -> SpecsPane:
        self.query_one("#spec-devices", OptionList).focus(scroll_visible)
        return self

    def watch_inventory(self, inventory: Inventory | None) -> None:
        if inventory is None:
            return
        self.sections = (*spec_sheet(inventory), health_section(self.health))
        # Same order as spec_sheet: CPU, memory, accelerators, backends; then the health check.
        self.comparisons = (
            compare_cpu(inventory.cpu),
            (),
            *(() if gpu.lost else compare_accelerator(gpu) for gpu in inventory.accelerators),
            *(() for _ in inventory.backends),
            (),
        )
        devices = self.query_one("#spec-devices", OptionList)
        devices.clear_options()
        devices.add_options(_device_option(i, s) for i, s in enumerate(self.sections))
        devices.highlighted = 0
        self.show_section(0)
        self._show_machine()

    def _show_machine(self) -> None:
        """The machine in a few lines under the list, with the health check's verdict."""
        if self.inventory is None:
            return
        lines = machine_summary(self.inventory)
        if self.health is not None:
            warnings = self.health.count(WARN)
            noted = f", {warnings} warning{'s' if warnings != 1 else ''}" if warnings else ""
            lines.append(("Health", verdict_words(self.health) + noted))
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(ratio=1)  # a long value wraps under itself, not under the labels
        for label, value in lines:
            grid.add_row(label, value)
        self.query_one("#spec-machine", Static).update(grid)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id == "spec-devices" and event.option_index < len(self.sections):
            self.show_section(event.option_index)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.query_one("#spec-table", DataTable).focus()

    def show_section(self, index: int) -> None:
        """Fill the table with one section's rows (the health check runs when first shown)."""
        section = self.sections[index]
        if index == len(self.sections) - 1 and self.health is None and not self.checking:
            self.checking = True
            self.run_check(measure=False)
        table = self.query_one("#spec-table", DataTable)
        table.border_title = section.title
        table.set_class(section.simulated, "-simulated")
        compare = self.query_one("#spec-compare", CompareBars)
        compare.comparisons = self.comparisons[index] if index < len(self.comparisons) else ()
        compare.set_class(not compare.comparisons, "-empty")
        self.fill_table(section, row=0)
        self.explain_row(section.rows[0] if section.rows else None)
        self.call_after_refresh(self._refit)  # the bars beside may have come or gone

    def fill_table(self, section: SpecSection, row: int) -> None:
        """The section's rows, values as wide as the table allows: a longer value takes more
        lines of its row, broken after a " · " (on purpose: never cut, never scrolled sideways)."""
        table = self.query_one("#spec-table", DataTable)
        table.clear()
        if not table.size.width:
            # Not laid out yet (the hardware was read before the first frame): the values wrap
            # to the table's width, so ``_refit`` fills it once that is known.
            self._value_width = 0
            return
        field = table.columns.get(ColumnKey("field"))
        wanted = max(FIELD_WIDTH, *(len(r.label) for r in section.rows))
        if field is not None and field.width != wanted:  # the longest label whole
            field.width = wanted  # (a health check's "gpu3 remapped-rows")
        width = self.value_width()
        column = table.columns.get(ColumnKey("value"))
        if column is not None:
            column.auto_width = False
            column.width = width
        for number, spec_row in enumerate(section.rows):
            lines = wrap_value(spec_row.value, width)
            value = Text("\n".join(lines), style="dim italic" if spec_row.unknown else "")
            table.add_row(spec_row.label, value, key=str(number), height=len(lines))
        table.move_cursor(row=min(row, max(0, table.row_count - 1)))
        self._value_width = width

    def action_check(self) -> None:
        """Check again, with measurements; the Health check entry shows it."""
        if self.checking or not self.sections:
            return
        devices = self.query_one("#spec-devices", OptionList)
        self.checking = True
        devices.highlighted = len(self.sections) - 1
        self.run_check(measure=True)

    @work(thread=True, exclusive=True, group="health-check", exit_on_error=False)
    def run_check(self, *, measure: bool) -> None:
        from gpu_tui.core.check.active import quick_findings
        from gpu_tui.core.check.run import run_check

        self.app.call_from_thread(self._checking, measure)
        python = self.config.bench_python
        report = run_check(
            nvml=self.config.nvml,
            measure=(lambda gpus: quick_findings(gpus, python)) if measure else None,
            demo=self.config.demo,
        )
        self.app.call_from_thread(self._checked, report)

    def _checking(self, measure: bool) -> None:
        self._replace_health(health_section(self.health, measuring=measure))

    def _checked(self, report: Report) -> None:
        self.checking = False
        self.health = report
        self._replace_health(health_section(report))
        self._show_machine()

    def worker_failed(self, worker: object) -> None:
        self.checking = False

    def _replace_health(self, section: SpecSection) -> None:
        if not self.sections:
            return
        index = len(self.sections) - 1
        self.sections = (*self.sections[:-1], section)
        devices = self.query_one("#spec-devices", OptionList)
        devices.replace_option_prompt_at_index(index, _device_option(index, section).prompt)
        if devices.highlighted == index:
            self.show_section(index)

    def value_width(self) -> int:
        table = self.query_one("#spec-table", DataTable)
        # the CSS keeps the scroll bar's gutter: the width does not depend on the row count
        field = table.columns.get(ColumnKey("field"))
        labels = field.width if field is not None else FIELD_WIDTH
        available = table.scrollable_content_region.width - labels - 4
        return max(available, 12)

    def on_resize(self) -> None:
        # Sizes are known by now: refit at once, so the first full table is one frame away.
        self._refit()
        spec_row, wide = self._explained
        if wide != self._wide():  # the other fields come or go with the width
            self.explain_row(spec_row)

    def on_spec_table_resized(self) -> None:
        self._refit()

    def _refit(self) -> None:
        section = self.current_section()
        if section is not None and self.value_width() != self._value_width:
            self.fill_table(section, self.query_one("#spec-table", DataTable).cursor_row)

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
        """Show what the field means and why it matters for AI, with its note (basis, reason).

        On a wide screen the box has room for more than one field: the section's other fields
        follow, each with its meaning, so the sheet reads whole without moving the cursor."""
        panel = self.query_one("#spec-explain-box", ReadingBox)
        self._explained = (spec_row, self._wide())
        # Wide, the box stops where a short text does. Narrow, it keeps its height: a box that
        # changed with each row would move the table under the cursor.
        panel.fit = self._wide()
        panel.fit_text()
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
        section = self.current_section()
        if self._wide() and section is not None:
            text.append_text(_other_fields(section, spec_row))
        panel.update(text)

    def _wide(self) -> bool:
        return self.is_attached and self.screen.has_class("-wide")


def _other_fields(section: SpecSection, shown: SpecRow) -> Text:
    """The section's other fields in the table's order, each with its meaning (a meaning that
    several fields share is given once, with the first of them; a field without one gives its
    value) and its note (its basis, or a finding's fix)."""
    text = Text()
    told, noted = {shown.key}, {shown.note}
    for spec_row in section.rows:
        if spec_row is shown:
            continue
        meaning = "" if spec_row.key in told else explain(spec_row.key)
        note = "" if spec_row.note in noted else spec_row.note  # a legend shared by rows: once
        if not meaning and not note:
            continue
        told.add(spec_row.key)
        noted.add(note)
        if not text:
            text.append(f"\n\nThe other fields of {section.label or section.title}", style="dim")
        text.append(f"\n{spec_row.label}: ", style="bold")
        text.append(meaning or f"{spec_row.value}.")
        if note:  # after a full stop: a sentence of its own
            text.append(f" {note[:1].upper()}{note[1:]}", style="italic")
    return text


def _device_option(index: int, section: SpecSection) -> Option:
    label = Text(section.label or section.title, overflow="ellipsis", no_wrap=True)
    if section.simulated:
        label.append("\n")
        label.append(" SIMULATED ", style="bold reverse")
    elif section.problem:
        label.stylize("bold")
    return Option(label, id=f"section-{index}")
