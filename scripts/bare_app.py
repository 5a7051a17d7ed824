#!/usr/bin/env python3
"""The yardstick for gpu-tui's budgets: a bare Textual app (header, label, 1 s timer).

With ``--repaint-rows N`` it also repaints N full-width rows every second (ready-made strips,
so nothing but Textual's own work): what repainting alone costs, to set beside the Monitor.
"""

from __future__ import annotations

import argparse

from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Header, Label


class Rows(Widget):
    """Rows of graph-like cells that swap between two looks each time ``flip`` is called."""

    DEFAULT_CSS = "Rows { height: 1fr; }"

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count
        self.look = 0
        cells = "▁▂▃▄▅▆▇█" * 40
        self.looks = [
            [Segment(cells[i % 8 :][:300], Style(color="green")) for i in range(8)],
            [Segment(cells[::-1][i % 8 :][:300], Style(color="red")) for i in range(8)],
        ]

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        return Strip([self.looks[self.look][y % 8]]).crop(0, width).extend_cell_length(width)

    def flip(self) -> None:
        self.look ^= 1
        self.refresh(Region(0, 0, self.size.width, self.count))


class BareApp(App[None]):
    def __init__(self, repaint_rows: int = 0) -> None:
        super().__init__()
        self.repaint_rows = repaint_rows

    def compose(self) -> ComposeResult:
        yield Header()
        yield Label("bare app ready")
        if self.repaint_rows:
            yield Rows(self.repaint_rows)

    def on_mount(self) -> None:
        self.ticks = 0
        self.set_interval(1.0, self.tick)

    def tick(self) -> None:
        self.ticks += 1
        if self.repaint_rows:
            self.query_one(Rows).flip()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repaint-rows", type=int, default=0)
    BareApp(parser.parse_args().repaint_rows).run()
