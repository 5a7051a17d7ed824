"""Three plots for what the race cannot show: Amdahl vs Gustafson, the crossover, scaling.

Each plot sits in a box of its own with its title on the frame and its legend inside; plotext
drops a title or a legend it cannot fit, so neither is left to it. Where three boxes would be
too narrow to read (under ``SIDE_BY_SIDE`` columns) they are shown one at a time.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.color import Color
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.widgets import Static
from textual_plotext.plot import Plot

from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.core.units import format_percent
from gpu_tui.ui.kitchen.plot_data import kitchen_curves, law_curves, size_curves
from gpu_tui.ui.kitchen.replot_plot import ReplotPlot
from gpu_tui.ui.widgets.axis_ticks import linear_ticks, log_ticks, spanning_log_ticks

RGB = tuple[int, int, int]
SIDE_BY_SIDE = 120  # columns from which the three plots fit beside each other (40 each)
PLOTS = (
    ("plot-laws", "Amdahl vs Gustafson"),
    ("plot-size", "time vs tasks"),
    ("plot-kitchens", "speed-up vs kitchens"),
)


class KitchenPlots(Horizontal):
    """The pane calls ``update_params`` when the parameters change and the plots are visible,
    and ``show_page`` to show the three together (``None``) or one alone."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.page: int | None = None
        self._pending: KitchenParams | None = None  # asked for before the boxes were there

    def compose(self) -> ComposeResult:
        for plot_id, title in PLOTS:
            with Vertical(id=f"{plot_id}-box", classes="plot-box") as box:
                box.border_title = title
                yield Static(id=f"{plot_id}-legend", classes="plot-legend")
                yield ReplotPlot(id=plot_id)

    def on_mount(self) -> None:
        self.show_page(self.page)
        if self._pending is not None:
            self.update_params(self._pending)

    def show_page(self, page: int | None) -> None:
        """All three side by side, or plot ``page`` alone with the key to the next one."""
        self.page = page
        for i, box in enumerate(self.query(".plot-box")):
            box.display = page is None or page == i
            last = i == len(PLOTS) - 1
            more = "g: back to the race" if last else "g: next plot"
            box.border_subtitle = None if page is None else f"{i + 1}/{len(PLOTS)} · {more}"

    def _colour(self, variable: str) -> RGB:
        return Color.parse(self.app.theme_variables.get(variable, "white")).rgb

    def _legend(self, plot_id: str, entries: list[tuple[RGB, str, str]], note: str = "") -> None:
        """``━━ chef  ━━ brigade  │ brigade wins from 8``: glyph, colour and label per entry."""
        text = Text()
        for rgb, glyph, label in entries:
            if text:
                text.append("  ")
            text.append(f"{glyph} ", f"rgb({rgb[0]},{rgb[1]},{rgb[2]})")
            text.append(label)
        if note:
            text.append(f" {note}", "dim")
        self.query_one(f"#{plot_id}-legend", Static).update(text)

    def update_params(self, params: KitchenParams) -> None:
        if not self.query(".plot-legend"):  # mounted, but its boxes not yet composed
            self._pending = params
            return
        self._pending = None
        chef, brigade, mark = self._colour("accent"), self._colour("success"), self._colour("error")
        laws = law_curves(params)
        size = size_curves(params)
        scaling = kitchen_curves(params)

        def log_axes(plt: Plot, size: Size, xs: list[int], ys: list[float]) -> None:
            plt.xscale("log")
            plt.yscale("log")
            plt.xticks(*log_ticks(min(xs), max(xs), most=max(2, size.width // 6)))
            # a label every second row at most: the canvas is the height less 4 rows of axes
            ticks, labels = spanning_log_ticks(
                min(ys), max(ys), most=max(2, (size.height - 3) // 2)
            )
            plt.yticks(ticks, labels)
            # the axis from the first label to the last (plotext's ylim fails on a log axis):
            # two blank points there
            plt.scatter([xs[0], xs[0]], [ticks[0], ticks[-1]], marker=" ")

        def draw_laws(plt: Plot, size: Size) -> None:
            log_axes(plt, size, laws.workers, laws.amdahl + laws.gustafson)
            plt.plot(laws.workers, laws.gustafson, color=brigade)
            plt.plot(laws.workers, laws.amdahl, color=chef)
            plt.xlabel("cooks")
            plt.ylabel("speed-up ×")

        def draw_size(plt: Plot, room: Size) -> None:
            log_axes(plt, room, size.tasks, size.chef + size.brigade)
            plt.plot(size.tasks, size.chef, color=chef)
            plt.plot(size.tasks, size.brigade, color=brigade)
            if size.crossover:
                plt.vline(size.crossover, mark)
            plt.xlabel("tasks")
            plt.ylabel("model seconds")

        def draw_kitchens(plt: Plot, room: Size) -> None:
            # round speed-ups from 0, one label every second row at most (as on the log axes)
            speedups = linear_ticks(max(scaling.speedup), most=max(2, (room.height - 3) // 2))
            plt.yticks(speedups, [f"{s:g}" for s in speedups])
            plt.ylim(0, speedups[-1])
            top = max(scaling.kitchens)
            step = max(1, top // 4)
            ticks = [1, *range(step, top + 1, step)]
            plt.xticks(ticks, [str(k) for k in ticks])
            plt.plot(scaling.kitchens, scaling.speedup, color=brigade)
            plt.vline(scaling.best, mark)
            plt.xlabel("kitchens")
            plt.ylabel("speed-up ×")

        share = f"serial share {format_percent(float(laws.serial), 0)}"
        self._legend(
            "plot-laws",
            [
                (brigade, "━━", "Gustafson: the job grows"),
                (chef, "━━", "Amdahl: a fixed job"),
            ],
            f"· {share}" + (" (an example: this recipe has none)" if laws.example else ""),
        )
        size_entries = [(chef, "━━", "chef"), (brigade, "━━", "brigade")]
        if size.crossover:
            size_entries.append((mark, "│", f"brigade wins from {size.crossover:,}"))
        borrowed = f"· the {size.borrowed}: this recipe has many phases" if size.borrowed else ""
        self._legend("plot-size", size_entries, borrowed)
        self._legend(
            "plot-kitchens",
            [(brigade, "━━", "speed-up vs 1 kitchen"), (mark, "│", f"best: {scaling.best}")],
            f"· the {scaling.borrowed} scenario: this one has one kitchen"
            if scaling.borrowed
            else "",
        )
        self.query_one("#plot-laws", ReplotPlot).replot(draw_laws)
        self.query_one("#plot-size", ReplotPlot).replot(draw_size)
        self.query_one("#plot-kitchens", ReplotPlot).replot(draw_kitchens)
