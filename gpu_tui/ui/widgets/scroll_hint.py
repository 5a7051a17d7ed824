"""A scrolling list's or table's bottom border says what lies out of sight, and how to reach it:
``↑ 9 · ↓ 12 more rows`` while it has the keyboard, ``↓ 21 more rows: Enter, then ↑↓`` when
another widget has it. Nothing when everything fits."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from textual.widgets import DataTable

from gpu_tui.ui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from textual.scroll_view import ScrollView

    _Base = ScrollView
else:
    _Base = object  # a plain mixin: a second Widget base would lose the widget's CSS parts


def out_of_sight(spans: Iterable[tuple[int, int]], top: float, bottom: float) -> tuple[int, int]:
    """How many items lie wholly above ``top`` and wholly below ``bottom``, each given as its
    first line and its height (an item partly in view counts as in view)."""
    above = below = 0
    for start, height in spans:
        above += start + height <= top
        below += start >= bottom
    return above, below


class ScrollHint(_Base):
    """Mix into a ScrollView (DataTable, OptionList) before the widget class."""

    HINT_UNIT = "rows"
    """What is counted; empty: the hint says only where more lies (``↓ more``)."""
    HINT_REACH = "Enter, then ↑↓"
    """How to reach the rest from elsewhere; empty when the widget usually has the keyboard."""
    HINT_KEYS = ""
    """The widget's own keys, said after where the rest lies (or alone when all fits)."""

    def hint_counts(self) -> tuple[int, int]:
        """How much lies above and below the view: a table's rows, another widget's lines.
        A widget that counts other things (a chart's bars) gives their spans to
        :func:`out_of_sight` here."""
        if not isinstance(self, DataTable):
            return round(self.scroll_y), round(self.max_scroll_y - self.scroll_y)
        top = self.scroll_y
        bottom = top + self.scrollable_content_region.height - self.header_height
        spans, start = [], 0
        for row in self.ordered_rows:  # rows may be taller than one line (wrapped values)
            spans.append((start, row.height))
            start += row.height
        return out_of_sight(spans, top, bottom)

    def show_hint(self) -> None:
        above, below = self.hint_counts()
        if not above and not below:
            self.border_subtitle = self.HINT_KEYS or None
            return
        count = bool(self.HINT_UNIT)
        where = [f"↑ {above}" if count else "↑"] if above else []
        where += [f"↓ {below}" if count else "↓"] if below else []
        # "↓ 1 more input", "↑ 1 · ↓ 3 more inputs": the unit agrees with the largest count.
        unit = self.HINT_UNIT.removesuffix("s") if max(above, below) == 1 else self.HINT_UNIT
        text = f"{' · '.join(where)} more {unit}".rstrip()
        if self.HINT_REACH and not self.has_focus:
            text += f": {self.HINT_REACH}"
        self.border_subtitle = f"{text} · {self.HINT_KEYS}" if self.HINT_KEYS else text

    def on_resize(self) -> None:
        self.call_after_refresh(self.show_hint)

    def watch_virtual_size(self) -> None:
        self.call_after_refresh(self.show_hint)  # new content is measured a pass later

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.show_hint()

    def watch_has_focus(self, has_focus: bool) -> None:
        super().watch_has_focus(has_focus)
        self.show_hint()


class HintedTable(ScrollHint, RowTable):
    """A DataTable whose border says how many rows lie out of sight, Home/End going to the
    first/last row; ``reach`` is how to get the keyboard to it from elsewhere, ``keys`` its
    own keys."""

    def __init__(
        self, *, reach: str = ScrollHint.HINT_REACH, keys: str = "", **options: Any
    ) -> None:
        super().__init__(**options)
        self.HINT_REACH, self.HINT_KEYS = reach, keys
