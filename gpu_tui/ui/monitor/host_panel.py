"""CPU and host memory: total and per-core bars on a fixed 0–100 % scale, clock, load, RAM, swap."""

from __future__ import annotations

import math
from typing import ClassVar

from rich.style import Style
from rich.text import Text

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.monitor.history import History, Series
from gpu_tui.core.monitor.history_window import WINDOWS
from gpu_tui.core.monitor.samples import Sample
from gpu_tui.core.units import (
    format_gigabytes,
    format_reading_percent,
    format_temperature,
    gigabyte_symbol,
)
from gpu_tui.ui.monitor.draw import bar, cells_text, spark
from gpu_tui.ui.monitor.history_cells import HistoryCells, graph_block
from gpu_tui.ui.monitor.rows import RowsWidget

LABEL = 5
"""Width of the row labels (``CPU``, ``RAM``) so bars line up."""
MAX_CORE_ROWS = {False: 4, True: 12}
"""How many rows of per-core bars fit before the cores are drawn one cell each (narrow, wide)."""


def readings_for(sample: Sample) -> list[str]:
    """Clock, load average and temperature, those that are known."""
    cpu = sample.cpu
    parts = []
    if not isinstance(cpu.frequency_mhz, Unknown):
        parts.append(f"{cpu.frequency_mhz / 1000:.2f} GHz")
    if not isinstance(cpu.load_average, Unknown):
        parts.append("load " + " ".join(f"{x:.2f}" for x in cpu.load_average))
    if not isinstance(cpu.temperature_c, Unknown):
        parts.append(format_temperature(cpu.temperature_c))
    return parts


def title_for(sample: Sample, cpu_name: str | None, readings: bool = True) -> str:
    """The panel title: model and core count, then the ``readings_for`` unless left out."""
    parts = [cpu_name or "CPU", f"{len(sample.cpu.per_core_percent)} cores"]
    return " · ".join(parts + (readings_for(sample) if readings else []))


