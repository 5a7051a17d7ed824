"""Will it fit: model, precision, context, batch in; memory, devices, decode ceiling out."""

from __future__ import annotations

from dataclasses import replace

from rich.console import Console
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import DataTable, Input, Label, Select, Static

from gpu_tui.core.devices.model import Inventory
from gpu_tui.core.errors import UsageError
from gpu_tui.core.guide import fit
from gpu_tui.core.guide.lineup import counted, display_name
from gpu_tui.core.guide.report import (
    formula_sources,
    kv_formula,
    needed_text,
    read_formula,
    share_text,
    size,
)
from gpu_tui.core.guide.shapes import parse_params
from gpu_tui.core.units import format_parameters, format_percent
from gpu_tui.ui.guide import device_name
from gpu_tui.ui.widgets.field import Field
from gpu_tui.ui.widgets.guide_bars import SIMULATED_TAG
from gpu_tui.ui.widgets.reading_box import ReadingBox
from gpu_tui.ui.widgets.scroll_hint import HintedTable

DTYPES = tuple(fit.DTYPE_BYTES)
"""The precisions the form offers: every one ``gpu-tui guide --fit --dtype`` takes."""
DEFAULT_MODEL = "llama-3.1-8b"
COLUMN_LABELS = (
    "Memory\neach",
    "Devices\nneeded",
    "Share\nof one",
    "Decode ≤\ntok/s/seq",
    "TB/s\neach",
)
"""The table's columns after the Device column, each heading on two lines: on one line,
"Memory Need Of one Decode" read as a single phrase."""
FORMULAS = (
    f"Formulas ({fit.SOURCE_DECODE.url}): weights = params × bytes; KV = 2 × bytes × layers × "
    "KV heads × head dim × context × batch (MLA: layers × (latent + RoPE dim) × bytes × "
    "context × batch); decode ≤ devices × bandwidth ÷ (weights read + batch × KV per sequence)."
)


def local_targets(inventory: Inventory | None) -> tuple[fit.Target, ...]:
    """This machine's accelerators, then its system RAM, named as in the Catalog table."""
    if inventory is None:
        return ()
    *gpus, ram = fit.machine_targets(inventory)
    devices = [d for d in inventory.accelerators if not d.lost]
    named = (
        replace(t, name=display_name(d.name, d.simulated))
        for d, t in zip(devices, gpus, strict=True)
    )
    return (*named, ram)


def _ranked(placements: tuple[fit.Placement, ...]) -> tuple[fit.Placement, ...]:
    """This machine first; then the fewest devices needed, fastest decode first among equals."""
    local = tuple(p for p in placements if p.target.local)
    rest = sorted(
        (p for p in placements if not p.target.local),
        key=lambda p: (
            p.devices_needed is None,
            p.devices_needed or 0,
            -(p.decode_tokens_per_second_max or 0.0),
        ),
    )
    return (*local, *rest)


