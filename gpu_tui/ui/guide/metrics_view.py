"""The key metrics explained: pick one on the left, read what it means and its sources."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import OptionList, Static

from gpu_tui.core.guide.metrics import KEY_METRICS, Metric
from gpu_tui.ui.widgets.reading_box import ReadingBox


def metric_text(metric: Metric) -> Text:
    """What it is, why it matters, how to read it, and where that comes from."""
    # The name alone in bold: a Text's own style would embolden everything appended to it.
    text = Text()
    text.append(metric.name + "\n", style="bold")
    for label, body in (("What", metric.what), ("Why", metric.why), ("Reading", metric.reading)):
        text.append(f"\n{label}: ", style="bold")
        text.append(body + "\n")
    text.append("\nsources: " + "; ".join(metric.sources), style="italic")
    return text


def overview() -> Table:
    """Every metric and what it is, a line or two each: the whole field at a glance, which a
    wide terminal has the room for under the one being read."""
    table = Table(
        title="All of them at a glance (↑↓ on the left reads one in full)",
        title_justify="left",
        title_style="bold",
        expand=True,
        box=None,
        padding=(0, 1),
        header_style="bold",
    )
    table.add_column("metric", no_wrap=True)
    table.add_column("what it is", ratio=1)
    for metric in KEY_METRICS:
        table.add_row(metric.name, metric.what)
    return table


def all_sources() -> Text:
    """Every document the metrics cite, each once, in the order first cited: titles only, as
    a narrow column would fold an address every few letters (each metric's text gives them)."""
    titles = (source.split(": http")[0] for metric in KEY_METRICS for source in metric.sources)
    return Text("\n".join(f"· {title}" for title in dict.fromkeys(titles)))


class MetricsView(Horizontal):
    """A list of the metrics (↑↓ to move) and the highlighted one explained; wide, all of
    them in brief below it."""

    def compose(self) -> ComposeResult:
        with Vertical(id="metrics-side"):
            yield OptionList(*(m.name for m in KEY_METRICS), id="metrics-list")
            # Shown only when wide (CSS), in the rows the list leaves: every document cited.
            yield ReadingBox(text_id="metrics-sources-text", id="metrics-sources")
        with Vertical(id="metrics-reading"):
            # Taller than the box at 80×24: Tab, then ↓ reads on (the border says so).
            yield ReadingBox(text_id="metrics-text", id="metrics-scroll")
            # Shown only when wide (CSS): at 80×24 the one metric takes the room.
            yield Static(overview(), id="metrics-overview")

    def on_mount(self) -> None:
        metrics = self.query_one("#metrics-list", OptionList)
        metrics.border_title = "Key metrics"
        metrics.highlighted = 0
        sources = self.query_one("#metrics-sources", ReadingBox)
        sources.border_title = "Documents cited"
        sources.update(all_sources())
        self.query_one("#metrics-scroll", ReadingBox).update(metric_text(KEY_METRICS[0]))

    def focus(self, scroll_visible: bool = True) -> MetricsView:
        self.query_one("#metrics-list", OptionList).focus(scroll_visible)
        return self

    @on(OptionList.OptionHighlighted, "#metrics-list")
    def _show(self, event: OptionList.OptionHighlighted) -> None:
        box = self.query_one("#metrics-scroll", ReadingBox)
        box.update(metric_text(KEY_METRICS[event.option_index]))
