"""A small keyboard dialog that returns a file path: typed, or picked from saved runs."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from gpu_tui.ui.widgets.field import Field


class PathDialog(ModalScreen[Path | None]):
    """Enter accepts, Esc closes. ``choices`` (saved runs, newest first) fill a list above the
    input; highlighting one copies its path into the input."""

    BINDINGS = [Binding("escape", "dismiss_none", "Close")]  # noqa: RUF012 — Textual API

    def __init__(
        self, title: str, hint: str, value: str, choices: list[Path] | None = None
    ) -> None:
        super().__init__()
        self.title_text, self.hint, self.value = title, hint, value
        self.choices = choices or []

    def compose(self) -> ComposeResult:
        with Vertical(id="path-dialog"):
            yield Label(self.title_text, id="path-title")
            if self.choices:
                yield OptionList(
                    *(Option(Text(p.name), id=str(i)) for i, p in enumerate(self.choices)),
                    id="path-choices",
                )
            # Enter accepts what it shows; a letter, a click or Backspace starts editing it.
            yield Field(self.value, id="path-input", enter_edits=False)
            yield Label(self.hint, id="path-hint")

    def on_mount(self) -> None:
        target = "#path-choices" if self.choices else "#path-input"
        self.query_one(target).focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.query_one("#path-input", Input).value = str(self.choices[event.option_index])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[event.option_index])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        self.dismiss(Path(value).expanduser() if value else None)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
