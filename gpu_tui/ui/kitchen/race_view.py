"""The race itself: the chef on the left, the brigade's squads on the right, clocks and counts."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Digits, Static

from gpu_tui.core.kitchen.conveyor import SQUAD
from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.core.kitchen.report import number
from gpu_tui.core.kitchen.scenarios import Scenario
from gpu_tui.core.kitchen.timeline import BrigadeState, BrigadeTimeline, ChefTimeline
from gpu_tui.ui.kitchen.squad_grid import STATE_NAMES, SquadGrid, SquadState, squad_state

LEGEND = {
    SquadState.BRIEFING: "briefing",
    SquadState.COOKING: "cooking",
    SquadState.WAITING: "waiting on pantry",
    SquadState.DONE: "done / idle",
    SquadState.HALLWAY: "in the hallway",
}


def clock_text(seconds: float) -> str:
    """Model time for the big digits: 12.3 (seconds), 12:34 (m:ss), then 5:33 (h:mm)."""
    if seconds < 60:
        return f"{seconds:.1f}"
    minutes = int(seconds) // 60
    if minutes < 60:
        return f"{minutes}:{int(seconds) % 60:02d}"
    return f"{minutes // 60}:{minutes % 60:02d}"


def clock_unit(seconds: float) -> str:
    return "model\nseconds" if seconds < 60 else "model\nm:ss" if seconds < 3600 else "model\nh:mm"


def count_text(done: int, total: int, noun: str) -> str:
    return f"{number(done)} of {number(total)} {noun}"


class RaceView(Horizontal):
    """Attributes down: the pane calls ``load`` with new parameters and ``show(t)`` each frame."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.params: KitchenParams | None = None
        self.noun = "tasks"
        self.chef: ChefTimeline | None = None
        self.brigade: BrigadeTimeline | None = None
        self.last_cells: tuple[tuple[SquadState, ...], ...] = ()
        self._shown: dict[str, Text | str] = {}
        self._statics: dict[str, Static] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="chef-side", classes="race-side"):
            yield Static(id="chef-title", classes="side-title")
            with Horizontal(classes="clock-row"):
                yield Digits("0.0", id="chef-clock", classes="clock")
                yield Static(id="chef-unit", classes="unit")
            with Horizontal(classes="big-count-row"):
                yield Digits("0", id="chef-big-count", classes="big-count")
                yield Static("done", classes="unit")
            yield Static(id="chef-count", classes="count")
            yield Static(id="chef-bar", classes="bar")
            yield Static(id="chef-status", classes="status")
            yield Static(id="race-legend")
        with Vertical(id="brigade-side", classes="race-side"):
            yield Static(id="brigade-title", classes="side-title")
            with Horizontal(classes="clock-row"):
                yield Digits("0.0", id="brigade-clock", classes="clock")
                yield Static(id="brigade-unit", classes="unit")
            with Horizontal(classes="big-count-row"):
                yield Digits("0", id="brigade-big-count", classes="big-count")
                yield Static("done", classes="unit")
            yield Static(id="brigade-count", classes="count")
            yield Static(id="brigade-bar", classes="bar")
            yield Static(id="brigade-status", classes="status")
            yield SquadGrid(id="squad-grid")

    def load(self, scenario: Scenario, params: KitchenParams) -> None:
        self.params = params
        self.noun = "onions" if scenario.name == "onions" else "tasks"
        self.chef = ChefTimeline(params)
        self.brigade = BrigadeTimeline(params)
        squads = -(-params.cooks // SQUAD)
        kitchens = f"{params.kitchens} kitchens × " if params.kitchens > 1 else ""
        self._set("#chef-title", Text.assemble(("CHEF", "bold"), " · 1 CPU core"))
        self._set(
            "#brigade-title",
            Text.assemble(
                ("BRIGADE", "bold"),
                f" · GPU · {kitchens}{number(params.cooks)} cooks, {number(squads)} squads",
            ),
        )
        self.last_cells = ()
        self.show(0.0)

    def _set(self, selector: str, content: Text | str) -> None:
        """Update a line only when it changed, and without a relayout: every line that changes
        per frame has a fixed size in kitchen.tcss, and a relayout per frame costs most of the
        CPU budget."""
        if self._shown.get(selector) == content:
            return
        self._shown[selector] = content
        static = self._statics.get(selector)
        if static is None:
            static = self._statics[selector] = self.query_one(selector, Static)
        static.update(content, layout=False)

    def _bar(self, selector: str, progress: float) -> None:
        """A progress bar as one line of text: Textual's ProgressBar relayouts on every change."""
        width = max(1, self.query_one(selector).size.width - 5)
        filled = int(progress * width)
        text = Text("━" * filled)
        text.append("─" * (width - filled), "dim")
        text.append(f"{progress:4.0%}", "not dim")
        self._set(selector, text)

    def _digits(self, selector: str, text: str) -> None:
        digits = self.query_one(selector, Digits)
        if digits.value != text:
            digits.update(text)

    def show(self, t: float) -> None:
        """Draw the race at model time ``t``; cheap: O(kitchens · log tasks + cells)."""
        if self.chef is None or self.brigade is None or self.params is None:
            return
        chef = self.chef.state_at(t)
        chef_t = min(t, float(self.chef.end))
        self._digits("#chef-clock", clock_text(chef_t))
        self._digits("#chef-big-count", f"{chef.tasks_done:,}")
        self._set("#chef-unit", clock_unit(chef_t))
        self._set("#chef-count", count_text(chef.tasks_done, chef.tasks_total, self.noun))
        self._bar("#chef-bar", chef.progress)
        phase = self.params.phases[min(chef.phase, len(self.params.phases) - 1)]
        if chef.finished:
            status = "✓ done"
        elif chef.pantry_bound:
            status = "waiting on his pantry"
        else:
            status = f"cooking · {number(float(phase.chef_seconds))} s per task"
        self._set("#chef-status", status)
        self.query_one("#chef-side").set_class(chef.finished, "-finished")

        brigade = self.brigade.state_at(t)
        brigade_t = min(t, float(self.brigade.end))
        self._digits("#brigade-clock", clock_text(brigade_t))
        self._digits("#brigade-big-count", f"{brigade.tasks_done:,}")
        self._set("#brigade-unit", clock_unit(brigade_t))
        self._set("#brigade-count", count_text(brigade.tasks_done, brigade.tasks_total, self.noun))
        self._bar("#brigade-bar", brigade.progress)
        self._set("#brigade-status", self._brigade_status(brigade))
        self.query_one("#brigade-side").set_class(brigade.finished, "-finished")
        self._show_squads(t, brigade)

    def _brigade_status(self, state: BrigadeState) -> str:
        assert self.params is not None
        if state.finished:
            return "✓ done"
        where = []
        if len(self.params.phases) > 1:
            where.append(f"phase {(state.segment.phase or 0) + 1}/{len(self.params.phases)}")
        if self.params.rounds > 1:
            where.append(f"round {state.round + 1}/{self.params.rounds}")
        if state.segment.phase is None:
            what = f"hallway: sharing the stock pot {state.segment_fraction:.0%}"
        elif any(k.briefing for k in state.kitchens):
            what = f"briefing (launch, {number(float(self.params.launch_seconds))} s)"
        else:
            what = "cooking"
        return " · ".join([what, *where])

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
        grid = self.query_one(SquadGrid)
        totals = [0, 0, 0, 0]
        for k in state.kitchens:
            c = k.counts
            for i, value in enumerate((c.briefing, c.cooking, c.waiting, c.finished)):
                totals[i] += value
        text = Text()
        shown = list(LEGEND.items())
        if self.brigade is not None and self.brigade.kitchens == 1:
            shown = shown[:-1]
        for code, label in shown:
            style = grid.get_component_rich_style(f"squad-grid--{STATE_NAMES[code]}")
            text.append("▇▇ ", style)
            text.append(label)
            if code < len(totals) and state.kitchens:
                text.append(f" {number(totals[code])}", "bold")
            text.append("\n")
        text.rstrip()
        self._set("#race-legend", text)
