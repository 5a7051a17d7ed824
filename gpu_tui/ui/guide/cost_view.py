"""Cloud vs on-prem: editable inputs (an 8-GPU H100 node by default) and the verdict."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Label, Static

from gpu_tui.core.errors import UsageError
from gpu_tui.core.guide import cost
from gpu_tui.core.guide.measured import Measured, latest_measured
from gpu_tui.core.guide.prices import seen_date
from gpu_tui.core.limits import Limit
from gpu_tui.ui.guide.cost_text import (
    CloudChoice,
    price_source,
    snapshot_table,
    tables,
    terms,
    verdict,
)
from gpu_tui.ui.widgets.field import Field as TextField
from gpu_tui.ui.widgets.reading_box import ReadingBox
from gpu_tui.ui.widgets.scroll_hint import ScrollHint
from gpu_tui.ui.worker_failures import ReportsWorkerFailures


@dataclass(frozen=True)
class Field:
    """One input: its id, label, the CostInputs field it sets (if any) and the shown scale."""

    id: str
    label: str
    attr: str | None = None
    percent: bool = False
    """Shown and typed as a percentage, stored as a fraction."""


DEFAULT_PRICE = cost.REFERENCE_PRICES[0]
CLOUD_FIELDS = (
    Field("price", "Cloud $/GPU-h"),
    Field("date", "Price date"),
    Field("util", "Utilisation %", percent=True),
    Field("tflops", "Measured TFLOP/s"),
)
NODE_FIELDS = (
    Field("hardware", "Node price $", "hardware_usd"),
    Field("install", "Install $", "install_usd"),
    Field("gpus", "GPUs per node", "gpus_per_node"),
    Field("life", "Life, years", "life_years"),
    Field("maint", "Maintenance %/yr", "maintenance_fraction_per_year", percent=True),
    Field("staff", "Staff $/yr", "staff_usd_per_year"),
    Field("colo", "Colocation $/kW-yr", "colo_usd_per_kw_year"),
    Field("kw", "Node power kW", "node_kw"),
    Field("idle", "Idle power %", "idle_power_fraction", percent=True),
    Field("pue", "PUE (cooling ×)", "pue"),
    Field("kwh", "Electricity $/kWh", "usd_per_kwh"),
)
CLOUD_DEFAULTS = {
    "price": f"{DEFAULT_PRICE.usd_per_gpu_hour:.2f}",
    "date": seen_date(DEFAULT_PRICE.date),
    "util": "50",
    "tflops": "",
}
CLOUD_SOURCES = {
    "date": "when the cloud price was seen (a span, Sep–Oct 2026: the price stands for pages "
    "seen in those months); prices move (AWS's H100 roughly halved in 2025)",
    "util": "the share of hours the GPU does useful work (assumption: yours to set)",
    "tflops": "optional: a measured rate (e.g. from a Bench run) for $ per TFLOP/s-hour",
}


def _default_text(field: Field) -> str:
    if field.attr is None:
        return CLOUD_DEFAULTS[field.id]
    value = getattr(cost.CostInputs(), field.attr)
    return f"{value * 100:g}" if field.percent else f"{value:,g}"


def _limit(field: Field) -> Limit:
    """The core's range for a field: the same one the matching ``gpu-tui guide`` flag obeys."""
    if field.attr is not None:
        return cost.INPUT_LIMITS[field.attr]
    return {"price": cost.PRICE, "util": cost.UTILIZATION, "tflops": cost.MEASURED_TFLOPS}[field.id]


def _number(field: Field, text: str) -> float:
    """A field's value, checked by the core; ``UsageError`` states the range in one line.

    The form shows "300,000" and "$2.50", so separators and a dollar sign are read past. A
    percent field holds a percentage whether or not the "%" was typed.
    """
    limit = _limit(field)
    cleaned = text.replace(",", "").replace("$", "").strip()
    if field.percent:
        cleaned = cleaned.removesuffix("%").rstrip() + "%"
    value = limit.parse(cleaned)
    return int(value) if limit.whole else value


class CostForm(ScrollHint, VerticalScroll):
    """The inputs, one per line; ↑/↓ move between them (and the border says how many more
    lie out of sight at 80×24)."""

    HINT_UNIT = "inputs"  # one line each, so the lines out of sight count them
    HINT_REACH = ""  # ↓ walks the inputs, scrolling the next into sight

    BINDINGS = [  # noqa: RUF012 — Textual API
        Binding("up", "app.focus_previous", "Previous field", show=False),
        Binding("down", "app.focus_next", "Next field", show=False),
    ]


class CostResults(ScrollHint, VerticalScroll):
    """The verdict, the sums and the dated prices: taller than the screen at 80×24, so the
    border says how many lines lie out of sight and how to read them."""

    HINT_UNIT = "lines"
    HINT_REACH = "esc, then ↑↓"
    HINT_KEYS = ""


