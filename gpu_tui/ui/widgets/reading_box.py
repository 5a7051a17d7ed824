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
    then ↑↓, PgUp/PgDn, Home/End scroll it, and the border subtitle says so."""

    def __init__(self, *, text_id: str, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text_id = text_id

    def compose(self) -> ComposeResult:
        yield Static(id=self.text_id)

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

    def watch_has_focus(self, has_focus: bool) -> None:
        super().watch_has_focus(has_focus)
        self.show_hint()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.show_hint()
