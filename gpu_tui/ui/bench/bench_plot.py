"""A plotext plot of one bench view, redrawn at most a few times a second and only when shown."""

from __future__ import annotations

import math
import time

from rich.text import Text
from textual.app import RenderResult
from textual.color import Color
from textual.reactive import reactive
from textual.timer import Timer
from textual_plotext import PlotextPlot
from textual_plotext.plot import Plot

from gpu_tui.core.units import format_binary_count, format_byte_tick
from gpu_tui.ui.bench.plot_spec import PlotSpec
from gpu_tui.ui.widgets.axis_ticks import linear_ticks

MIN_REDRAW_SECONDS = 0.4
"""Results can arrive many times a second; the plot follows at most ~2.5 times a second."""
PALETTE = ("primary", "warning", "success", "accent", "secondary", "error")


class BenchPlot(PlotextPlot, can_focus=True):
    """``show(spec)`` hands it new data; textual-plotext has no replot(), so this is one.

    The figure is built in ``render`` only when the data, size or theme changed, and data
    changes are coalesced so a burst of results costs one redraw.
    """

    shown: reactive[bool] = reactive(False)
    """Set by the pane: False while the plot is off screen (another view or another tab)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.spec: PlotSpec | None = None
        self.builds = 0
        self._dirty = False
        self._last = 0.0
        self._timer: Timer | None = None
        self._cache: tuple[object, Text] | None = None

    def show(self, spec: PlotSpec) -> None:
        self.spec = spec
        self._dirty = True
        self._schedule()

    def watch_shown(self, shown: bool) -> None:
        if shown:
            self._schedule()

    def _schedule(self) -> None:
        if not self.shown or self._timer is not None or not self._dirty:
            return
        wait = self._last + MIN_REDRAW_SECONDS - time.monotonic()
        if wait <= 0:
            self._flush()
        else:
            self._timer = self.set_timer(wait, self._flush)

    def _flush(self) -> None:
        self._timer = None
        if not self._dirty:
            return
        self._dirty = False
        self._last = time.monotonic()
        self._cache = None
        self.refresh()

    def _colour(self, index: int) -> tuple[int, int, int]:
        name = PALETTE[index % len(PALETTE)]
        return Color.parse(self.app.theme_variables.get(name, "white")).rgb

    def legend(self, spec: PlotSpec) -> Text:
        """Which colour is which series, on one line under the plot (a compared run's dotted)."""
        legend = Text()
        current = [s for s in spec.series if not s.baseline and s.xs]
        baseline = [s for s in spec.series if s.baseline and s.xs]
        for mark, group in (("━━", current), ("┅┅", baseline)):
            for index, series in enumerate(group):
                if legend:
                    legend.append("  ")
                legend.append(mark, style=Color(*self._colour(index)).rich_color.name)
                legend.append(f" {series.label}")
        return legend

    def render(self) -> RenderResult:
        spec = self.spec
        if spec is None or not spec.has_data:
            return Text(spec.note if spec and spec.note else "No results to plot yet.", "italic")
        key = (self.size, self.app.theme, id(spec))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        self.plt.clear_figure()
        try:
            self._draw(self.plt, spec)
            text = super().render()
        except Exception as error:  # a plotext corner case must never take the app down
            return Text(f"(plot unavailable: {type(error).__name__}) {spec.note}", "italic")
        assert isinstance(text, Text)
        self.builds += 1
        self._cache = (key, text)
        return text

    def _draw(self, plt: Plot, spec: PlotSpec) -> None:
        # The border carries the title: one more row for data at 80x24.
        if spec.bars:
            labels = [label for label, _ in spec.bars]
            values = [value for _, value in spec.bars]
            plt.bar(labels, values, orientation="horizontal", color=self._colour(0), width=0.3)
            plt.xlabel(spec.ylabel)
            return
        xs = [x for s in spec.series for x in s.xs]
        current = [s for s in spec.series if not s.baseline]
        # No plotext legend: it sits over the data's top-left corner; ``legend`` says it below.
        for index, series in enumerate(current):
            marker = "braille" if len(series.xs) > 1 else "o"
            plt.plot(series.xs, series.ys, color=self._colour(index), marker=marker)
        for index, series in enumerate(s for s in spec.series if s.baseline):
            plt.plot(series.xs, series.ys, color=self._colour(index), marker="dot")
        for offset, (y, label) in enumerate(spec.hlines):
            colour = self._colour(len(PALETTE) - 1 - offset)
            plt.hline(y, color=colour)
            plt.text(f"{label} {y:.3g}", x=min(xs), y=y, color=colour, alignment="left")
        for x, _ in spec.vlines:
            plt.vline(x, color=self._colour(len(PALETTE) - 1))
        if spec.xlog:
            plt.xscale("log")
        if spec.ylog:
            plt.yscale("log")
        if spec.xticks:
            tick = format_byte_tick if spec.xbytes else format_binary_count
            plt.xticks(list(spec.xticks), [tick(x) for x in spec.xticks])
        if len(set(xs)) > 1 and not spec.xlog:  # plotext 5.3 fails on xlim with a log axis
            plt.xlim(min(xs), max(xs))
        ys = [y for s in spec.series for y in s.ys if y > 0] + [y for y, _ in spec.hlines if y > 0]
        ticks = _log_ticks(ys) if spec.ylog else linear_ticks(max(ys, default=0))
        if ticks:
            plt.yticks(ticks, [f"{t:g}" for t in ticks])
        plt.xlabel(spec.xlabel)
        plt.ylabel(spec.ylabel)


def _log_ticks(ys: list[float]) -> list[float]:
    """Decades: plotext labels a log axis with exponents, which few people read. Only those
    inside the data's range (plotext draws one outside on the axis or the label row below);
    1-2-5 steps when fewer than two decades fall inside."""
    if not ys:
        return []
    low, high = min(ys), max(ys)
    exponents = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    for mantissas in ((1,), (1, 2, 5)):
        ticks = [m * 10.0**e for e in exponents for m in mantissas if low <= m * 10.0**e <= high]
        if len(ticks) >= 2:
            return ticks
    return []  # a range too narrow for round numbers: plotext's own ticks
