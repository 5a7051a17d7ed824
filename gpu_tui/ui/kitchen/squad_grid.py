"""The brigade drawn as a grid of squads of 32 cooks (warps), one colour per squad state."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum

from rich.segment import Segment
from rich.style import Style
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from gpu_tui.core.kitchen.conveyor import SQUAD, CookCounts


class SquadState(IntEnum):
    BRIEFING = 0
    COOKING = 1
    WAITING = 2
    DONE = 3
    HALLWAY = 4


STATE_NAMES = ("briefing", "cooking", "waiting", "done", "hallway")


def squad_state(counts: CookCounts, hallway: bool = False) -> SquadState:
    """A squad (warp) is as busy as its busiest cook: SIMT issues it while any lane works."""
    if hallway:
        return SquadState.HALLWAY
    if counts.briefing:
        return SquadState.BRIEFING
    if counts.cooking:
        return SquadState.COOKING
    if counts.waiting:
        return SquadState.WAITING
    return SquadState.DONE


@dataclass(frozen=True)
class GridLayout:
    """How squads map to the widget: glyph per cell, cells per row, how many kitchens fit."""

    glyph: str  # what one cell draws; "" means half-block pixels (two cells per character)
    cols: int  # cells per row
    group: int  # squads merged into one cell (1 unless even half-blocks cannot fit them all)
    kitchens: int  # kitchens drawn (the rest do the same work)
    label: int  # columns for the kitchen number
    total: int = 1  # kitchens in all

    @property
    def note(self) -> str:
        """The line under the grid: what one cell is (squads of 32 cooks: a GPU's warps), and
        which kitchens are left out."""
        cell = "one squad" if self.group == 1 else f"{self.group} squads"
        parts = [f"one cell = {cell} of {SQUAD} cooks"]
        if self.total > self.kitchens:
            parts.append(f"+{self.total - self.kitchens} more kitchens doing the same")
        return " · ".join(parts)

    @property
    def half(self) -> bool:
        return not self.glyph


# Roomiest first: separate blocks read as a grid on a projector; half-blocks pack 2 per cell.
GLYPHS = ("▇▇ ", "▇ ", "█", "")


def plan_layout(width: int, height: int, squads: int, kitchens: int) -> GridLayout:
    """The roomiest layout that shows every squad of enough kitchens (all, or at least 8)."""
    label = 4 if kitchens > 1 else 0
    width, height = max(1, width - label), max(1, height)
    want = min(kitchens, 8)
    for glyph in GLYPHS:
        cols = max(1, width // max(1, len(glyph)))
        rows = math.ceil(squads / cols)
        char_rows = rows if glyph else math.ceil(rows / 2)
        shown = min(kitchens, height // char_rows)
        if shown < kitchens:  # keep a line for "+N more kitchens"
            shown = min(kitchens, (height - 1) // char_rows)
        if shown >= want:
            return GridLayout(glyph, cols, 1, shown, label, kitchens)
    # Even half-blocks are too few: merge squads so one kitchen (at least) fills the area.
    room = max(1, height - 1)  # the note line says how many squads one cell holds
    shown = min(kitchens, room) if kitchens > 1 else 1
    rows_each = max(1, room // shown) * 2
    group = math.ceil(squads / (width * rows_each))
    return GridLayout("", width, group, shown, label, kitchens)


class SquadGrid(Widget):
    """Cells per kitchen, set by the race each frame; draws only when the cells change."""

    class Resized(Message):
        """The grid's area changed: the race must plan its cells again (a hidden pane shown
        again, a terminal resized), even when the race itself no longer moves."""

    COMPONENT_CLASSES = {f"squad-grid--{name}" for name in STATE_NAMES}  # noqa: RUF012
    DEFAULT_CSS = "SquadGrid { height: 1fr; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.layout_plan = GridLayout("▇▇ ", 1, 1, 1, 0)
        self.cells: tuple[tuple[SquadState, ...], ...] = ()
        self._strips: list[Strip] = []

    def plan(self, squads: int, kitchens: int) -> GridLayout:
        self.layout_plan = plan_layout(self.size.width, self.size.height, squads, kitchens)
        return self.layout_plan

    def show(self, cells: tuple[tuple[SquadState, ...], ...]) -> None:
        if cells == self.cells and self._strips:
            return
        self.cells = cells
        self._strips = self._build()
        self.refresh()

    def on_resize(self) -> None:
        self._strips = self._build()
        self.post_message(self.Resized())

    def _styles(self) -> list[Style]:
        return [self.get_component_rich_style(f"squad-grid--{name}") for name in STATE_NAMES]

    def _build(self) -> list[Strip]:
        plan, styles = self.layout_plan, self._styles()
        base = self.rich_style
        lines: list[Strip] = []
        for number, kitchen in enumerate(self.cells[: plan.kitchens]):
            rows = [kitchen[i : i + plan.cols] for i in range(0, len(kitchen), plan.cols)]
            lines_of_kitchen: list[list[Segment]] = []
            if plan.half:
                for i in range(0, len(rows), 2):
                    bottom = rows[i + 1] if i + 1 < len(rows) else ()
                    lines_of_kitchen.append(_half_segments(rows[i], bottom, styles, base))
            else:
                lines_of_kitchen = [_glyph_segments(row, plan.glyph, styles) for row in rows]
            for index, segments in enumerate(lines_of_kitchen):
                if plan.label:
                    label = f"K{number + 1}" if index == 0 else ""
                    segments.insert(0, Segment(label.ljust(plan.label), base))
                lines.append(Strip(segments))
        if plan.note:
            lines.append(Strip([Segment(plan.note, base + Style(italic=True))]))
        return lines

    def render_line(self, y: int) -> Strip:
        if y < len(self._strips):
            return self._strips[y].extend_cell_length(self.size.width, self.rich_style)
        return Strip.blank(self.size.width, self.rich_style)


def _glyph_segments(row: tuple[SquadState, ...], glyph: str, styles: list[Style]) -> list[Segment]:
    """Runs of equal cells become one segment each (fewer segments, cheaper frames)."""
    out: list[Segment] = []
    start = 0
    for i in range(1, len(row) + 1):
        if i == len(row) or row[i] != row[start]:
            out.append(Segment(glyph * (i - start), styles[row[start]]))
            start = i
    return out


def _half_segments(
    top: tuple[SquadState, ...], bottom: tuple[SquadState, ...], styles: list[Style], base: Style
) -> list[Segment]:
    out: list[Segment] = []
    empty = base.bgcolor
    for i, cell in enumerate(top):
        below = styles[bottom[i]].color if i < len(bottom) else empty
        out.append(Segment("▀", Style(color=styles[cell].color, bgcolor=below)))
    return list(Segment.simplify(out))
