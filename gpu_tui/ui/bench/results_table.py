"""The results table: one row per measurement as it arrives, % of peak coloured, deltas."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widgets import DataTable

from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.store import Delta
from gpu_tui.ui.bench import result_text as rt

COLUMNS = (
    ("benchmark", "Benchmark", 15),
    ("device", "Dev", 4),
    ("dtype", "Type", 4),
    ("size", "Size", 9),
    ("value", "Value", 13),
    ("peak", "%pk", 3),
    ("spread", "p20-80", 6),
    ("notes", "Notes", 6),
)
"""Key, heading and width. The widths add up to what fits 80 columns beside the borders,
cell padding and scroll bar; Value fits ``1,979 TFLOP/s`` (an H200's fp8) and Size
``1.875 GiB``. Longer names, sizes and notes end in an ellipsis; the panel below has them whole."""


class ResultsTable(DataTable[Text | str]):
    """Rows keyed by result key, so a rerun of the same measurement replaces its row."""

    COMPONENT_CLASSES = {  # noqa: RUF012 — Textual API
        "results-table--over",
        "results-table--good",
        "results-table--fair",
        "results-table--poor",
        "results-table--faster",
        "results-table--slower",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.results: list[BenchResult] = []
        self.deltas: dict[str, Delta] | None = None

    def on_mount(self) -> None:
        self._add_columns()

    def _add_columns(self) -> None:
        for key, label, width in COLUMNS:
            self.add_column(label, key=key, width=width)
        if self.deltas is not None:
            self.add_column("vs base", key="delta", width=7)

    def show(self, results: list[BenchResult], deltas: dict[str, Delta] | None = None) -> None:
        """Replace every row (a loaded run, or a baseline chosen or dropped)."""
        self.results = list(results)
        self.deltas = deltas
        row = self.cursor_row
        self.clear(columns=True)
        self._add_columns()
        for result in self.results:
            self.add_row(*self._cells(result), key=result.key)
        if self.row_count:
            self.move_cursor(row=min(row, self.row_count - 1))

    def add_result(self, result: BenchResult, delta: Delta | None = None) -> None:
        """One new measurement from a running benchmark."""
        if any(r.key == result.key for r in self.results):
            self.results = [r for r in self.results if r.key != result.key]
            self.remove_row(result.key)
        self.results.append(result)
        if self.deltas is not None and delta is not None:
            self.deltas[result.key] = delta
        at_end = self.cursor_row >= self.row_count - 1
        self.add_row(*self._cells(result), key=result.key)
        if at_end:  # follow new rows unless the user is reading an earlier one
            self.move_cursor(row=self.row_count - 1)

    def current(self) -> BenchResult | None:
        if 0 <= self.cursor_row < len(self.results):
            return self.results[self.cursor_row]
        return None

    def _cells(self, r: BenchResult) -> list[Text | str]:
        band = rt.peak_band(r.percent_of_peak)
        peak = "" if r.percent_of_peak is None else f"{r.percent_of_peak:.0f}"
        peak_style = self.get_component_rich_style(f"results-table--{band}") if band else ""
        # Every cell is Text: a str cell would be read as markup, and names come from files.
        cells: list[Text | str] = [
            Text(rt.name_cell(r), overflow="ellipsis", no_wrap=True),
            Text(r.device, overflow="ellipsis", no_wrap=True),
            Text(r.dtype or "-", overflow="ellipsis", no_wrap=True),
            Text(rt.size_cell(r), overflow="ellipsis", no_wrap=True),
            Text(rt.value_cell(r), justify="right"),
            Text(peak, style=peak_style, justify="right"),
            Text(rt.spread_cell(r), justify="right"),
            Text(rt.notes_cell(r), overflow="ellipsis", no_wrap=True),
        ]
        if self.deltas is not None:
            delta = self.deltas.get(r.key)
            style: Style | str = ""
            if delta is not None and abs(delta.percent) >= 5:
                better = delta.speedup > 1
                style = self.get_component_rich_style(
                    "results-table--faster" if better else "results-table--slower"
                )
            cells.append(Text(rt.delta_cell(delta), style=style, justify="right"))
        return cells
