"""The benchmark checklist: a ticked box reads ✓, an unticked one is empty and its name dim."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.strip import Strip
from textual.widgets import SelectionList

TICK = "✓"
BOX = "X"  # what SelectionList draws in every box (ToggleButton.BUTTON_INNER, not exported)


class BenchList(SelectionList[str]):
    """Textual draws the same X in every box and tells them apart by colour alone, which
    256-colour terminals and screenshots lose: here the glyph itself says ticked or not."""

    BINDINGS = [  # noqa: RUF012 — Textual API
        Binding("space", "select", "Tick / untick", show=False, tooltip="the benchmark"),
    ]

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        index = self.scroll_offset.y + y
        if not 0 <= index < self.option_count:
            return line
        ticked = self.get_option_at_index(index).value in self.selected
        segments = list(line)
        for at, segment in enumerate(segments[:4]):
            if segment.text == BOX:
                segments[at] = Segment(TICK if ticked else " ", segment.style, segment.control)
                break
        if not ticked:  # the name dimmed too: "not in this run" at a glance
            dim = Style(dim=True)
            segments[4:] = [
                Segment(s.text, (s.style or Style()) + dim, s.control) for s in segments[4:]
            ]
        return Strip(segments, line.cell_length)
