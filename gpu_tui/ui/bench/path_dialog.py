"""A small keyboard dialog that returns a file path: typed (with Tab completing the name of a
saved run), or picked from saved runs with ↑/↓.

The dialog exists to take a path, so its field takes text from the start: every printable key is
text (digits and ``q`` included, which elsewhere switch panes and quit), Enter accepts, Esc
closes. The path it opens with (and each run ↑/↓ puts there) is selected, so typing replaces it
and Enter takes it. ↑/↓ are never text, so they move through the saved runs even while typing;
where they or Tab have nothing to offer, the hint line says so.
"""

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

NO_PATH = Path()
"""What an empty line gives where ``allow_empty`` (Compare: drop the baseline)."""
NOTHING_OFFERED = "No other saved run to offer: type a file's path"


class PathDialog(ModalScreen[Path | None]):
    """Returns the path accepted, or None when closed with Esc. ``choices`` (saved runs, newest
    first) fill a list above the field; the first is in the field to begin with, and moving
    through the list puts each one there. Tab completes what was typed to the first choice
    whose name or path starts with it (or holds it). An empty line is ``NO_PATH`` where
    ``allow_empty``, else nothing happens."""

    # The field, not the list above it, takes the keyboard: the screen's own auto-focus would
    # otherwise pick the first focusable widget whenever it runs after ``on_mount``.
    AUTO_FOCUS = "#path-input"

    BINDINGS = [  # noqa: RUF012 — Textual API
        Binding("escape", "dismiss_none", "Close"),
        Binding("up", "choice(-1)", "Previous run", show=False),
        Binding("down", "choice(1)", "Next run", show=False),
        Binding("tab", "complete", "Complete", show=False, priority=True),
    ]

    def __init__(
        self,
        title: str,
        hint: str,
        value: str,
        choices: list[Path] | None = None,
        *,
        allow_empty: bool = False,
    ) -> None:
        super().__init__()
        self.title_text, self.hint, self.value = title, hint, value
        self.choices = choices or []
        self.allow_empty = allow_empty

    def compose(self) -> ComposeResult:
        with Vertical(id="path-dialog"):
            yield Label(self.title_text, id="path-title")
            if self.choices:
                yield OptionList(
                    *(Option(Text(p.name), id=str(i)) for i, p in enumerate(self.choices)),
                    id="path-choices",
                )
            yield Field(self.value or self._choice_text(0), id="path-input", enter_edits=False)
            yield Label(self.hint, id="path-hint")

    def on_mount(self) -> None:
        self.query_one("#path-dialog").border_subtitle = "esc closes"  # every dialog's way out
        field = self.query_one("#path-input", Field)
        self.set_focus(field)
        field.edit()
        field.select_all()
        if self.choices:
            self.query_one("#path-choices", OptionList).highlighted = 0

    def _choice_text(self, index: int) -> str:
        return str(self.choices[index]) if 0 <= index < len(self.choices) else ""

    def _put(self, text: str, *, selected: bool) -> None:
        """``selected``: a whole path offered, which the next letter typed replaces."""
        field = self.query_one("#path-input", Field)
        field.value = text
        if selected:
            field.select_all()
        else:
            field.cursor_position = len(text)

    def _say(self, text: str) -> None:
        """Said in the hint's place until the field changes: a key that found nothing to do."""
        self.query_one("#path-hint", Label).update(text)

    def on_input_changed(self) -> None:
        self.query_one("#path-hint", Label).update(self.hint)

    def action_choice(self, step: int) -> None:
        if not self.choices:
            self._say(NOTHING_OFFERED)
            return
        options = self.query_one("#path-choices", OptionList)
        current = options.highlighted if options.highlighted is not None else -step
        wanted = current + step
        if not 0 <= wanted < len(self.choices):  # newest first: up is newer, down older
            self._say("This is the newest saved run" if step < 0 else "No older saved run")
            return
        options.highlighted = wanted

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        text = self._choice_text(event.option_index)
        if self.query_one("#path-input", Field).value != text:  # Tab's completion: left as is
            self._put(text, selected=True)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[event.option_index])

    def action_complete(self) -> None:
        typed = self.query_one("#path-input", Field).value.strip()
        if not self.choices:
            self._say(NOTHING_OFFERED)
            return
        match = completion(typed, self.choices)
        if match is None:
            self._say("No saved run's name starts with that or holds it")
            return
        self.query_one("#path-choices", OptionList).highlighted = self.choices.index(match)
        self._put(str(match), selected=False)  # typing on goes on from the completed name

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        if value:
            self.dismiss(Path(value).expanduser())
        elif self.allow_empty:
            self.dismiss(NO_PATH)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def completion(typed: str, choices: list[Path]) -> Path | None:
    """The first of ``choices`` whose name or path starts with ``typed``, else the first that
    holds it; None when none does (or nothing was typed)."""
    if not typed:
        return None
    starts = [p for p in choices if p.name.startswith(typed) or str(p).startswith(typed)]
    holds = [p for p in choices if typed in str(p)]
    found = starts or holds
    return found[0] if found else None
