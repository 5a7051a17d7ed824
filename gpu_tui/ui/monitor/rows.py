"""A widget drawn row by row (Textual's Line API): a tick repaints only the rows it changed."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

_UNBUILT = Size(-1, -1)


def same(a: Text, b: Text) -> bool:
    """Whether two rows look the same (Rich's ``==`` ignores a Text's base style)."""
    return a.plain == b.plain and a.style == b.style and a.spans == b.spans


class RowsWidget(Widget):
    """Subclasses build their rows as Rich ``Text`` in ``build_rows``; this class draws them.

    Textual's ``render`` path turns the whole widget into strips again on every refresh (2–3 ms
    a widget, every second), although a tick mostly changes a few numbers. Here ``update_rows``
    compares the new rows with the shown ones and marks only the changed lines dirty; each row
    becomes a ``Strip`` once, when it is first drawn.
    """

    PART_PREFIX: ClassVar[str] = ""
    """Component classes are ``{PART_PREFIX}--{part}``."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rows: list[Text] = []
        self._strips: list[Strip | None] = []
        self._built = _UNBUILT
        """The content size the rows were built for; unbuilt after a style change."""
        self._parts: dict[str, Style] = {}
        self._base: Style | None = None

    def build_rows(self, width: int, height: int) -> list[Text]:
        """The rows to show in a content area of ``width`` × ``height`` cells."""
        raise NotImplementedError

    def part(self, name: str) -> Style:
        """A component style, resolved once: each CSS lookup costs ~0.3 ms, a frame needs dozens."""
        style = self._parts.get(name)
        if style is None:
            style = self.get_component_rich_style(f"{self.PART_PREFIX}--{name}")
            self._parts[name] = style
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        # A new theme or class: the rows hold resolved colours, so build them again.
        self._parts.clear()
        self._base = None
        self._built = _UNBUILT
        self.refresh()

    @property
    def rows(self) -> list[Text]:
        """The rows as shown now."""
        self._ensure_built()
        return self._rows

    def render(self) -> Text:
        """Every row as one Text (for tests and text export); the screen uses ``render_line``."""
        return Text("\n").join(self.rows)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.build_rows(width, self.size.height))

    def update_rows(self) -> None:
        """Build the rows for the current size and repaint only those that changed."""
        size = self.size
        rows = self.build_rows(size.width, size.height)
        old, was_built = self._rows, self._built == size
        self._rows, self._built = rows, size
        if not was_built or len(rows) != len(old):
            self._strips = [None] * len(rows)
            self.refresh(layout=len(rows) != len(old))  # the row count is an auto height
            return
        dirty = []
        for y, (new, shown) in enumerate(zip(rows, old, strict=True)):
            if not same(new, shown):
                self._strips[y] = None
                dirty.append(Region(0, y, size.width, 1))
        if dirty:
            self.refresh(*dirty)

    def _ensure_built(self) -> None:
        size = self.size
        if self._built != size:
            self._rows = self.build_rows(size.width, size.height)
            self._strips = [None] * len(self._rows)
            self._built = size

    def render_line(self, y: int) -> Strip:
        self._ensure_built()
        width = self.size.width
        base = self._base
        if base is None:  # walks every ancestor's styles: once per style change, not per line
            base = self._base = self.rich_style
        if y >= len(self._rows):
            return Strip.blank(width, base)
        strip = self._strips[y]
        if strip is None:
            text = self._rows[y]
            if text.spans:
                segments = list(text.render(self.app.console))
            else:  # Rich drops the base style of a Text without spans
                segments = [Segment(text.plain, self.app.console.get_style(text.style))]
            strip = Strip(segments, text.cell_len).apply_style(base).adjust_cell_length(width, base)
            self._strips[y] = strip
        return strip
