#!/usr/bin/env python3
"""The yardstick for gpu-tui's budgets: a bare Textual app (header, label, 1 s timer)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Header, Label


class BareApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        yield Label("bare app ready")

    def on_mount(self) -> None:
        self.ticks = 0
        self.set_interval(1.0, self.tick)

    def tick(self) -> None:
        self.ticks += 1


if __name__ == "__main__":
    BareApp().run()
