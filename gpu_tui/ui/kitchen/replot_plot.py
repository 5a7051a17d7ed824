"""A PlotextPlot that can be redrawn with new data (textual-plotext has no replot())."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import RenderResult
from textual.geometry import Size
from textual_plotext import PlotextPlot
from textual_plotext.plot import Plot

Draw = Callable[[Plot, Size], None]
"""Draws into the plot at the size it will have (to fit its axis labels to the rows)."""


class ReplotPlot(PlotextPlot):
    """``replot(draw)`` swaps in a drawing function; the built plot is cached per size and theme.

    PlotextPlot rebuilds the whole figure on every render; building takes milliseconds, so it
    happens here only when the data, the size or the theme changed.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._draw: Draw | None = None
        self._cache: tuple[object, Text] | None = None
        self.builds = 0  # how many times the figure was really built (tests, benchmarks)

    def replot(self, draw: Draw) -> None:
        self._draw = draw
        self._cache = None
        self.refresh()

    def render(self) -> RenderResult:
        key = (self.size, self.app.theme)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        self.plt.clear_figure()
        if self._draw is not None:
            self._draw(self.plt, self.size)
        text = super().render()
        assert isinstance(text, Text)
        self.builds += 1
        self._cache = (key, text)
        return text
