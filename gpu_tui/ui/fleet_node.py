"""The Fleet pane's view of one node: a row per GPU with its readings now and its utilisation
over the window as a sparkline, and graphs of the chosen GPU's utilisation, memory, temperature
and power from Prometheus range queries (the pane asks them on a thread and hands them here).

The graphs are drawn as the Monitor draws its history (``monitor.draw``): fixed scales against
the GPU's own limits, each column solid to its highest reading and shaded down to its lowest,
a gap where the series stopped, and the same time axis.
"""

from __future__ import annotations

import math
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Container, Vertical
from textual.widgets import DataTable, Static

from gpu_tui.core.fleet.history import NodeHistory, Point, columns, latest, scale_top
from gpu_tui.core.fleet.model import FleetGpu, FleetNode
from gpu_tui.core.fleet.node_detail import HEADERS, GpuRow, gpu_rows, node_title
from gpu_tui.core.monitor.history_window import axis_row
from gpu_tui.core.units import (
    format_age,
    format_gigabytes,
    format_temperature,
    gigabyte_symbol,
    temperature_symbol,
)
from gpu_tui.ui.monitor.draw import cells_text, graph_columns, rows_of, scale_labels, spark_cells
from gpu_tui.ui.monitor.rows import RowsWidget

GRAPHS = (
    ("utilization_percent", "utilisation", "%"),
    ("memory_used_bytes", "memory", "GiB"),
    ("temperature_c", "temperature", "°C"),
    ("power_watts", "power", "W"),
)
"""(reading, words, unit) of each graph; the first two always show, the rest where room is.
The temperature's and the memory's units are the ones shown (``_unit``), the readings stay in
°C and bytes."""
GRAPH_MIN_ROWS = 7
"""A caption, five graph rows and the time axis: below this a graph says too little."""
GRAPH_MIN_COLUMNS = 36
SPARK_COLUMNS = (8, 60)
"""The sparkline's least and most cells: it takes what the other columns leave."""


def _amount(reading: str, value: float | None) -> str:
    """A reading as a graph's scale and caption print it."""
    if value is None or math.isnan(value):
        return "?"
    if reading == "memory_used_bytes":
        return format_gigabytes(value, ".0f", symbol=False)
    if reading == "temperature_c":
        return format_temperature(value, symbol=False)
    return f"{value:.0f}"


def _unit(reading: str, unit: str) -> str:
    """A graph's unit as its caption prints it."""
    if reading == "memory_used_bytes":
        return gigabyte_symbol()
    return temperature_symbol() if reading == "temperature_c" else unit


