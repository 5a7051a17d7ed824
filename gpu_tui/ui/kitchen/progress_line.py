"""A progress bar in one line of text, drawn at whatever width the layout gives it."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from gpu_tui.core.units import format_percent


class ProgressLine(Widget):
    """``━━━━───  62 %``. Textual's ProgressBar relayouts on every change; this only repaints,
    and it draws from its own size at render time, so a resize (or a pane shown again after
    the race ended while it was hidden) never leaves a bar drawn for a width it no longer has."""

    DEFAULT_CSS = "ProgressLine { height: 1; }"

    progress: reactive[float] = reactive(0.0)

    def render(self) -> Text:
        width = max(1, self.size.width - 6)
        filled = int(self.progress * width)
        text = Text("━" * filled)
        text.append("─" * (width - filled), "dim")
        text.append(f"{format_percent(self.progress, 0):>5}", "not dim")  # "100 %" whole
        return text
