"""The results table: one row per measurement as it arrives, % of peak coloured, deltas.

Its columns are laid out for the width it gets (``fit_columns``): every cell is shown whole,
and when the width runs short the table gives way in a fixed order, on purpose, never by
cutting text: first the p20-80 spread goes (the panel below states it), then the device
column when every row ran on one device (the title names it), then notes and names wrap onto
a second line, then the type, device and size columns go (the panel below has them all).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.console import JustifyMethod
from rich.style import Style
from rich.text import Text
from textual.widgets import DataTable

from gpu_tui.core.bench import result_text as rt
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.store import Delta
from gpu_tui.ui.widgets.scroll_hint import ScrollHint

CELL_PADDING = 2
"""Each column's cell padding (one space either side)."""


@dataclass(frozen=True)
class Column:
    key: str
    heading: str
    justify: JustifyMethod = "left"
    wraps_at: str = ""
    """Where a cell may wrap when the column is narrowed: " " (between words); "" never."""


COLUMNS = (
    Column("benchmark", "Benchmark", wraps_at=" "),
    Column("device", "Dev"),
    Column("dtype", "Type"),
    Column("size", "Size"),
    Column("value", "Value", "right"),
    Column("peak", "%pk", "right"),
    Column("spread", "p20-80", "right"),
    Column("notes", "Notes", wraps_at=" "),
    Column("delta", "vs base", "right"),
)
BY_KEY = {column.key: column for column in COLUMNS}

STEPS: tuple[tuple[str, str], ...] = (
    ("drop", "spread"),
    ("drop-uniform", "device"),
    ("wrap", "notes"),
    ("wrap", "benchmark"),
    ("drop", "dtype"),
    ("drop", "device"),
    ("drop", "size"),
)
"""How the table gives way when it is too wide, in order (see the module's docstring)."""


def fit_columns(
    needs: dict[str, int], mins: dict[str, int], available: int, *, one_device: bool
) -> dict[str, int]:
    """Width per shown column (in ``COLUMNS`` order): each as wide as its widest cell, then the
    ``STEPS`` taken one by one until the columns and their padding fit ``available``."""
    widths = dict(needs)

    def total() -> int:
        return sum(width + CELL_PADDING for width in widths.values())

    for action, key in STEPS:
        if total() <= available:
            break
        if key not in widths or (action == "drop-uniform" and not one_device):
            continue
        if action == "wrap":
            widths[key] = max(mins.get(key, widths[key]), widths[key] - (total() - available))
        else:
            del widths[key]
    return {column.key: widths[column.key] for column in COLUMNS if column.key in widths}


def peak_band(percent: float | None) -> str | None:
    """Colour band of a % of peak: ``over`` (> 100 %: a wrong peak or count), ``good``, ``fair``,
    ``poor`` (under 10 %: a small problem or a misconfiguration), None when no peak is known."""
    if percent is None:
        return None
    if percent > 100:
        return "over"
    if percent >= 50:
        return "good"
    if percent >= 10:
        return "fair"
    return "poor"


def _cells(r: BenchResult, delta: Delta | None, comparing: bool) -> dict[str, str]:
    cells = {
        "benchmark": rt.name_cell(r),
        "device": r.device,
        "dtype": r.dtype or "-",
        "size": rt.size_cell(r),
        "value": rt.value_cell(r),
        "peak": rt.peak_cell(r),
        "spread": rt.spread_cell(r),
        "notes": rt.notes_cell(r).replace(",", ", "),  # as the words of a sentence list them
    }
    if comparing:
        cells["delta"] = rt.delta_cell(delta)
    return cells


def _narrowest(text: str, wraps_at: str) -> int:
    """The width a cell can wrap down to: its longest word (a note with its comma)."""
    if not wraps_at:
        return len(text)
    return max((len(part) for part in text.split(wraps_at)), default=0)


