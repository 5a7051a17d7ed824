"""Three plots for what the race cannot show: Amdahl vs Gustafson, the crossover, scaling."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.color import Color
from textual.containers import Horizontal
from textual_plotext.plot import Plot

from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.core.kitchen.report import number
from gpu_tui.ui.kitchen.plot_data import kitchen_curves, law_curves, log_ticks, size_curves
from gpu_tui.ui.kitchen.replot_plot import ReplotPlot

RGB = tuple[int, int, int]


class KitchenPlots(Horizontal):
    """The pane calls ``update_params`` when the parameters change and the plots are visible."""

    def compose(self) -> ComposeResult:
        yield ReplotPlot(id="plot-laws")
        yield ReplotPlot(id="plot-size")
        yield ReplotPlot(id="plot-kitchens")

    def _colour(self, variable: str) -> RGB:
        return Color.parse(self.app.theme_variables.get(variable, "white")).rgb

    def update_params(self, params: KitchenParams) -> None:
        chef, brigade, mark = self._colour("accent"), self._colour("success"), self._colour("error")
        laws = law_curves(params)
        size = size_curves(params)
        scaling = kitchen_curves(params)

        def log_axes(plt: Plot, xs: list[int], ys: list[float]) -> None:
            plt.xscale("log")
            plt.yscale("log")
            plt.xticks(*log_ticks(min(xs), max(xs)))
            plt.yticks(*log_ticks(min(ys), max(ys)))

        def draw_laws(plt: Plot) -> None:
            share = f"{float(laws.serial):.0%}" + (" (example)" if laws.example else "")
            plt.title(f"Amdahl vs Gustafson · serial share {share}")
            log_axes(plt, laws.workers, laws.amdahl + laws.gustafson)
            plt.plot(laws.workers, laws.gustafson, label="Gustafson: job grows", color=brigade)
            plt.plot(laws.workers, laws.amdahl, label="Amdahl: fixed job", color=chef)
            plt.xlabel("cooks")

        def draw_size(plt: Plot) -> None:
            title = "time vs tasks" + (f" ({size.borrowed})" if size.borrowed else "")
            if size.crossover:
                title += f" · brigade wins from {number(size.crossover)}"
            plt.title(title)
            log_axes(plt, size.tasks, size.chef + size.brigade)
            plt.plot(size.tasks, size.chef, label="chef", color=chef)
            plt.plot(size.tasks, size.brigade, label="brigade", color=brigade)
            if size.crossover:
                plt.vline(size.crossover, mark)
            plt.xlabel("tasks")

        def draw_kitchens(plt: Plot) -> None:
            source = f" ({scaling.borrowed})" if scaling.borrowed else ""
            plt.title(f"kitchens{source} · best {scaling.best}")
            label = "speed-up vs 1 kitchen"
            plt.plot(scaling.kitchens, scaling.speedup, label=label, color=brigade)
            plt.vline(scaling.best, mark)
            plt.xlabel("kitchens")

        self.query_one("#plot-laws", ReplotPlot).replot(draw_laws)
        self.query_one("#plot-size", ReplotPlot).replot(draw_size)
        self.query_one("#plot-kitchens", ReplotPlot).replot(draw_kitchens)
