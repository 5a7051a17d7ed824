"""The Monitor's two small dialogs over its process list: a filter (``/``) and a signal to the
selected process (``K``: choose, then confirm). Each field takes text from its first key, as
the Compare dialog's does; Esc closes."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from gpu_tui.core.monitor.signals import SIGNALS
from gpu_tui.ui.widgets.field import Field


class FilterDialog(ModalScreen[str | None]):
    """Returns the filter typed (empty: every process), or None when closed with Esc."""

    BINDINGS = [Binding("escape", "dismiss_none", "Close")]  # noqa: RUF012 — Textual API

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="monitor-dialog"):
            yield Label(
                "Show only the processes whose row holds a user, a PID or part of a command:",
                classes="dialog-title",
            )
            yield Field(self.current, id="filter-input", enter_edits=False)
            yield Label(
                "Enter shows them · an empty line shows all · Esc closes", classes="dialog-hint"
            )

    def on_mount(self) -> None:
        field = self.query_one("#filter-input", Field)
        field.focus()
        field.edit()
        field.cursor_position = len(field.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class SignalDialog(ModalScreen[int | None]):
    """Returns the signal chosen and confirmed for ``pid``, or None when closed with Esc."""

    BINDINGS = [Binding("escape", "dismiss_none", "Close")]  # noqa: RUF012 — Textual API

    def __init__(self, pid: int, who: str) -> None:
        super().__init__()
        self.pid, self.who = pid, who
        self.chosen: int | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="monitor-dialog"):
            yield Label(f"Send a signal to PID {self.pid}", classes="dialog-title")
            yield Label(self.who, id="signal-who")
            yield OptionList(
                *(
                    Option(Text.assemble((f"SIG{name:<5}", "bold"), f" {what}"), id=str(number))
                    for number, name, what in SIGNALS
                ),
                id="signal-choices",
            )
            yield Label("Enter chooses, Esc closes", id="signal-hint", classes="dialog-hint")

    def on_mount(self) -> None:
        choices = self.query_one("#signal-choices", OptionList)
        choices.highlighted = 0
        choices.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        number = int(event.option.id or 0)
        if self.chosen == number:
            self.dismiss(number)
            return
        self.chosen = number
        name = next(name for n, name, _ in SIGNALS if n == number)
        self.query_one("#signal-hint", Label).update(
            f"Send SIG{name} to PID {self.pid}? Enter again sends it, Esc cancels"
        )

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.chosen is not None and int(event.option.id or 0) != self.chosen:
            self.chosen = None  # moved away: choose again
            self.query_one("#signal-hint", Label).update("Enter chooses, Esc closes")

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
