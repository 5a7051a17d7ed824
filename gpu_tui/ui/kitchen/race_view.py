"""The race itself: the chef on the left, the brigade's squads on the right, clocks and counts."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Digits, Static

from gpu_tui.core.kitchen.clock import RaceClock, race_clock
from gpu_tui.core.kitchen.conveyor import SQUAD
from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.core.kitchen.scenarios import Scenario
from gpu_tui.core.kitchen.timeline import BrigadeState, BrigadeTimeline, ChefTimeline
from gpu_tui.core.units import format_count, format_percent, format_precise
from gpu_tui.ui.kitchen.progress_line import ProgressLine
from gpu_tui.ui.kitchen.squad_grid import STATE_NAMES, SquadGrid, SquadState, squad_state

LEGEND = {  # long and short labels: the short ones keep the legend to two lines at 80 columns
    SquadState.BRIEFING: ("briefing", "briefing"),
    SquadState.COOKING: ("cooking", "cooking"),
    SquadState.WAITING: ("waiting on pantry", "waiting"),
    SquadState.DONE: ("done / idle", "done"),
    SquadState.HALLWAY: ("in the hallway", "hallway"),
}


def unit_text(clock: RaceClock) -> str:
    """What the digits count, under the word "model": it is the story's time, not the wall's."""
    return f"model\n{clock.unit}"


def count_text(done: int, total: int, noun: str) -> str:
    """``0 of 1 onion``, ``5 of 10,000 onions``."""
    return f"{format_precise(done)} of {format_count(total, noun)}"


def fit_line(forms: list[str], more: list[str], width: int) -> str:
    """The first of ``forms`` (longest first) that fits ``width`` with ``more`` after it."""
    lines = [" · ".join([form, *more]) for form in forms]
    return next((line for line in lines if len(line) <= width), lines[-1])


def wrap_pieces(pieces: list[Text], width: int, gap: int = 2) -> Text:
    """Pieces in as many aligned columns as fit ``width`` (at least one), row by row."""
    for columns in range(len(pieces), 0, -1):
        widths = [
            max(p.cell_len for p in pieces[c::columns]) for c in range(min(columns, len(pieces)))
        ]
        if sum(widths) + gap * (len(widths) - 1) <= width or columns == 1:
            break
    text = Text()
    for i, piece in enumerate(pieces):
        column = i % columns
        if column == 0 and i:
            text.append("\n")
        text.append_text(piece)
        if column < columns - 1 and i < len(pieces) - 1:
            text.append(" " * (widths[column] - piece.cell_len + gap))
    return text


class RaceView(Horizontal):
    """Attributes down: the pane calls ``load`` with new parameters and ``show(t)`` each frame."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.params: KitchenParams | None = None
        self.noun = "tasks"
        self.clock = RaceClock("seconds", 1.0, 1)
        self.chef: ChefTimeline | None = None
        self.brigade: BrigadeTimeline | None = None
        self.t = 0.0
        self._shown: dict[str, Text | str] = {}
        self._statics: dict[str, Static] = {}

    def compose(self) -> ComposeResult:
        for side in ("chef", "brigade"):
            with Vertical(id=f"{side}-side", classes="race-side"):
                yield Static(id=f"{side}-title", classes="side-title")
                with Horizontal(classes="clock-row"):
                    yield Digits("0", id=f"{side}-clock", classes="clock")
                    yield Static(id=f"{side}-unit", classes="unit")
                with Horizontal(classes="big-count-row"):
                    yield Digits("0", id=f"{side}-big-count", classes="big-count")
                    yield Static("done", classes="unit")
                yield Static(id=f"{side}-count", classes="count")
                yield ProgressLine(id=f"{side}-bar", classes="bar")
                yield Static(id=f"{side}-status", classes="status")
                if side == "brigade":  # the legend sits with the squads it explains
                    yield Static(id="race-legend")
                    yield SquadGrid(id="squad-grid")

    def load(self, scenario: Scenario, params: KitchenParams) -> None:
        self.params = params
        self.noun = scenario.noun
        self.chef = ChefTimeline(params)
        self.brigade = BrigadeTimeline(params)
        self.clock = race_clock(float(self.chef.end), float(self.brigade.end))
        self._set("#chef-title", Text.assemble(("CHEF", "bold"), " · 1 CPU core"))
        self._set("#chef-unit", unit_text(self.clock))
        self._set("#brigade-unit", unit_text(self.clock))
        self.show(0.0)

    def on_resize(self) -> None:
        self.show(self.t)  # the legend wraps to the new width

    def on_squad_grid_resized(self, _: SquadGrid.Resized) -> None:
        self.show(self.t)

    def _set(self, selector: str, content: Text | str, *, layout: bool = False) -> None:
        """Update a line only when it changed, and without a relayout unless asked: every line
        that changes per frame has a fixed size in kitchen.tcss, and a relayout per frame costs
        most of the CPU budget."""
        if self._shown.get(selector) == content:
            return
        self._shown[selector] = content
        static = self._statics.get(selector)
        if static is None:
            static = self._statics[selector] = self.query_one(selector, Static)
        static.update(content, layout=layout)

    def _digits(self, selector: str, text: str) -> None:
        digits = self.query_one(selector, Digits)
        if digits.value != text:
            digits.update(text)

    def show(self, t: float) -> None:
        """Draw the race at model time ``t``; cheap: O(kitchens · log tasks + cells)."""
        if self.chef is None or self.brigade is None or self.params is None:
            return
        self.t = t
        chef = self.chef.state_at(t)
        self._digits("#chef-clock", self.clock.text(min(t, float(self.chef.end))))
        self._digits("#chef-big-count", f"{chef.tasks_done:,}")
        self._set("#chef-count", count_text(chef.tasks_done, chef.tasks_total, self.noun))
        self.query_one("#chef-bar", ProgressLine).progress = round(chef.progress, 3)
        phase = self.params.phases[min(chef.phase, len(self.params.phases) - 1)]
        if chef.finished:
            forms = ["✓ done"]
        elif chef.pantry_bound:
            forms = ["waiting on the pantry", "pantry"]
        else:
            seconds = format_precise(float(phase.chef_seconds))
            each = f"{seconds} s per {self.noun.removesuffix('s')}"
            forms = [f"cooking · {each}", "cooking"]
        self._set("#chef-status", fit_line(forms, [], self._width("#chef-side")))
        self.query_one("#chef-side").set_class(chef.finished, "-finished")

        brigade = self.brigade.state_at(t)
        self._digits("#brigade-clock", self.clock.text(min(t, float(self.brigade.end))))
        self._digits("#brigade-big-count", f"{brigade.tasks_done:,}")
        self._set("#brigade-count", count_text(brigade.tasks_done, brigade.tasks_total, self.noun))
        self.query_one("#brigade-bar", ProgressLine).progress = round(brigade.progress, 3)
        self._set("#brigade-status", self._brigade_status(brigade))
        self.query_one("#brigade-side").set_class(brigade.finished, "-finished")
        self._brigade_title()
        self._show_squads(t, brigade)

    def _brigade_title(self) -> None:
        """Kitchens (GPUs) and cooks; the number of squads too when the line has room."""
        assert self.params is not None
        k, cooks = self.params.kitchens, self.params.cooks
        gpus = f"{k} GPUs ×" if k > 1 else "1 GPU ·"
        title = Text.assemble(("BRIGADE", "bold"), f" · {gpus} {format_count(cooks, 'cooks')}")
        squads = f" · {format_count(-(-cooks // SQUAD), 'squads')}"
        if title.cell_len + len(squads) <= self._width("#brigade-side"):
            title.append(squads)
        self._set("#brigade-title", title)

    def _width(self, selector: str) -> int:
        """Room for text in ``selector``; before the first layout, as if there were plenty."""
        return self.query_one(selector).content_size.width or 1000

    def _brigade_status(self, state: BrigadeState) -> str:
        """What the brigade does and where it is, in the longest words that fit one line."""
        assert self.params is not None
        if state.finished:
            return "✓ done"
        where = []
        if len(self.params.phases) > 1:
            where.append(f"phase {(state.segment.phase or 0) + 1}/{len(self.params.phases)}")
        if self.params.rounds > 1:
            where.append(f"round {state.round + 1}/{self.params.rounds}")
        share = format_percent(state.segment_fraction, 0)
        if state.segment.phase is None:
            forms = [f"hallway: sharing the stock pot {share}", f"stock pot {share}"]
        elif any(k.briefing for k in state.kitchens):
            launch = format_precise(float(self.params.launch_seconds))
            forms = [f"briefing (launch, {launch} s)", "briefing"]
        else:
            forms = ["cooking"]
        return fit_line(forms, where, self._width("#brigade-side"))

    def _show_squads(self, t: float, state: BrigadeState) -> None:
        assert self.brigade is not None
        assert self.params is not None
        grid = self.query_one(SquadGrid)
        cooks, kitchens = self.params.cooks, self.brigade.kitchens
        plan = grid.plan(-(-cooks // SQUAD), kitchens)
        size = SQUAD * plan.group
        cells_each = -(-cooks // size)
        if state.finished or state.segment.phase is None:
            fill = SquadState.DONE if state.finished else SquadState.HALLWAY
            cells = tuple((fill,) * cells_each for _ in range(plan.kitchens))
        else:
            into = t - state.round * float(self.brigade.round_seconds) - float(state.segment.start)
            phase = state.segment.phase
            cells = tuple(
                tuple(
                    squad_state(c)
                    for c in self.brigade.conveyor(phase, k).squads_at(into, 0, None, size)
                )
                for k in range(plan.kitchens)
            )
        grid.show(cells)
        self._legend(state)

    def _legend(self, state: BrigadeState) -> None:
        """One entry per squad state with how many cooks are in it, wrapped between entries.
        Counts are padded to the brigade's size, so the line breaks (and the height) stay put
        while the numbers change."""
        assert self.params is not None
        grid = self.query_one(SquadGrid)
        cooks = self.params.cooks * self.params.kitchens
        totals = [0] * len(LEGEND)
        for k in state.kitchens:
            c = k.counts
            for i, value in enumerate((c.briefing, c.cooking, c.waiting, c.finished)):
                totals[i] += value
        if not state.kitchens:  # all done, or all in the hallway
            totals[SquadState.DONE if state.finished else SquadState.HALLWAY] = cooks
        pad = len(format_precise(cooks))
        shown = list(LEGEND.items())
        if self.brigade is not None and self.brigade.kitchens == 1:
            shown = shown[:-1]
        width = self._width("#brigade-side")
        for long in (True, False):
            pieces = [Text(f"a squad is {SQUAD} cooks:", "dim")] if long else []
            for code, labels in shown:
                style = grid.get_component_rich_style(f"squad-grid--{STATE_NAMES[code]}")
                piece = Text.assemble(("▇▇", style), f" {labels[0 if long else 1]}")
                piece.append(f" {format_precise(totals[code]):<{pad}}", "bold")
                pieces.append(piece)
            text = wrap_pieces(pieces, width)
            if "\n" not in text.plain:
                break
        text.rstrip()
        lines = self._shown.get("#race-legend")
        relayout = not isinstance(lines, Text) or len(lines.split()) != len(text.split())
        self._set("#race-legend", text, layout=relayout)
