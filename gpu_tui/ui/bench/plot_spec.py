"""A bench plot as plain data: its series, and the spec (axes, reference lines, bars, note).

Shared by the plot builders (``plot_data`` for the suites, ``comm_plot`` for collectives) and
the widget that draws them (``bench_plot``).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Series:
    label: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    baseline: bool = False


@dataclass(frozen=True)
class PlotSpec:
    view: str
    title: str
    xlabel: str = ""
    ylabel: str = ""
    xlog: bool = False
    ylog: bool = False
    series: tuple[Series, ...] = ()
    hlines: tuple[tuple[float, str], ...] = ()
    vlines: tuple[tuple[float, str], ...] = ()
    bars: tuple[tuple[str, float], ...] = ()
    note: str = ""
    xticks: tuple[float, ...] = field(default=())
    xbytes: bool = False
    """The x axis is in bytes: its ticks read in the size unit shown, else as counts."""

    @property
    def has_data(self) -> bool:
        return bool(self.bars) or any(s.xs for s in self.series)