class CostView(ReportsWorkerFailures, Widget):
    """Inputs left, the verdict and dated prices right, the focused input's source below."""

    BINDINGS = [  # noqa: RUF012 — Textual API
        Binding("escape", "leave", "To the results"),
    ]

    def compose(self) -> ComposeResult:
        with Horizontal(id="cost-main"):
            with Vertical(id="cost-side"):
                with CostForm(id="cost-form", can_focus=False):
                    for field in (*CLOUD_FIELDS, *NODE_FIELDS):
                        with Horizontal(classes="cost-row"):
                            yield Label(field.label, classes="field-label")
                            yield TextField(
                                _default_text(field),
                                id=f"cost-{field.id}",
                                compact=True,
                                takes_digits=True,  # every input is a figure or a date
                            )
                # Wide: the words explained under the form, where the rows end (CSS).
                yield ReadingBox(text_id="cost-terms-side", id="cost-terms-box")
            with CostResults(id="cost-results-scroll"):
                yield Static(id="cost-results")
                yield Static(id="cost-tables")
                # At 80 columns the form fills its column: the words follow the verdict.
                yield Static(terms(), id="cost-terms")
                yield Static(snapshot_table(), id="cost-prices")
        yield Static(id="cost-source")

    @dataclass
    class MeasuredFound(Message):
        """The newest bench run's best accelerator rate (read in a thread)."""

        measured: Measured

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.measured: Measured | None = None

    def on_mount(self) -> None:
        self.query_one("#cost-form").border_title = "Inputs (H100 node)"
        box = self.query_one("#cost-terms-box", ReadingBox)
        box.border_title = "What the words mean"
        box.update(terms())
        self.recompute()
        self.show_source("price")
        self.read_measured()

    @work(thread=True, exclusive=True, group="guide-measured", exit_on_error=False)
    def read_measured(self) -> None:
        """Saved runs are files: read them off the event loop."""
        measured = latest_measured()
        if measured is not None:
            self.post_message(self.MeasuredFound(measured))

    def on_cost_view_measured_found(self, message: CostView.MeasuredFound) -> None:
        self.measured = message.measured
        field = self.query_one("#cost-tflops", Input)
        if not field.value.strip():  # never overwrite what the user typed
            field.value = f"{message.measured.tflops:.4g}"

    def focus(self, scroll_visible: bool = True) -> CostView:
        self.query_one("#cost-price", Input).focus(scroll_visible)
        return self

    def action_leave(self) -> None:
        self.query_one("#cost-results-scroll").focus()

    def value(self, field_id: str) -> str:
        return self.query_one(f"#cost-{field_id}", Input).value

    def read_inputs(self) -> tuple[cost.CostInputs, CloudChoice]:
        """The node and the cloud choice from the form; ``UsageError`` names a bad field."""
        changes: dict[str, Any] = {}
        for field in NODE_FIELDS:
            assert field.attr is not None  # every node field sets one
            changes[field.attr] = _number(field, self.value(field.id))
        inputs = cost.check_inputs(replace(cost.CostInputs(), **changes))
        fields = {field.id: field for field in CLOUD_FIELDS}
        price = _number(fields["price"], self.value("price"))
        util = _number(fields["util"], self.value("util"))
        tflops_text = self.value("tflops").strip()
        tflops = _number(fields["tflops"], tflops_text) if tflops_text else None
        return inputs, CloudChoice(price, self.value("date").strip(), util, tflops)

    @on(Input.Changed)
    def _changed(self) -> None:
        self.recompute()

    def recompute(self) -> None:
        """Closed-form arithmetic: cheap enough for every keystroke."""
        if not self.is_mounted:
            return
        styles = self.app.get_css_variables()
        out = self.query_one("#cost-results", Static)
        try:
            inputs, choice = self.read_inputs()
        except UsageError as error:
            out.update(Text(str(error), style=f"bold {styles['text-error']}"))
            self.query_one("#cost-tables", Static).update("")  # they would be for old inputs
            return
        year = cost.gpu_year(inputs)
        out.update(verdict(year, choice, styles))
        self.query_one("#cost-tables", Static).update(tables(year))
        self.refresh_source()

    def on_descendant_focus(self) -> None:
        self.refresh_source()

    def refresh_source(self) -> None:
        focused = self.screen.focused
        if isinstance(focused, Input) and (focused.id or "").startswith("cost-"):
            self.show_source((focused.id or "").removeprefix("cost-"))

    def show_source(self, field_id: str) -> None:
        """What the focused input means, then where its value comes from (or that the user
        changed it)."""
        by_id = {field.id: field for field in (*CLOUD_FIELDS, *NODE_FIELDS)}
        field = by_id[field_id]
        text = Text(f"{field.label}: ", style="bold")
        # The node's inputs in plain words; the cloud fields' labels say theirs.
        meaning = cost.INPUT_MEANINGS.get(field.attr or "")
        if meaning:
            text.append(f"{meaning}. ")
        if field_id == "price":
            source = price_source(_safe_float(self.value("price")))
        elif field_id == "tflops" and self.measured is not None:
            measured = f"{self.measured.tflops:.4g}"
            mine = self.value(field_id).strip() == measured
            source = f"measured: {self.measured.source}" if mine else "given by you"
        elif field.attr is None:
            source = CLOUD_SOURCES[field_id]
        elif self.value(field_id).strip() == _default_text(field):
            source = f"Default: {cost.INPUT_SOURCES[field.attr]}"
        else:
            source = "given by you"
        text.append(source)
        self.query_one("#cost-source", Static).update(text)


def _safe_float(text: str) -> float:
    try:
        return float(text.replace("$", "").replace(",", "").strip())
    except ValueError:
        return math.nan