class HistoryGraph(RowsWidget):
    """One reading of one GPU over the window: a caption, the graph with its scale on the left,
    and the time axis; as many rows as the widget is given."""

    PART_PREFIX = "fleet-graph"
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "fleet-graph--label",
        "fleet-graph--graph",
        "fleet-graph--caption",
    }

    def __init__(self, reading: str, words: str, unit: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.reading, self.words, self.unit = reading, words, unit
        self.gpu = ""
        self.points: list[Point] = []
        self.window: tuple[float, float, float] | None = None
        """(start, end, step) of the history shown; None before the first answer."""
        self.top: float | None = None

    def show(self, gpu: str, history: NodeHistory | None, now: FleetGpu | None) -> None:
        self.gpu = gpu
        if history is None:
            self.points, self.window, self.top = [], None, None
        else:
            self.points = history.points(gpu, self.reading)
            self.window = (history.start, history.end, history.step)
            self.top = scale_top(self.reading, now, self.points)
        self.update_rows()

    @property
    def drawn(self) -> bool:
        """Whether the graph has readings to draw (tests ask)."""
        return self.window is not None and latest(self.points) is not None

    def build_rows(self, width: int, height: int) -> list[Text]:
        label, graph = self.part("label"), self.part("graph")
        unit = _unit(self.reading, self.unit)
        caption = f"gpu{self.gpu} {self.words}, {unit}" if self.gpu else self.words
        newest = latest(self.points)
        if self.window is not None and newest is not None:
            stamp, value = newest
            end, step = self.window[1], self.window[2]
            # An old newest point: the series stopped (the exporter is down, the GPU gone).
            fresh = stamp >= end - 2 * step
            amount = _amount(self.reading, value)
            caption += f" · now {amount}" if fresh else f" · {amount}, {format_age(end - stamp)}"
        rows = [Text(caption[:width], style=self.part("caption"))]
        graph_rows = height - 2
        if graph_rows < 1:
            return rows
        if self.window is None:
            return [*rows, Text("…", style=label)]
        top = self.top
        labels = (_amount(self.reading, top), "", _amount(self.reading, 0.0))
        scale = scale_labels(labels, graph_rows)
        indent = len(scale[0])
        graph_width = max(1, width - indent)
        start, end, step = self.window
        lows, highs = columns(self.points, start, end, step, graph_width)
        drawn = rows_of(graph_columns(lows, highs, graph_rows, 0.0, top), graph_rows)
        rows += [cells_text((s, label), (row, graph)) for s, row in zip(scale, drawn, strict=True)]
        axis = axis_row(round((end - start) * 1000), graph_width)
        rows.append(cells_text((" " * indent + axis, label)))
        return rows


class FleetNodeView(Vertical):
    """The node's title and the state of its history in one line each, the GPU table, and the
    graphs of the GPU under the table's cursor. The pane calls ``show``."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.node: FleetNode | None = None
        self.history: NodeHistory | None = None
        self.rows: list[GpuRow] = []
        self.status = ""
        self.now = 0.0

    def compose(self) -> ComposeResult:
        yield Static(id="fleet-node-title")
        yield Static(id="fleet-node-status")
        yield DataTable(id="fleet-gpus", cursor_type="row", zebra_stripes=True)
        with Container(id="fleet-graphs"):
            for reading, words, unit in GRAPHS:
                yield HistoryGraph(reading, words, unit, id=f"fleet-graph-{reading}")

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#fleet-gpus", DataTable)

    @property
    def gpu(self) -> str:
        """The GPU whose graphs show: the one under the table's cursor."""
        table = self.table
        if not self.rows:
            return ""
        return self.rows[min(max(table.cursor_row, 0), len(self.rows) - 1)].gpu

    def show(
        self, node: FleetNode | None, history: NodeHistory | None, status: str, now: float
    ) -> None:
        """The node as the last refresh read it, its history as last read, one status line."""
        self.node, self.history, self.status, self.now = node, history, status, now
        self.rows = gpu_rows(node, history)
        self._fill_table()
        self._show_text()
        self._show_graphs()

    def _show_text(self) -> None:
        title = self.query_one("#fleet-node-title", Static)
        title.update(node_title(self.node, self.now) if self.node is not None else "")
        hidden = [words for reading, words, _ in GRAPHS if not self._graph(reading).display]
        status = self.status
        if hidden and self.rows:
            status += f" · {', '.join(hidden)}: more rows"
        self.query_one("#fleet-node-status", Static).update(status)

    def _fill_table(self) -> None:
        table = self.table
        keep = self.gpu
        table.clear(columns=True)
        for header in HEADERS:
            table.add_column(header, key=header)
        texts = [row.cells() for row in self.rows]
        spark_width = self._spark_width(texts)
        warning = self.app.get_css_variables()["text-warning"]
        for row, texts_of_row in zip(self.rows, texts, strict=True):
            cells = [Text(cell) for cell in texts_of_row]
            if row.warn:
                cells[5].stylize(f"bold {warning}")
            cells.insert(2, Text(self._spark(row.gpu, spark_width), style="bold"))
            table.add_row(*cells, key=row.gpu)
        names = [row.gpu for row in self.rows]
        if keep in names:
            table.move_cursor(row=names.index(keep))
        if not self.rows:
            table.border_title = "no GPU"
        else:
            table.border_title = f"{len(self.rows)} GPUs · ↑↓ graphs of one"

    def _spark_width(self, texts: list[tuple[str, ...]]) -> int:
        """What the other columns leave of the view's width (each column is as wide as its
        widest cell or header, and a cell's padding on each side)."""
        headers = [h for h in HEADERS if h != "History"]
        taken = sum(
            max([len(header)] + [len(cells[i]) for cells in texts]) + 2
            for i, header in enumerate(headers)
        )
        least, most = SPARK_COLUMNS
        # Before its first layout (just shown) the view has no width yet: the screen's is near.
        width = self.size.width or self.app.size.width
        return max(least, min(most, width - taken - 2 - 1))  # its padding, a spare

    def _spark(self, gpu: str, width: int) -> str:
        history = self.history
        if history is None:
            return "…".ljust(width)
        points = history.points(gpu, "utilization_percent")
        _, highs = columns(points, history.start, history.end, history.step, width)
        return "".join(spark_cells(highs, 0.0, 100.0))

    def _graph(self, reading: str) -> HistoryGraph:
        return self.query_one(f"#fleet-graph-{reading}", HistoryGraph)

    def _show_graphs(self) -> None:
        gpu = self.gpu
        now = next((row.now for row in self.rows if row.gpu == gpu), None)
        for reading, _, _ in GRAPHS:
            self._graph(reading).show(gpu, self.history, now)

    @on(DataTable.RowHighlighted, "#fleet-gpus")
    def _gpu_chosen(self) -> None:
        self._show_graphs()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Two graphs side by side always; temperature and power below them where the rows
        allow, or beside them on a screen wide enough for four."""
        box = self.query_one("#fleet-graphs", Container)
        height, width = box.size.height, box.size.width
        tall = height >= 2 * GRAPH_MIN_ROWS
        wide = width >= 4 * GRAPH_MIN_COLUMNS
        box.styles.grid_size_columns = 4 if wide and not tall else 2
        for reading, _, _ in GRAPHS[2:]:
            self._graph(reading).display = tall or wide
        if self.node is not None:
            self._fill_table()  # the sparkline's width follows the view's
            self._show_text()