class HostPanel(RowsWidget):
    """Draws the latest host sample against the sampler's history. The pane calls ``show``."""

    PART_PREFIX = "host-panel"
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "host-panel--label",
        "host-panel--fill",
        "host-panel--track",
        "host-panel--graph",
        "host-panel--hot",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sample: Sample | None = None
        self.history: History | None = None
        self.cpu_name: str | None = None
        self.window = (WINDOWS[0] or 60) * 1000
        """The zoom window the history is drawn over, in ms of sampling."""
        self._title = ""
        self._history_cells = HistoryCells()
        self._readings_in_graph = False
        """Whether the rows show ``readings_for`` (above the CPU graph): then the title does
        not. A new title repaints the whole panel, and these change every few seconds."""

    @property
    def core_count(self) -> int:
        return 0 if self.sample is None else len(self.sample.cpu.per_core_percent)

    @property
    def graphs(self) -> bool:
        """Whether the panel draws history graphs (wide, or given the room of a missing GPU)."""
        return self.has_class("-wide") or self.has_class("-fill")

    def show(self, sample: Sample, history: History, cpu_name: str | None, window: int) -> None:
        self.sample, self.history, self.cpu_name, self.window = sample, history, cpu_name, window
        self.update_rows()
        title = title_for(sample, cpu_name, readings=not self._readings_in_graph)
        if title != self._title:  # setting a title repaints the whole panel, so only on change
            self.border_title = self._title = title

    def build_rows(self, width: int, height: int) -> list[Text]:
        self._readings_in_graph = False
        if self.sample is None:
            return [Text("Reading CPU and memory…", style=self.part("label"))]
        return self._lines(width, height)

    def _meter(self, label: str, value: float | None, series: Series, width: int, end: str) -> Text:
        """``LABEL bar number history`` on one row; the bar takes a third of the width."""
        bar_width = max(6, width // 3)
        line = Text(f"{label:<{LABEL}}", style=self.part("label"))
        line.append_text(
            bar(value, bar_width, self.part("fill"), self.part("track"), high=series.high or 0)
        )
        line.append(f" {end:<14}")
        rest = width - line.cell_len - 1
        if rest > 4 and not self.graphs:  # else the graphs show the history
            spark_cells = self._history_cells.spark(series, self.window, rest)
            line.append_text(cells_text((" ", Style.null()), (spark_cells, self.part("graph"))))
        return line

    def _lines(self, width: int, height: int) -> list[Text]:
        sample, history = self.sample, self.history
        assert sample is not None
        assert history is not None
        wide = self.graphs
        cpu, memory = sample.cpu, sample.memory
        lines: list[Text] = []
        lines.append(
            self._meter(
                "CPU",
                cpu.percent,
                history.cpu_percent,
                width,
                format_reading_percent(cpu.percent, width=5),
            )
        )
        lines.extend(self._cores(cpu.per_core_percent, width, wide))
        used, total = memory.used_bytes, memory.total_bytes
        swap_used, swap_total = memory.swap_used_bytes, memory.swap_total_bytes
        mem_end = f"{format_gigabytes(used, symbol=False)}/{format_gigabytes(total)}"
        swap_end = f"{format_gigabytes(swap_used, symbol=False)}/{format_gigabytes(swap_total)}"
        if not swap_total:
            line = self._meter("RAM", used, history.memory_used_bytes, width - 10, mem_end)
            lines.append(line.append("  no swap", style=self.part("label")))
        elif wide or width < 70:
            lines.append(self._meter("RAM", used, history.memory_used_bytes, width, mem_end))
            lines.append(self._meter("SWAP", swap_used, history.swap_used_bytes, width, swap_end))
        else:
            half = (width - 2) // 2
            line = self._meter("RAM", used, history.memory_used_bytes, half, mem_end)
            line.append("  ")
            line.append_text(
                self._meter("SWAP", swap_used, history.swap_used_bytes, half, swap_end)
            )
            lines.append(line)
        if wide:
            return self._with_graphs(lines, width, height)
        return lines

    def _with_graphs(self, meters: list[Text], width: int, height: int) -> list[Text]:
        """On a big screen the spare rows become CPU and memory history, on fixed scales."""
        history = self.history
        assert history is not None
        spare = height - len(meters) - 4  # a caption and a time axis each
        if spare < 4:
            return meters
        cpu_rows = max(2, spare * 3 // 5)
        memory = history.memory_used_bytes
        top = format_gigabytes(int(memory.high), symbol=False) if memory.high else "?"
        assert self.sample is not None
        self._readings_in_graph = True
        return [
            *graph_block(
                " · ".join(["CPU busy, %", *readings_for(self.sample)]),
                history.cpu_percent,
                (width, cpu_rows),
                ("100", "50", "0"),
                self.part,
                self._history_cells,
                self.window,
            ),
            *meters,
            *graph_block(
                f"RAM used, {gigabyte_symbol()} of {top}",
                memory,
                (width, spare - cpu_rows),
                (top, "", "0"),
                self.part,
                self._history_cells,
                self.window,
            ),
        ]

    def _cores(self, percents: tuple[float, ...], width: int, wide: bool) -> list[Text]:
        count = len(percents)
        digits = len(str(max(0, count - 1)))
        bar_width = 10 if wide else 6
        cell = digits + 1 + bar_width + 5
        columns = max(1, min(count, (width + 2) // (cell + 2)))
        rows = math.ceil(count / columns)
        if rows > MAX_CORE_ROWS[wide]:
            return self._core_strip(percents, width)
        # Spread spare width over the bars so the grid fills the row.
        bar_width += max(0, (width + 2) // columns - 2 - cell)
        lines = []
        for row in range(rows):
            line = Text()
            for index in range(row, count, rows):  # column-major: core numbers run downwards
                if line:
                    line.append("  ")
                line.append(f"{index:>{digits}} ", style=self.part("label"))
                line.append_text(
                    bar(percents[index], bar_width, self.part("fill"), self.part("track"))
                )
                line.append(format_reading_percent(percents[index], width=5))
            lines.append(line)
        return lines

    def _core_strip(self, percents: tuple[float, ...], width: int) -> list[Text]:
        """Too many cores for bars: one cell per core on the fixed scale, busiest named."""
        usable = max(8, width - LABEL)
        cells = spark(list(percents), len(percents), 0.0, 100.0)
        lines = []
        for start in range(0, len(cells), usable):
            label = "cores" if start == 0 else ""
            line = Text(f"{label:<{LABEL}}", style=self.part("label"))
            lines.append(line.append(cells[start : start + usable], style=self.part("fill")))
        busiest = sorted(range(len(percents)), key=lambda i: -percents[i])[:8]
        summary = Text(f"{'top':<{LABEL}}", style=self.part("label"))
        summary.append("  ".join(f"#{i} {format_reading_percent(percents[i])}" for i in busiest))
        lines.append(summary)
        return lines
