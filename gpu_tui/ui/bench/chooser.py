"""Choosing a run by keyboard: suite, benchmarks, devices, time budget, and the estimate."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import SelectionList, Static

from gpu_tui.core.bench import build_plan, estimate_seconds
from gpu_tui.core.bench.result_text import GPU_ADDS
from gpu_tui.core.bench.suites import CATALOG, DEFAULT_BUDGET_SECONDS, SUITES, HostSpeed
from gpu_tui.core.comm import plan as comm_plan
from gpu_tui.core.units import format_about
from gpu_tui.ui.bench.bench_list import BenchList

BUDGET_STEPS = (0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0)
GPU_ONLY = frozenset({"transfer"})
NICE = 10
"""The worker runs at nice 10: while it saturates every core, the UI (nice 0) still gets the
CPU the moment a key arrives, and the worker loses only what the UI really uses."""


class BenchChooser(Widget, can_focus=False):
    """The benchmark list (space toggles) beside the settings. The pane changes ``suite``,
    ``device`` and ``budget`` from its keys (attributes down) and asks for ``plan()``."""

    suite: reactive[str] = reactive("quick")
    device: reactive[str] = reactive("cpu")
    budget: reactive[float] = reactive(DEFAULT_BUDGET_SECONDS["quick"])
    gpus: reactive[int] = reactive(0)
    """Real GPUs the inventory found (a SIMULATED one cannot run benchmarks)."""
    host: reactive[HostSpeed] = reactive(HostSpeed)
    """What the estimate knows of this machine (the pane sets it from the inventory)."""
    torch_note: reactive[str] = reactive("")
    """Why the worker's torch cannot use the GPUs found ("" where it may): then cpu is the one
    device to choose, and the options say why."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.overrides: dict[str, dict[str, Any]] | None = None
        """Parameter overrides per benchmark (tests use tiny sizes)."""

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield BenchList(
                *((b.title, b.name, b.name not in GPU_ONLY) for b in CATALOG),
                id="bench-list",
            )
            yield Static(id="bench-settings")

    def on_mount(self) -> None:
        self.query_one("#bench-list").border_title = "Benchmarks · space ticks"
        self.query_one("#bench-settings").border_title = "Run"
        self.update_summary()

    def devices(self) -> list[str]:
        return {"cpu": ["cpu"], "gpu": ["gpu"], "cpu+gpu": ["all"]}[self.device]

    def device_choices(self) -> tuple[str, ...]:
        return ("cpu+gpu", "cpu", "gpu") if self.gpus and not self.torch_note else ("cpu",)

    def cycle_suite(self) -> None:
        suites = (*SUITES, comm_plan.SUITE)  # comm: collectives between ranks (torchrun)
        self.suite = suites[(suites.index(self.suite) + 1) % len(suites)]
        self.budget = DEFAULT_BUDGET_SECONDS.get(self.suite, comm_plan.DEFAULT_BUDGET_SECONDS)

    def cycle_device(self) -> None:
        choices = self.device_choices()
        at = choices.index(self.device) if self.device in choices else -1
        self.device = choices[(at + 1) % len(choices)]

    def step_budget(self, up: bool) -> None:
        steps = [s for s in BUDGET_STEPS if (s > self.budget if up else s < self.budget)]
        if steps:
            self.budget = steps[0] if up else steps[-1]

    def select(self, names: list[str]) -> None:
        chosen = self.query_one("#bench-list", SelectionList)
        chosen.deselect_all()
        for name in names:
            chosen.select(name)

    def selected(self) -> list[str]:
        return list(self.query_one("#bench-list", SelectionList).selected)

    def plan(self) -> dict[str, Any]:
        if self.suite == comm_plan.SUITE:
            cuda = self.device != "cpu" and self.gpus > 1
            extra = (self.overrides or {}).get("comm") or {}  # tests: tiny sizes
            return comm_plan.build_comm_plan(
                comm_plan.Launch(nproc=self.gpus if cuda else 2),
                device="cuda" if cuda else "cpu",
                budget_seconds=self.budget,
                **extra,
            )
        return build_plan(
            self.suite,
            only=self.selected() or None,
            devices=self.devices(),
            budget_seconds=self.budget,
            overrides=self.overrides,
            nice=NICE,
        )

    def estimate(self) -> float:
        if self.suite == comm_plan.SUITE:
            return comm_plan.estimate_seconds(self.plan())
        gpus = self.gpus if self.device != "cpu" else 0
        return estimate_seconds(self.plan(), gpus=gpus, host=self.host)

    def watch_gpus(self, gpus: int) -> None:
        self.device = "cpu+gpu" if gpus and not self.torch_note else "cpu"
        if gpus and not self.torch_note:
            self.query_one("#bench-list", SelectionList).select("transfer")
        self.update_summary()

    def watch_torch_note(self, note: str) -> None:
        if note:  # what needs a GPU cannot run: cpu, and no GPU-only benchmark ticked
            self.device = "cpu"
            for name in GPU_ONLY:
                self.query_one("#bench-list", SelectionList).deselect(name)
        self.update_summary()

    def _watch_any(self) -> None:
        if self.is_mounted:
            self.update_summary()

    watch_suite = watch_device = watch_budget = watch_host = _watch_any

    def on_selection_list_selected_changed(self) -> None:
        self.update_summary()

    def update_summary(self) -> None:
        chosen = self.selected()
        text = Text()
        for key, label, value in (
            ("s", "Suite", self.suite),
            ("d", "Devices", self.device),
            ("+/-", "Budget", f"{self.budget:g} s per point"),
        ):
            text.append(f"{label:<8}", "bold")
            text.append(f"{value:<22}")
            text.append(f"{key}\n", "dim")
        if self.suite == comm_plan.SUITE:
            comm = self.plan()["comm"]
            copies = " + copies" if comm.get("copies") and comm["device"] == "cuda" else ""
            text.append(f"\n{len(comm['operations'])} collectives{copies}, {comm['nproc']} ")
            text.append(f"{comm['device']} ranks ({comm['backend']}), about ")
            text.append(format_about(self.estimate()), "bold")
            text.append("\nr runs · Esc stops\n")
        elif chosen:
            text.append(f"\n{len(chosen)} of {len(CATALOG)} benchmarks, about ", "")
            text.append(format_about(self.estimate()), "bold")
            text.append("\nr runs · Esc stops\n")
        else:
            text.append("\nNothing chosen: space selects a benchmark\n")
        if self.gpus and self.torch_note:
            text.append(self.torch_note, "italic")
        elif not self.gpus:
            text.append(GPU_ADDS, "italic")
        self.query_one("#bench-settings", Static).update(text)
