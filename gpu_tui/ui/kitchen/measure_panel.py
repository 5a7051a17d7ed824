"""Run it for real: the bench worker measures this machine; the panel sets it beside the model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static
from textual.worker import Worker, get_current_worker

from gpu_tui.core.bench import BenchRunner, messages
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.run_log import RunHooks, RunLog
from gpu_tui.core.bench.runner import RunControl, drive
from gpu_tui.core.comm.runner import CommRunner
from gpu_tui.core.kitchen.measurement import (
    BUDGET_SECONDS,
    RealCheck,
    in_warmup,
    real_check,
    real_plan,
)
from gpu_tui.core.kitchen.measurement_reading import read
from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.ui.worker_failures import ReportsWorkerFailures, describe_failure

HINT = "m: measure again · Esc: close"
SCROLL_HINT = "Tab, then ↑↓: the rest"  # shown only while the panel holds more than it shows


class Runner(RunControl, Protocol):
    """What the panel needs of a :class:`BenchRunner` (tests pass a recorded one)."""

    def end_now(self) -> None: ...


def bench_runner(plan: dict[str, Any], python: str | None) -> Runner:
    kind = CommRunner if plan.get("suite") == "comm" else BenchRunner  # the hallway: torchrun
    return kind(plan, python=python, save=False)


class MeasurePanel(ReportsWorkerFailures, RunHooks, VerticalScroll, can_focus=True):
    """Attributes down: the pane calls ``start``, ``stop`` and ``set_params``; the thread worker
    posts each bench message to this panel, which redraws from the core's reading of it."""

    COMPONENT_CLASSES = {  # noqa: RUF012 — Textual API
        "measure-panel--title",
        "measure-panel--measured",
        "measure-panel--model",
        "measure-panel--value",
        "measure-panel--error",
        "measure-panel--note",
    }

    @dataclass
    class Update(Message):
        event: messages.Message
        run: int
        """Which run it belongs to: a stopped run's last messages must not land in the next."""

        def can_replace(self, message: Message) -> bool:  # heartbeats: the latest wins
            return (
                isinstance(message, MeasurePanel.Update)
                and isinstance(self.event, messages.Heartbeat)
                and isinstance(message.event, messages.Heartbeat)
            )

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.budget = BUDGET_SECONDS
        self.devices: list[str] | None = None
        self.python: str | None = None
        self.make_runner: Callable[[dict[str, Any], str | None], Runner] = bench_runner
        self.runner: Runner | None = None
        self.check: RealCheck | None = None
        self.params: KitchenParams | None = None
        self.results: list[BenchResult] = []
        self.status = ""
        self.problems: list[str] = []
        self.run_log = RunLog(self)
        self.finished = False
        self.warming = False  # the untimed warm-up pass is running: its results are dropped
        self.overflows = False  # holds more than it shows: the status says how to scroll
        self.run = 0

    def compose(self) -> ComposeResult:
        yield Static(id="measure-body")

    @property
    def running(self) -> bool:
        return self.runner is not None

    @property
    def warning(self) -> str:
        return self.run_log.warning.message if self.run_log.warning else ""

    # --- attributes down ---------------------------------------------------------------------
    def start(self, scenario: str, params: KitchenParams) -> None:
        """Measure what ``scenario`` stands for, afresh (any run going on is stopped first)."""
        self.stop()
        self.check, self.params = real_check(scenario, params), params
        self.results, self.problems, self.run_log = [], [], RunLog(self)
        self.finished = self.warming = False
        self.status = "loading PyTorch… (a few seconds, in the benchmark worker)"
        plan = real_plan(self.check, budget=self.budget, devices=self.devices)
        self.runner = self.make_runner(plan, self.python)
        self.run += 1
        self._drive(self.runner, self.run)
        self.draw()

    def toggle(self, scenario: str, params: KitchenParams) -> None:
        """The measure key: stop a run going on, otherwise start one."""
        if self.running:
            self.stop()
        else:
            self.start(scenario, params)

    def escape(self) -> bool:
        """Esc: stop a run going on (the panel stays), else close. True while it stays open."""
        if self.running:
            self.stop()
            return True
        return False

    def stop(self) -> None:
        """Stop a run; what was measured stays on screen (the runner kills it after 1 s)."""
        if self.runner is not None:
            self.runner.cancel()
            self.status = "stopping…"
            self.draw()
        self.workers.cancel_group(self, "kitchen-measure")

    def follow(self, scenario: str, params: KitchenParams) -> bool:
        """The pane loaded ``params``: the same scenario keeps the measurement and the model
        column follows the knobs; another scenario drops it. False when nothing is left."""
        if self.check is None:
            return False
        if self.check.scenario != scenario:
            self.stop()
            self.check = None
            return False
        self.params = params
        self.draw()
        return True

    def on_unmount(self) -> None:
        if self.runner is not None:  # the app is closing: never leave a worker process behind
            self.runner.end_now()

    # --- the thread worker ---------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="kitchen-measure", exit_on_error=False)
    def _drive(self, runner: Runner, run: int) -> None:
        # off the event loop: starting checks --bench-python in a subprocess
        worker = get_current_worker()
        drive(
            runner,
            lambda event: self.post_message(self.Update(event, run)),
            stop=lambda: worker.is_cancelled,  # keeps reading: Finished comes once it is gone
        )

    def worker_failed(self, worker: Worker[object]) -> None:
        if worker.group == "kitchen-measure" and self.runner is not None:
            self.runner.end_now()
            self.problems.append(describe_failure(worker))
            self._done("failed")
            self.draw()

    def on_measure_panel_update(self, message: Update) -> None:
        if message.run == self.run:
            self.run_log.apply(message.event)
            self.draw()

    def got_error(self, error: messages.BenchError) -> None:
        if error.kind == "start":
            self.problems.append(
                f"{error.message}. Point --bench-python at a Python with PyTorch, or "
                "pip install 'gpu-tui[torch]' here."
            )
            self.status = "could not start the benchmark worker"
        elif error.message not in self.problems:  # the warm-up pass may hit it first
            self.problems.append(error.message)

    def got_result(self, ready: messages.ResultReady) -> None:
        if not self.warming:
            self.results.append(ready.result)

    def got_status(self, status: messages.Status) -> None:
        self.status = status.message.replace("(a few seconds)", "…")

    def got_step(self, step: messages.Progress) -> None:
        self.warming = in_warmup(step.index, step.total, self.check)
        self.status = f"{self._doing()} {step.benchmark} on {step.device} …"

    def got_heartbeat(self, beat: messages.Heartbeat) -> None:
        filled = round(8 * self.run_log.fraction)
        self.status = f"{self._doing()} {beat.label}  {'▰' * filled}{'▱' * (8 - filled)}"

    def got_finished(self, finished: messages.Finished) -> None:
        words = {"completed": "measured", "cancelled": "stopped", "failed": "failed"}
        count = len(self.results)
        started = not any(e.get("kind") == "start" for e in finished.document.errors)
        self._done(
            f"{words[finished.status]}: {count} result{'s' * (count != 1)}"
            if started
            else "could not start the benchmark worker"
        )

    def _doing(self) -> str:
        return "warming up (not timed):" if self.warming else "measuring"

    def _done(self, status: str) -> None:
        self.runner, self.finished, self.status = None, True, f"{status} · {HINT}"
        self.warming = False

    # --- drawing -------------------------------------------------------------------------------
    def draw(self) -> None:
        if self.check is None or self.params is None:
            return
        style = self.get_component_rich_style
        no_gpu = any(skipped.device == "gpu" for skipped in self.run_log.skipped)
        reading = read(self.check, self.params, self.results, finished=self.finished, no_gpu=no_gpu)
        table = Table(box=None, padding=(0, 1), pad_edge=False, header_style="bold")
        for i, name in enumerate(reading.header):
            table.add_column(name, justify="left" if i == 0 else "right", no_wrap=i > 0)
        # the model's numbers and this machine's differ in colour: theory vs measurement
        value, theory = style("measure-panel--value"), style("measure-panel--model")
        styles = [theory if name == "model" else value for name in reading.header[1:]]
        for row in reading.rows:
            table.add_row(row[0], *(Text(c, st) for c, st in zip(row[1:], styles, strict=True)))
        parts: list[Any] = [
            Text.assemble(
                (" RUN IT FOR REAL ", style("measure-panel--title")), f" {self.check.title}"
            ),
            Text(
                f"{self.status} · {SCROLL_HINT}" if self.overflows else self.status,
                style("measure-panel--note"),
            ),
            table,
        ]
        if reading.model:
            parts.append(Text(reading.model))
        measured = reading.measured or ("" if self.finished else "This machine: …")
        if measured:
            parts.append(Text(measured, style("measure-panel--measured")))
        parts += [Text(p, style("measure-panel--error")) for p in self.problems]
        if self.warning:
            parts.append(Text(f"Note: {self.warning}", style("measure-panel--note")))
        if no_gpu:
            parts.append(Text(self.check.without_gpu, style("measure-panel--note")))
        parts.append(Text(self.check.analogy, style("measure-panel--note")))
        self.query_one("#measure-body", Static).update(Group(*parts))
        self.call_after_refresh(self._check_overflow)

    def _check_overflow(self) -> None:
        """Say how to scroll once the layout shows that not everything fits (80×24)."""
        overflows = self.max_scroll_y > 0
        if overflows != self.overflows:
            self.overflows = overflows
            self.draw()

    def on_resize(self) -> None:
        self.call_after_refresh(self._check_overflow)

    def watch_virtual_size(self) -> None:
        """The body's height changed (more rows or notes, a wider table): fits or not?"""
        self.call_after_refresh(self._check_overflow)
