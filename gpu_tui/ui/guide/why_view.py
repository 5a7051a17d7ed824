"""Why GPUs work for AI: three short cards with real numbers, each with its sources."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Container, VerticalScroll
from textual.widgets import Static

from gpu_tui.core.guide.metrics import WHY_GPUS, Card
from gpu_tui.ui.guide.versus_view import versus_table


def card_text(card: Card) -> Text:
    """Bullets, then the sources in italics."""
    text = Text()
    for point in card.points:
        text.append("• ", style="bold")
        text.append(point + "\n")
    text.append("sources: " + "; ".join(card.sources), style="italic")
    return text


class WhyView(VerticalScroll):
    """Cards stacked at 80 columns (↑↓ scroll); wide: side by side above GPU vs TPU vs CPU."""

    def compose(self) -> ComposeResult:
        with Container(id="why-cards"):
            for number, card in enumerate(WHY_GPUS, start=1):
                widget = Static(card_text(card), classes="why-card")
                widget.border_title = f"{number} · {card.title}"
                yield widget
        # Shown only when wide (CSS): at 80×24 the comparison has its own section.
        yield Static(versus_table(), id="why-versus")
