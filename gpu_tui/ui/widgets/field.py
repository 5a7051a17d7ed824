"""A text field that takes text only once entered, so every key keeps its meaning until then."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widgets import Input

EDIT_KEYS = frozenset(
    key.strip()
    for binding in Input.BINDINGS
    if isinstance(binding, Binding) and binding.action not in ("submit", "copy")
    for key in binding.key.split(",")
)
"""Keys that only make sense inside text (←→, Home, End, Backspace, Delete, Ctrl+U, …): pressed
on a field that is not being edited, they start editing it and then do their job there."""


NUMBER_START = frozenset("0123456789.-")
"""What a number can start with (``takes_digits``)."""


class Field(Input):
    """An ``Input`` with two states. Focused, it is only *selected*: pane keys, ``?``, ``q`` and
    the view's own letters act as everywhere else. It takes text once *entered*: Enter, a
    click, a paste, a key that only edits text, or a printable key that means nothing here
    (which is then typed). While entered, every printable key is text; Esc leaves the field (and
    goes on to the view, which moves the keyboard out of the form), Enter confirms.

    ``enter_edits=False`` is for a dialog whose whole point is its one field: there Enter
    accepts what the field shows, and any other way in starts editing.

    ``takes_digits`` is for a field that holds a number (a price, a context length, a size such
    as 70B): a digit, ``.`` or ``-`` typed on it starts editing, though the digits also choose
    panes elsewhere, since that is what a person typing a number there means.
    """

    # Selected, a field shows its text highlighted and no cursor; entered, the cursor blinks.
    DEFAULT_CSS = """
    Field {
        & > .input--cursor {
            background: transparent;
            color: $foreground;
            text-style: none;
        }
        &.-editing > .input--cursor {
            background: $input-cursor-background;
            color: $input-cursor-foreground;
            text-style: $input-cursor-text-style;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "edit", "Edit"),
        Binding("enter", "submit", "Done"),
    ]

    editing: reactive[bool] = reactive(False, init=False)

    def __init__(
        self,
        value: str | None = None,
        *,
        enter_edits: bool = True,
        takes_digits: bool = False,
        **kwargs: Any,
    ):
        super().__init__(value, **kwargs)
        self.enter_edits = enter_edits
        self.takes_digits = takes_digits

    def check_consume_key(self, key: str, character: str | None) -> bool:
        # Only an entered field hides the app's and the view's printable keys from the chain;
        # a number's field hides the digits too, which start editing it.
        if self.takes_digits and character is not None and character in NUMBER_START:
            return True
        return self.editing and super().check_consume_key(key, character)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "edit":
            return self.enter_edits and not self.editing
        if action == "submit":
            return self.editing or not self.enter_edits
        return True

    def watch_editing(self, editing: bool) -> None:
        self.set_class(editing, "-editing")
        if not editing:
            self.select_all()  # selected again: a letter typed now replaces the whole value
        self.refresh_bindings()

    def edit(self) -> None:
        """Enter the field: from now on printable keys are text."""
        self.editing = True

    def action_edit(self) -> None:
        self.edit()

    async def action_submit(self) -> None:
        self.editing = False
        await super().action_submit()

    async def _on_key(self, event: events.Key) -> None:
        # Input's private key handler (see ``textual_internals``, entry 6)
        if self.editing:
            if event.key == "escape":
                self.editing = False  # and the view's Esc (to its results, or close) still runs
            return
        if event.key in EDIT_KEYS or (self.takes_digits and event.character in NUMBER_START):
            self.edit()
            return
        if event.is_printable:
            bound = self.screen.active_bindings.get(event.key)
            if bound is not None and bound.node is not self:
                event.prevent_default()  # the key means something here: not text
            else:
                self.edit()  # a letter nothing uses: the person is typing

    def on_mouse_down(self) -> None:
        self.edit()

    def on_paste(self) -> None:
        self.edit()

    def on_blur(self) -> None:
        if self.app.app_focus:  # a terminal that lost focus keeps the field as it was
            self.editing = False
