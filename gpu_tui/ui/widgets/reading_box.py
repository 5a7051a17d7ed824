"""A bordered box of text that scrolls by keyboard and says, in its border, when more is below."""

from __future__ import annotations

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

MORE = "↓ more: Tab, then ↓"
SCROLLING = "↑↓ PgUp PgDn · Shift+Tab back"
AT_END = "end · Shift+Tab back"


class ReadingBox(VerticalScroll):
    """Holds one Static (``text_id``). Tab reaches it only when its text is taller than the box;
    then ↑↓, PgUp/PgDn, Home/End scroll it, and the border subtitle says so.

    With ``fit``, the box is never taller than its text: the height its CSS gives it is the
    most it takes, and a short text leaves the rest to the widgets around it instead of
    framing blank rows."""

    def __init__(self, *, text_id: str, id: str | None = None, fit: bool = False) -> None:
        super().__init__(id=id)
        self.text_id = text_id
        self.fit = fit

    def compose(self) -> ComposeResult:
        yield _Text(id=self.text_id)

    @property
    def text(self) -> Static:
        return self.query_one(f"#{self.text_id}", Static)

    def update(self, content: RenderableType) -> None:
        """New text, read from its top."""
        self.text.update(content)
        self.scroll_home(animate=False, immediate=True)
        self.call_after_refresh(self.show_hint)

    def allow_focus(self) -> bool:
        return self.max_scroll_y > 0 or self.has_focus

    @property
    def overflows(self) -> bool:
        return self.max_scroll_y > 0

    def show_hint(self) -> None:
        if not self.overflows:
            hint = ""
        elif not self.has_focus:
            hint = MORE
        else:
            hint = AT_END if self.scroll_y >= self.max_scroll_y else SCROLLING
        self.border_subtitle = hint

    def on_resize(self) -> None:
        self.call_after_refresh(self.show_hint)

    def watch_virtual_size(self) -> None:
        # New text is laid out a pass after ``update``: its height is known only here.
        self.call_after_refresh(self.show_hint)

    def fit_text(self) -> None:
        """With ``fit``: cap the box at its text's height (laid out at the box's width, so it
        does not depend on the box's height) plus the border and padding."""
        height = self.text.outer_size.height + self.styles.gutter.height
        self.styles.max_height = height if self.fit else None

    def watch_has_focus(self, has_focus: bool) -> None:
        super().watch_has_focus(has_focus)
        self.show_hint()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.show_hint()


class _Text(Static):
    """The box's text. Its height changes with its words and with the box's width, and only
    it is told (the box's virtual size is never less than the box): it tells the box."""

    def on_resize(self) -> None:
        if isinstance(self.parent, ReadingBox):
            self.parent.fit_text()
