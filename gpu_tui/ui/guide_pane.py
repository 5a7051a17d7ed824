"""The Guide pane: the accelerator field with this machine in it, will-it-fit, cloud vs on-prem."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from gpu_tui.ui.guide.bars_view import BarsView
from gpu_tui.ui.guide.catalog_view import CatalogView
from gpu_tui.ui.guide.cost_view import CostView
from gpu_tui.ui.guide.fit_view import FitView
from gpu_tui.ui.guide.metrics_view import MetricsView
from gpu_tui.ui.guide.versus_view import VersusView
from gpu_tui.ui.guide.why_view import WhyView
from gpu_tui.ui.pane import Pane


@dataclass(frozen=True)
class Section:
    """An inner tab: its id suffix, its title (the key letter underlined), the key, and its
    name in words (the ``?`` screen and the command palette)."""

    name: str
    title: str
    key: str
    label: str


SECTIONS: tuple[Section, ...] = (
    Section("catalog", "[u]C[/u]atalog", "c", "Catalog"),
    Section("bars", "[u]B[/u]ars", "b", "Bars"),
    Section("fit", "[u]F[/u]it", "f", "Will it fit"),
    Section("cost", "C[u]o[/u]st", "o", "Cloud vs on-prem cost"),
    Section("why", "[u]W[/u]hy GPUs", "w", "Why GPUs"),
    Section("versus", "GPU [u]v[/u]s TPU/CPU", "v", "GPU vs TPU/CPU"),
    Section("metrics", "[u]M[/u]etrics", "m", "Metrics"),
)


class GuidePane(Pane, can_focus=False):
    """Seven sections in inner tabs; a letter jumps to one, [ and ] step through them."""

    BINDINGS = [  # noqa: RUF012 — Textual API
        *(
            Binding(s.key, f"section('{s.name}')", s.label, show=False, tooltip="section")
            for s in SECTIONS
        ),
        Binding(
            "left_square_bracket",
            "step(-1)",
            "Previous section",
            key_display="[",
            group=Binding.Group("Section"),
        ),
        Binding(
            "right_square_bracket",
            "step(1)",
            "Next section",
            key_display="]",
            group=Binding.Group("Section"),
        ),
    ]

    def compose(self) -> ComposeResult:
        views: dict[str, Widget] = {
            "catalog": CatalogView(id="guide-catalog-view").data_bind(GuidePane.inventory),
            "bars": BarsView(id="guide-bars-view"),
            "fit": FitView(id="guide-fit-view").data_bind(GuidePane.inventory),
            "cost": CostView(id="guide-cost-view"),
            "why": WhyView(id="guide-why-view"),
            "versus": VersusView(id="guide-versus-view"),
            "metrics": MetricsView(id="guide-metrics-view"),
        }
        with TabbedContent(initial="guide-catalog", id="guide-sections"):
            for section in SECTIONS:
                with TabPane(section.title, id=f"guide-{section.name}"):
                    yield views[section.name]

    def focus(self, scroll_visible: bool = True) -> GuidePane:
        self.section_view(self.current_section()).focus(scroll_visible)
        return self

    def current_section(self) -> str:
        active = self.query_one("#guide-sections", TabbedContent).active
        return active.removeprefix("guide-") or SECTIONS[0].name

    def section_view(self, name: str) -> Widget:
        return self.query_one(f"#guide-{name}-view", Widget)

    def action_section(self, name: str) -> None:
        """Show a section and put the keyboard in it (a form's first input, else its content)."""
        self.query_one("#guide-sections", TabbedContent).active = f"guide-{name}"
        self.section_view(name).focus()

    def action_step(self, delta: int) -> None:
        names = [s.name for s in SECTIONS]
        index = names.index(self.current_section())
        self.action_section(names[(index + delta) % len(names)])

    @on(TabbedContent.TabActivated, "#guide-sections")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        # The app listens for its own tabs' activation; the inner tabs' must not reach it.
        event.stop()

    @on(CatalogView.Shown)
    def _catalog_shown(self, message: CatalogView.Shown) -> None:
        self.query_one(BarsView).rows = message.rows