class ResultsTable(ScrollHint, DataTable[Text]):
    """Rows keyed by result key, so a rerun of the same measurement replaces its row; it has
    the keyboard when the pane is shown."""

    HINT_REACH = ""

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
        self.widths: dict[str, int] = {}
        """The shown columns and their widths (``fit_columns``)."""

    def on_mount(self) -> None:
        self.show([])

    def on_resize(self) -> None:
        if self._fit() != self.widths:
            self.show(self.results, self.deltas)

    def _available(self) -> int:
        # the CSS keeps the scroll bar's gutter, so the width does not change with the rows
        return self.scrollable_content_region.width or 76

    def _fit(self, results: list[BenchResult] | None = None) -> dict[str, int]:
        rows = self.results if results is None else results
        comparing = self.deltas is not None
        needs = {c.key: len(c.heading) for c in COLUMNS if comparing or c.key != "delta"}
        mins = dict(needs)
        for r in rows:
            for key, text in _cells(r, (self.deltas or {}).get(r.key), comparing).items():
                needs[key] = max(needs[key], len(text))
                mins[key] = max(mins[key], _narrowest(text, BY_KEY[key].wraps_at))
        devices = {r.device for r in rows}
        return fit_columns(needs, mins, self._available(), one_device=len(devices) == 1)

    def show(
        self, results: list[BenchResult], deltas: dict[str, Delta] | None = None, base: str = ""
    ) -> None:
        """Replace every row (a loaded run, or a baseline chosen or dropped); ``base`` names
        the run compared with, in the title, for as long as the vs-base column shows."""
        self.results = list(results)
        self.deltas = deltas
        row = self.cursor_row
        self.clear(columns=True)
        self.widths = self._fit()
        for key, width in self.widths.items():
            self.add_column(BY_KEY[key].heading, key=key, width=width)
        devices = sorted({r.device for r in self.results})
        on = f" · all on {devices[0]}" if len(devices) == 1 and "device" not in self.widths else ""
        # A column the width left out is named, and where to read it: the panel below has all.
        left_out = [
            c.heading
            for c in COLUMNS
            if c.key not in self.widths and c.key != "delta" and not (on and c.key == "device")
        ]
        below = f" · {', '.join(left_out)} below" if left_out and self.results else ""
        self.border_title = f"Results{on}{below}" + (f" · vs {base}" if base else "")
        for result in self.results:
            self._add(result)
        if self.row_count:
            self.move_cursor(row=min(row, self.row_count - 1))

    def add_result(self, result: BenchResult, delta: Delta | None = None) -> None:
        """One new measurement from a running benchmark."""
        if self.deltas is not None and delta is not None:
            self.deltas[result.key] = delta
        kept = [r for r in self.results if r.key != result.key]
        if len(kept) != len(self.results) or self._fit([*kept, result]) != self.widths:
            at_end = self.cursor_row >= self.row_count - 1
            self.show([*kept, result], self.deltas)  # a new width, or a rerun: lay out again
            if at_end:
                self.move_cursor(row=self.row_count - 1)
            return
        self.results.append(result)
        at_end = self.cursor_row >= self.row_count - 1
        self._add(result)
        if at_end:  # follow new rows unless the user is reading an earlier one
            self.move_cursor(row=self.row_count - 1)

    def current(self) -> BenchResult | None:
        if 0 <= self.cursor_row < len(self.results):
            return self.results[self.cursor_row]
        return None

    def _add(self, r: BenchResult) -> None:
        delta = (self.deltas or {}).get(r.key)
        cells = _cells(r, delta, self.deltas is not None)
        styles: dict[str, Callable[[], Style | str]] = {
            "peak": lambda: self._peak_style(r),
            "delta": lambda: self._delta_style(delta),
        }
        row: list[Text] = []
        tall = False
        for key, width in self.widths.items():
            column = BY_KEY[key]
            text = cells[key]
            tall = tall or len(text) > width
            style = styles[key]() if key in styles else ""
            # Every cell is Text: a str cell would be read as markup, and names come from files.
            row.append(Text(text, style=style, justify=column.justify, overflow="fold"))
        self.add_row(*row, key=r.key, height=None if tall else 1)

    def _peak_style(self, r: BenchResult) -> Style | str:
        band = peak_band(r.percent_of_peak)
        return self.get_component_rich_style(f"results-table--{band}") if band else ""

    def _delta_style(self, delta: Delta | None) -> Style | str:
        if delta is None or abs(delta.percent) < 5:
            return ""
        better = delta.speedup > 1
        return self.get_component_rich_style(
            "results-table--faster" if better else "results-table--slower"
        )