class FitView(Widget):
    """Inputs on one line; the arithmetic; every device with the count it needs."""

    BINDINGS = [  # noqa: RUF012 — Textual API
        Binding("escape", "leave", "To the results"),
    ]

    inventory: reactive[Inventory | None] = reactive(None)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.placements: tuple[fit.Placement, ...] = ()
        """The table's rows: identical devices of this machine as one, named ``8 × H100``."""
        self.counts: tuple[int, ...] = ()
        """How many devices each row stands for (1 but for this machine's merged ones)."""
        self.result: fit.FitResult | None = None
        # Named as in the Catalog table ("H100 SXM", not "NVIDIA H100 SXM").
        targets = fit.catalog_targets()
        self.catalog = tuple(replace(t, name=display_name(t.name, False)) for t in targets)

    def compose(self) -> ComposeResult:
        with Horizontal(id="fit-inputs"):
            yield Label("Model", classes="field-label")
            yield Field(
                DEFAULT_MODEL,
                id="fit-params",
                compact=True,
                takes_digits=True,
                tooltip="a named model (llama-3.1-70b, mixtral-8x7b, deepseek-v3, qwen3-32b, "
                "gpt-oss-120b, ...) or a bare size with an assumed shape (8B, 70e9, 1.5T)",
            )
            yield Label("Precision", classes="field-label")
            options = [(d, d) for d in DTYPES]
            yield Select(options, value="bf16", allow_blank=False, id="fit-dtype", compact=True)
            for label, key, default in (
                ("Context", "context", fit.DEFAULT_CONTEXT),
                ("Batch", "batch", fit.DEFAULT_BATCH),
            ):
                yield Label(label, classes="field-label")
                yield Field(
                    str(default), id=f"fit-{key}", type="integer", compact=True, takes_digits=True
                )
        yield Static(id="fit-summary")
        # Below the table at 80 columns, beside it when wide (CSS); at 80×24 the notes are
        # longer than the rows left for them, so the box scrolls (Tab, then ↓).
        with Container(id="fit-results"):
            yield HintedTable(
                id="fit-table",
                cursor_type="row",
                zebra_stripes=True,
                reach="Esc, then ↑↓",
                header_height=2,
            )
            yield ReadingBox(text_id="fit-detail", id="fit-detail-box")

    def on_mount(self) -> None:
        table = self.query_one("#fit-table", DataTable)
        table.border_title = "Where it fits: ▶ this machine, then fewest devices, fastest decode"
        self.recompute()

    def focus(self, scroll_visible: bool = True) -> FitView:
        self.query_one("#fit-params", Input).focus(scroll_visible)
        return self

    def watch_inventory(self) -> None:
        self.recompute()

    @on(Input.Changed)
    @on(Select.Changed)
    def _input_changed(self) -> None:
        self.recompute()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.query_one("#fit-table", DataTable).focus()

    def action_leave(self) -> None:
        self.query_one("#fit-table", DataTable).focus()

    def read_inputs(self) -> fit.FitResult:
        """The fit for what the inputs say; ``UsageError`` with one line for bad input."""
        params, shape = parse_params(self.query_one("#fit-params", Input).value)
        dtype = str(self.query_one("#fit-dtype", Select).value)
        # The CLI's --context and --batch parse with these same core limits: one range, one text.
        context = fit.CONTEXT.parse_whole(self.query_one("#fit-context", Input).value)
        batch = fit.BATCH.parse_whole(self.query_one("#fit-batch", Input).value)
        return fit.fit(params, dtype, context=context, batch=batch, shape=shape)

    def recompute(self) -> None:
        """Pure arithmetic over ~40 devices: microseconds, so it runs on every keystroke."""
        if not self.is_mounted:
            return
        summary = self.query_one("#fit-summary", Static)
        table = self.query_one("#fit-table", DataTable)
        try:
            result = self.read_inputs()
        except UsageError as error:
            summary.update(Text(str(error), style=self.app.get_css_variables()["text-error"]))
            return
        self.result = fit.with_targets(result, local_targets(self.inventory) + self.catalog)
        groups = fit.grouped(_ranked(self.result.placements))
        self.placements = tuple(
            replace(p, target=replace(p.target, name=counted(p.target.name, n))) for p, n in groups
        )
        self.counts = tuple(n for _, n in groups)
        summary.update(self.summary(self.result))
        keep = table.cursor_row
        # Columns anew: the Device column is as wide as this machine's names need.
        table.clear(columns=True)
        labels = (device_name.label(p.target.name, p.target.local) for p in self.placements)
        width = device_name.column_width(labels)
        table.add_column(device_name.HEADER, width=width)
        for label in COLUMN_LABELS:
            table.add_column(Text(label, justify="right"))
        variables = self.app.get_css_variables()
        console = self.app.console
        for index, p in enumerate(self.placements):
            cells = self.cells(p, variables, width, console)
            table.add_row(*cells, key=str(index), height=device_name.height(cells[0]))
        table.move_cursor(row=min(keep, len(self.placements) - 1))
        self.show_detail(table.cursor_row)

    def summary(self, result: fit.FitResult) -> Text:
        """The arithmetic, with this machine's answer first; five lines that fit in 80 columns."""
        shape = result.shape.shape
        text = Text()
        first_local = next((i for i, p in enumerate(self.placements) if p.target.local), None)
        if first_local is not None:
            verdict = self.verdict(self.placements[first_local], self.counts[first_local])
            text.append(verdict + "\n", style="bold")
        active = f"; {format_parameters(result.active_params)} active" if shape.moe else ""
        text.append(
            f"Weights  {size(result.weight_bytes):>11} = {format_parameters(result.params)} "
            f"params × {fit.DTYPE_BYTES[result.dtype]:g} B ({result.dtype}){active}\n"
        )
        text.append(
            f"KV cache {size(result.kv_cache_bytes):>11} = {kv_formula(result, short=True)}\n"
        )
        model = (
            f"{shape.name} as published"
            if result.shape.exact
            else f"assumed shape ({result.shape.borrowed_from}'s)"
        )
        # The caveat leads: cut at the right edge, the line must not say the opposite.
        caveat = "nothing reserved for activations or overhead"
        text.append(f"Total    {size(result.total_bytes):>11} · {caveat}\n")
        text.append(f"Read     {size(result.bytes_read_per_step):>11} per step · {model}")
        return text

    @staticmethod
    def verdict(p: fit.Placement, count: int = 1) -> str:
        """One line: does it fit on this machine's ``count`` such devices, and how fast can it
        decode at best."""
        name = p.target.name
        needed = p.devices_needed
        if needed is None:
            return f"▶ {name}: memory unknown"
        # How full one is says how much room is left; past one, the count is the answer (the
        # table's "Of one" column keeps the share). The line must fit 80 columns.
        share = f" ({format_percent(p.fraction_of_one or 0, 0)})"
        if p.target.ram:
            fits = "fits in RAM" + share if needed == 1 else "too big for RAM"
        elif needed == 1:
            fits = "fits on one" + share
        elif count == 1:
            fits = f"needs {needed}"
        elif needed <= count:
            fits = f"needs {needed} of the {count}"
        else:
            fits = f"needs {needed}, has {count}"
        rate = p.decode_tokens_per_second_max
        decode = "" if rate is None else f"; decode ≤ {rate:,.1f} tok/s/seq"
        return f"▶ {name}: {fits}{decode}"

    @staticmethod
    def cells(
        p: fit.Placement, variables: dict[str, str], width: int, console: Console
    ) -> list[Text]:
        name = device_name.name_cell(
            p.target.name,
            local=p.target.local,
            simulated=p.target.name.endswith(SIMULATED_TAG),
            accent=variables["text-accent"],
            warning=variables["text-warning"],
            width=width,
            console=console,
        )
        need = needed_text(p.devices_needed)
        need_style = f"bold {variables['text-success']}" if p.devices_needed == 1 else ""
        share = share_text(p.fraction_of_one)
        rate = p.decode_tokens_per_second_max
        bandwidth = p.target.bandwidth_bytes_per_second
        return [
            name,
            Text(size(p.target.memory_bytes), justify="right"),
            Text(need, style=need_style, justify="right"),
            Text(share, justify="right"),
            Text("—" if rate is None else f"{rate:,.1f}", justify="right"),
            Text("—" if bandwidth is None else f"{bandwidth / 1e12:.2f}", justify="right"),
        ]

    @on(DataTable.RowHighlighted, "#fit-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail(event.cursor_row)

    def show_detail(self, index: int) -> None:
        """The highlighted device's arithmetic and the source of its figures."""
        detail = self.query_one("#fit-detail-box", ReadingBox)
        result = self.result
        if result is None or not 0 <= index < len(self.placements):
            detail.update("")
            return
        p = self.placements[index]
        text = Text(p.target.name, style="bold")
        if p.devices_needed is not None and p.target.memory_bytes is not None:
            basis = f" ({p.target.memory_basis})" if p.target.memory_basis else ""
            text.append(
                f": {size(result.total_bytes)} is {format_percent(p.fraction_of_one or 0)} "
                f"of one {size(p.target.memory_bytes)}{basis} → "
                f"{needed_text(p.devices_needed)} needed"
            )
        bandwidth = p.target.bandwidth_bytes_per_second
        if p.decode_tokens_per_second_max is not None and bandwidth is not None:
            text.append(
                f"; decode ≤ {p.devices_needed} × {bandwidth / 1e12:.2f} TB/s ÷ "
                f"{size(result.bytes_read_per_step)} read per step = "
                f"{p.decode_tokens_per_second_max:,.1f} tok/s per sequence (a ceiling)"
            )
        text.append("\nsource: ", style="bold")
        text.append(p.target.source)
        notes = [
            f"Read per step: {read_formula(result)}.",
            f"Shape: {result.shape.how}.",
            FORMULAS,
            *([fit.MOE_NOTE] if result.shape.shape.moe else []),
            fit.units_note(),
            fit.CAPACITY_NOTE,
        ]
        text.append("\n" + " ".join(notes), style="italic")
        # What each formula rests on: wide, the room under the notes; at 80×24 the box scrolls.
        text.append("\nformulas from:", style="bold")
        for name, source in formula_sources(result).items():
            text.append(f"\n· {name.replace('_', ' ')}: {source.cite()} {source.url}")
        detail.update(text)
