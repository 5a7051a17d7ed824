"""The Bench pane: choose, run (in a worker process), watch, stop, read, plot, compare, export."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import DataTable, Static
from textual.worker import Worker

from gpu_tui.core.bench import BenchRunner, messages
from gpu_tui.core.bench import result_text as rt
from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.run_log import RunHooks, RunLog
from gpu_tui.core.bench.runner import drive
from gpu_tui.core.bench.store import compare
from gpu_tui.core.bench.suites import HostSpeed
from gpu_tui.core.comm.copies import COLOUR_NOTE
from gpu_tui.core.comm.runner import CommRunner
from gpu_tui.core.devices.model import Inventory
from gpu_tui.core.torch_build import torch_cuda
from gpu_tui.ui.bench import comm_plot, plot_data
from gpu_tui.ui.bench.bench_plot import BenchPlot
from gpu_tui.ui.bench.chooser import BenchChooser
from gpu_tui.ui.bench.commands import BenchCommands
from gpu_tui.ui.bench.copy_table import CopyTable
from gpu_tui.ui.bench.results_table import ResultsTable
from gpu_tui.ui.bench.run_files import RunFiles, describe
from gpu_tui.ui.bench.run_progress import RunProgress
from gpu_tui.ui.bench.run_tracker import RunTracker
from gpu_tui.ui.config import AppConfig
from gpu_tui.ui.pane import Pane
from gpu_tui.ui.widgets.reading_box import ReadingBox
from gpu_tui.ui.worker_failures import describe_failure

VIEWS = ("setup", "table", "plot")
IDLE_HINT = "r run · o options · t table · p plots · c compare · x export"


class BenchPane(Pane, RunFiles, RunHooks):
    """At 80 columns one view at a time (options, table, plots); from 110 all side by side."""

    LEGEND = (
        ("%pk", "The result as a share of the device's theoretical peak"),
        ("p20-80", "How widely the middle 60 % of the timings spread, against the median"),
        ("Notes", rt.LEGEND.removeprefix("notes: ")),
        (
            "vs base",
            "The change from the run compared with (c): green better, red worse (for a time, "
            "lower is better)",
        ),
    )

    BINDINGS = [  # noqa: RUF012 — Textual API
        Binding("r", "run", "Run", tooltip="the chosen benchmarks with these settings"),
        Binding("escape", "cancel", "Stop", tooltip="the run; finished results are kept"),
        Binding("escape", "back", "Back", tooltip="to the results table"),
        Binding("p", "plots", "Plots", tooltip="the next plot of the results"),
        Binding("c", "compare", "Compare", tooltip="with a saved run or a baseline file"),
        Binding("x", "export", "Export", tooltip="the shown run as JSON and CSV"),
        Binding("o", "view('setup')", "Options", tooltip="what to run, and how"),
        Binding("t", "view('table')", "Table", tooltip="the results as a table"),
        Binding("s", "suite", "Suite", tooltip="quick or full"),
        Binding("d", "device", "Devices", tooltip="CPU, GPU or both"),
        Binding(
            "plus,equals_sign",
            "budget(True)",
            "More time",
            key_display="+",
            group=Binding.Group("Time per point", compact=True),
        ),
        Binding(
            "minus",
            "budget(False)",
            "Less time",
            key_display="-",
            group=Binding.Group("Time per point", compact=True),
        ),
    ]

    @dataclass
    class Update(Message):
        """One message from the run; heartbeats are "latest wins"."""

        event: messages.Message

        def can_replace(self, message: Message) -> bool:
            return (  # heartbeats and live GPU readings: only the latest matters
                isinstance(message, BenchPane.Update)
                and isinstance(self.event, (messages.Heartbeat, messages.Telemetry))
                and type(message.event) is type(self.event)
            )

    view: reactive[str] = reactive("setup")

    def __init__(self, config: AppConfig, *, id: str | None = None) -> None:
        super().__init__(config, id=id)
        self.results: list[BenchResult] = []
        self.document: RunDocument | None = None
        self.baseline: RunDocument | None = None
        self.baseline_name = ""  # its file's name, in the table's title while compared
        self.runner: BenchRunner | None = None
        self.run_log = RunLog(self)
        self.plot_index = 0
        self.saved_path: Path | None = None
        self.save_problem = ""
        """Why this run cannot be saved (a full disk, a read-only store), shown until the next."""
        self._notice = ""
        self._notice_error = False
        self._file_notice = ""
        """The notice a file's problem put up, taken down once a file is read or written."""
        self.skips: list[dict[str, object]] = []
        """What the shown run could not measure here (numpy missing …), said in the notice."""
        self._shown_before: tuple[RunDocument | None, Path | None, list[BenchResult]] | None = None
        """The run on show when r was pressed: shown again if the new one measures nothing."""

    def compose(self) -> ComposeResult:
        yield RunProgress(id="bench-progress")
        yield ReadingBox(text_id="bench-notice", id="bench-notice-box")
        with Horizontal(id="bench-body"):
            with Vertical(id="bench-left"):
                yield BenchChooser(id="bench-chooser")
                yield ResultsTable(id="bench-table")
                yield ReadingBox(text_id="bench-detail", id="bench-detail-box")
            with Vertical(id="bench-plots"):
                yield BenchPlot(id="bench-plot")
                yield CopyTable(id="bench-matrix")  # a comm run's copies, in the plot's place
                yield Static(id="bench-plot-note")

    def on_mount(self) -> None:
        # The app's palette lists Screen.COMMANDS; adding ours to this screen instance keeps
        # app.py free of pane-specific code (other panes can add theirs the same way).
        self.screen.COMMANDS = {*self.screen.COMMANDS, BenchCommands}  # type: ignore[misc]
        self.query_one("#bench-detail-box").border_title = "What it measured"
        self.set_class(True, "-view-setup")
        self._idle("Ready", IDLE_HINT)
        self.load_run(None, baseline=False)
        self.watch_inventory(self.inventory)

    def focus(self, scroll_visible: bool = True) -> BenchPane:
        plot = "#bench-matrix" if self.query_one(CopyTable).display else "#bench-plot"
        target = {"setup": "#bench-list", "table": "#bench-table", "plot": plot}[self.view]
        self.query_one(target).focus(scroll_visible)
        return self

    # --- attributes from the app ------------------------------------------------------------
    def watch_inventory(self, inventory: Inventory | None) -> None:
        # The inventory can arrive while the pane is still being composed: ``on_mount`` then
        # passes it on to the chooser.
        choosers = self.query(BenchChooser)
        if inventory is not None and choosers:
            real = [a for a in inventory.accelerators if not a.simulated and not a.lost]
            chooser = choosers.first()
            chooser.host = HostSpeed.of(inventory.cpu, inventory.memory)
            chooser.gpus = len(real)
            if real:  # NVML sees GPUs: whether the worker's torch can is another question
                self._read_torch_build()

    def watch_active(self) -> None:
        self._plot_visibility()

    def watch_view(self, old: str, new: str) -> None:
        self.set_class(False, f"-view-{old}")
        self.set_class(True, f"-view-{new}")
        self._plot_visibility()
        if self.active:  # the focused widget may just have been hidden: keep keys in the pane
            self.call_after_refresh(self.focus)

    def on_resize(self) -> None:
        self._plot_visibility()

    def _plot_visibility(self) -> None:
        wide = self.screen.has_class("-wide")
        self.query_one(BenchPlot).shown = self.active and (wide or self.view == "plot")
        self.refresh_bindings()  # Esc's meaning follows the view and the width

    # --- actions ------------------------------------------------------------------------------
    def action_view(self, view: str) -> None:
        if view == self.view:  # shown already (when wide, every view is): the keyboard goes there
            self.focus()
        self.view = view

    def action_plots(self) -> None:
        if self.view == "plot" or self.screen.has_class("-wide"):
            self.plot_index = (self.plot_index + 1) % len(self._views())
        self.view = "plot"
        self._update_plot()

    def action_suite(self) -> None:
        chooser = self.query_one(BenchChooser)
        chooser.cycle_suite()
        self._say_option("Suite", chooser.suite)

    def action_device(self) -> None:
        chooser = self.query_one(BenchChooser)
        before = chooser.device
        chooser.cycle_device()
        only = " (the only choice: no GPU to run on here)" if chooser.device == before else ""
        self._say_option("Devices", chooser.device + only, changed=not only)

    def action_budget(self, up: bool) -> None:
        chooser = self.query_one(BenchChooser)
        before = chooser.budget
        chooser.step_budget(up)
        end = "" if chooser.budget != before else " (the most)" if up else " (the least)"
        self._say_option("Time per point", f"{chooser.budget:g} s{end}", changed=not end)

    def _say_option(self, label: str, value: str, *, changed: bool = True) -> None:
        """An option key's change is seen in the options; where they are hidden (one view at a
        time) or nothing changed, a short note says what the key did."""
        hidden = self.view != "setup" and not self.screen.has_class("-wide")
        if hidden or not changed:
            where = " · o shows the options" if hidden else ""
            self.notify(f"{label}: {value}{where}", markup=False, timeout=3)

    def action_run(self) -> None:
        if self.runner is not None:
            self.notify("A run is going on: Esc stops it.", severity="warning")
            return
        chooser = self.query_one(BenchChooser)
        if not chooser.selected() and chooser.suite != "comm":
            self.notify("Choose at least one benchmark (space in the list).", severity="warning")
            return
        plan = chooser.plan()
        python, nvml = self.config.bench_python, self.config.nvml  # nvml: tests pass a fake
        kind = CommRunner if plan["suite"] == "comm" else BenchRunner  # comm: torchrun's ranks
        self.runner = kind(plan, python=python, save=True, nvml=nvml)
        shown = (self.document, self.saved_path, self.results)
        self._shown_before = shown if self.results else None
        self.saved_path = self.runner.saved_path
        self.document = self.runner.document
        self.run_log = RunLog(self)
        self.save_problem = ""
        self.skips = []
        self._set_notice("")
        self.show_results([])
        self.query_one(RunProgress).start(RunTracker(plan, chooser.estimate(), chooser.host))
        self.set_class(True, "-running")
        self.refresh_bindings()
        if self.view == "setup":
            self.view = "table"
        self._drive(self.runner)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Esc stops a run; with none going it goes back to the table from the options or a
        # plot (at 80 columns, where one view shows at a time). The footer shows only the one
        # that applies.
        if action == "cancel":
            return self.runner is not None
        if action == "back":
            narrow = not self.screen.has_class("-wide")
            return self.runner is None and narrow and self.view != "table"
        return True

    def action_cancel(self) -> None:
        if self.runner is not None:
            self.runner.cancel()  # "stop" now; killed by the runner if still there after 1 s
            tracker = self.query_one(RunProgress).tracker
            if tracker is not None:
                tracker.log.label = "stopping…"

    def action_back(self) -> None:
        self.view = "table"

    # --- thread workers -----------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="bench-torch", exit_on_error=False)
    def _read_torch_build(self) -> None:
        # off the event loop: --bench-python is asked in a subprocess where its torch is
        if torch_cuda(self.config.bench_python) is None:  # a CPU build: no GPU, ever
            self.app.call_from_thread(self._torch_sees_no_gpu, rt.TORCH_CPU_BUILD)

    def _torch_sees_no_gpu(self, why: str) -> None:
        self.query_one(BenchChooser).torch_note = why

    @work(thread=True, exclusive=True, group="bench-run", exit_on_error=False)
    def _drive(self, runner: BenchRunner) -> None:
        # off the event loop: starting checks --bench-python in a subprocess
        drive(runner, lambda event: self.post_message(self.Update(event)))

    # --- messages -----------------------------------------------------------------------------
    def on_run_files_loaded(self, message: RunFiles.Loaded) -> None:
        if message.baseline:
            self.baseline, self.baseline_name = message.document, message.path.name
            self.file_problem_over()
            self.notify(f"Comparing with {message.path.name}", markup=False)
        elif self.runner is None and not self.results:
            self.document, self.saved_path = message.document, message.path
            self.skips = list(message.document.skipped)
            self._set_notice(self._notice, error=self._notice_error)
            self._idle(describe(message.document), IDLE_HINT)
            self.view = "table"
        else:
            return
        self.show_results(self.document.results if self.document else [])

    def on_run_files_problem(self, message: RunFiles.Problem) -> None:
        self._file_notice = f"{message.message}\n{rt.advice(message.kind)}"
        self._set_notice(self._file_notice, error=True)

    def file_problem_over(self) -> None:
        if self._file_notice and self._notice == self._file_notice:  # nothing said since
            self._set_notice("")
        self._file_notice = ""

    def on_bench_pane_update(self, message: Update) -> None:
        self.run_log.apply(message.event)
        progress = self.query_one(RunProgress)
        if progress.tracker is not None:  # the progress line and its ETA follow every message
            progress.tracker.apply(message.event, time.monotonic())
        progress.refresh()

    def got_result(self, ready: messages.ResultReady) -> None:
        result = ready.result
        self.results.append(result)
        delta = compare([result], self.baseline).get(result.key) if self.baseline else None
        self.query_one(ResultsTable).add_result(result, delta)
        self._update_plot()

    def got_error(self, error: messages.BenchError) -> None:
        where = f" ({error.benchmark} on {error.device})" if error.benchmark else ""
        self._set_notice(f"{error.message}{where}\n{rt.advice(error.kind)}", error=error.fatal)

    def got_skip(self, skipped: messages.Skipped) -> None:
        self.skips.append({"benchmark": skipped.benchmark, "reason": skipped.reason})
        self._set_notice(self._notice, error=self._notice_error)

    def got_save_failed(self, failed: messages.SaveFailed) -> None:
        # stays up for the rest of the run, above whatever is said after it
        self.save_problem = f"{failed.message}. {rt.advice('save')}"
        self._set_notice("", error=True)

    def got_warning(self, warning: messages.RunWarning) -> None:
        self._set_notice(warning.text)

    def got_finished(self, finished: messages.Finished) -> None:
        runner, self.runner = self.runner, None
        self.set_class(False, "-running")
        self.refresh_bindings()
        self.document = finished.document
        count = len(finished.document.results)
        word = {"completed": "Done", "cancelled": "Stopped", "failed": "Failed"}[finished.status]
        kept = " (kept)" if finished.status != "completed" and count else ""
        why = ""
        if not count:
            why, where = self._nothing_measured()
        elif runner is not None and runner.store_problem is not None:
            where = "not saved (x exports it)"
            self.save_problem = f"{runner.store_problem}. x exports this run to a file elsewhere."
            self._set_notice(self._notice, error=True)
        elif self.saved_path is None or not self.saved_path.exists():
            where = "not saved"
        else:
            where = f"saved {self.saved_path.name}"
        headline = f"{word}: {count} results{why}{kept} · {where}"
        self.query_one(RunProgress).stop(headline, IDLE_HINT)

    def _nothing_measured(self) -> tuple[str, str]:
        """(why, what is shown) for a run that measured nothing: the run shown before it comes
        back, since an empty table would only take it away."""
        no_gpu = any(str(s.get("reason", "")).startswith(rt.NO_GPU_SEEN) for s in self.skips)
        why = " (the worker's torch sees no GPU)" if no_gpu else ""
        chooser = self.query_one(BenchChooser)
        if no_gpu and chooser.gpus:  # NVML sees GPUs, torch none: cpu is what is left to run
            chooser.torch_note = chooser.torch_note or rt.TORCH_SAW_NO_GPU
            self._set_notice(chooser.torch_note)
        if self._shown_before is None:
            return why, "not saved"
        self.document, self.saved_path, results = self._shown_before
        self.skips = list(self.document.skipped) if self.document else []
        self._set_notice(self._notice, error=self._notice_error)
        self.show_results(results)
        return why, "the last run shown again"

    def worker_failed(self, worker: Worker[object]) -> None:
        if worker.group == "bench-run" and self.runner is not None:
            self.runner.end_now()
            self._set_notice(describe_failure(worker), error=True)
            self.got_finished(messages.Finished("failed", self.runner.document))

    def on_unmount(self) -> None:
        if self.runner is not None:  # the app is closing: never leave a worker behind
            self.runner.end_now()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        result = self.query_one(ResultsTable).current()
        if result is None:
            return
        delta = compare([result], self.baseline).get(result.key) if self.baseline else None
        self.query_one("#bench-detail-box", ReadingBox).update(
            Text("\n".join(rt.explain(result, delta)))
        )

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        """The copy under the matrix's cursor, explained in the detail box (shown when wide)."""
        if not isinstance(event.data_table, CopyTable):
            return
        result = event.data_table.current()
        if result is not None:
            self.query_one("#bench-detail-box", ReadingBox).update(
                Text("\n".join(rt.explain(result)))
            )

    # --- drawing ------------------------------------------------------------------------------
    def _idle(self, headline: str, hint: str) -> None:
        progress = self.query_one(RunProgress)
        progress.headline, progress.hint = headline, hint

    def _set_notice(self, text: str, *, error: bool = False) -> None:
        self._notice, self._notice_error = text, error
        box = self.query_one("#bench-notice-box", ReadingBox)
        skipped = rt.skip_notice(self.skips)
        shown = "\n".join(part for part in (self.save_problem, text, skipped) if part)
        box.update(Text(shown))
        for widget in (box, box.text):  # the box shows; the text carries the state for tests
            widget.set_class(bool(shown), "-shown")
            widget.set_class(error or bool(self.save_problem), "-error")

    def show_results(self, results: list[BenchResult]) -> None:
        self.results = list(results)
        deltas = compare(self.results, self.baseline) if self.baseline else None
        base = self.baseline_name if self.baseline else ""
        self.query_one(ResultsTable).show(self.results, deltas, base=base)
        if not self.results:
            self.query_one("#bench-detail-box", ReadingBox).update("")
        self._update_plot()

    def _views(self) -> tuple[str, ...]:
        """What p cycles through: a comm run's plot and copies matrices, or the suite's plots."""
        if comm_plot.is_comm_run(self.results):
            return comm_plot.views(self.results)
        return plot_data.VIEWS

    def _update_plot(self) -> None:
        views = self._views()
        index = self.plot_index % len(views)
        matrix = comm_plot.matrix_for(views[index], self.results)
        table, note = self.query_one(CopyTable), self.query_one("#bench-plot-note", Static)
        table.display = matrix is not None
        self.query_one(BenchPlot).display = matrix is None
        plots = self.query_one("#bench-plots")
        if matrix is not None:  # a table, in the plot's place; its note may take more lines
            plots.border_title = f"{index + 1}/{len(views)} {matrix.short_title}"
            plots.border_subtitle = f"{COLOUR_NOTE} · p next"
            note.styles.max_height = 6
            note.update(Text(matrix.note()))
            table.show(matrix)
            return
        note.styles.clear_rule("max_height")
        environment = (self.document.environment if self.document else None) or {}
        spec = plot_data.build(
            views[index],
            self.results,
            self.baseline.results if self.baseline else None,
            gpu=any(r.device != "cpu" for r in self.results)
            or self.query_one(BenchChooser).gpus > 0,
            threads=environment.get("cpu_threads", "?"),
        )
        # "p next" below: above, the title alone has the width it needs beside the table
        plots.border_title = f"{index + 1}/{len(views)} {spec.title}"
        plots.border_subtitle = "p next plot"
        # A plot with nothing to draw shows its note in its own place: once is enough.
        plot = self.query_one(BenchPlot)
        below = (plot.legend(spec), Text(spec.note)) if spec.has_data else ()
        self.query_one("#bench-plot-note", Static).update(Text("\n").join(filter(None, below)))
        plot.show(spec)
