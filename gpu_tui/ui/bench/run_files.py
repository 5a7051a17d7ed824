"""Saved runs for the Bench pane: load the last one, compare with one, export the shown one.

Every run file is read through ``core.bench.store.load``, which checks it against the schema:
a file that fails is named with its reason in the pane's notice and skipped, never half shown.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.message import Message
from textual.widget import Widget
from textual.worker import get_current_worker

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.store import export, list_runs, load
from gpu_tui.core.errors import UsageError
from gpu_tui.ui.bench.path_dialog import NO_PATH, PathDialog

MAX_OFFERED = 30
"""Saved runs offered for a comparison (newest first)."""
MAX_NAMED = 3
"""Unreadable files named one by one in the notice; the rest are counted."""


class RunFiles(Widget):
    """The file side of the Bench pane (mixed into it): every read and write runs in a thread
    and reports back with a message."""

    results: list[BenchResult]
    document: RunDocument | None
    baseline: RunDocument | None
    saved_path: Path | None

    @dataclass
    class Problem(Message):
        """Something failed outside the run's own messages (bad --bench-python, a bad file)."""

        kind: str
        message: str

    @dataclass
    class Loaded(Message):
        """A saved run read from disk: to show (``baseline`` False) or to compare with."""

        document: RunDocument
        path: Path
        baseline: bool

    @dataclass
    class Listed(Message):
        """The saved runs that can be compared with (they load), and why the others cannot."""

        runs: list[Path]
        unreadable: list[str]

    @dataclass
    class Exported(Message):
        paths: list[Path]

    def show_results(self, results: list[BenchResult]) -> None:
        """Put ``results`` in the table and plots (the pane does it)."""
        raise NotImplementedError

    def file_problem_over(self) -> None:
        """A file was read or written as asked: a file's problem still on show is over (the
        pane takes it down)."""
        raise NotImplementedError

    def action_compare(self) -> None:
        self.list_comparable(self.saved_path)

    @work(thread=True, exclusive=True, group="bench-list", exit_on_error=False)
    def list_comparable(self, shown: Path | None) -> None:
        """Reads each saved run (but the one shown): only those that load are offered."""
        runs: list[Path] = []
        unreadable: list[str] = []
        for path in list_runs():
            if get_current_worker().is_cancelled:
                return
            if path == shown:
                continue
            try:
                load(path)
            except UsageError as error:
                unreadable.append(str(error))
                continue
            runs.append(path)
            if len(runs) == MAX_OFFERED:
                break
        self.post_message(self.Listed(runs, unreadable))

    def on_run_files_listed(self, message: Listed) -> None:
        if isinstance(self.app.screen, PathDialog):  # c pressed twice: one dialog is enough
            return
        if message.unreadable:
            self.post_message(self.Problem("load", unreadable_notice(message.unreadable)))
        hint = "Enter compares · ↑↓ runs · Tab completes · empty: no baseline"
        self.app.push_screen(
            PathDialog(
                "Compare with a saved run or a baseline file",
                hint,
                "",
                message.runs,
                allow_empty=True,
            ),
            self._compare_chosen,
        )

    def _compare_chosen(self, path: Path | None) -> None:
        if path is None:
            return
        if path == NO_PATH:
            self.baseline = None
            self.show_results(self.results)
            return
        self.load_run(path, baseline=True)

    def action_export(self) -> None:
        if not self.results:
            self.notify("Nothing to export yet: r runs the benchmarks.", severity="warning")
            return
        stamp = time.strftime("%Y%m%d-%H%M%S")
        hint = "Enter writes NAME.json and NAME.csv (or give .json / .csv)"
        default = str(Path.cwd() / f"gpu-tui-bench-{stamp}")
        self.app.push_screen(PathDialog("Export the shown run", hint, default), self._export_to)

    def _export_to(self, path: Path | None) -> None:
        if path is not None and self.document is not None:
            snapshot = dataclasses.replace(self.document, results=list(self.results))
            self.export_run(snapshot, path)

    @work(thread=True, exclusive=True, group="bench-load", exit_on_error=False)
    def load_run(self, path: Path | None, *, baseline: bool) -> None:
        """``path``, or (None) the newest saved run that loads; unreadable ones are named."""
        if path is not None and not path.exists():  # said plainly: there is nothing to read
            self.post_message(self.Problem("missing", f"No such file: {path}"))
            return
        candidates = [path] if path is not None else list_runs()
        unreadable: list[str] = []
        for candidate in candidates:
            if get_current_worker().is_cancelled:
                return
            try:
                document = load(candidate)
            except UsageError as error:
                unreadable.append(str(error))
                continue
            self.post_message(self.Loaded(document, candidate, baseline))
            break
        if unreadable:
            self.post_message(self.Problem("load", unreadable_notice(unreadable)))

    @work(thread=True, group="bench-export", exit_on_error=False)
    def export_run(self, document: RunDocument, path: Path) -> None:
        plain = path.suffix.lower() not in (".json", ".csv")
        targets = [path.with_suffix(".json"), path.with_suffix(".csv")] if plain else [path]
        try:
            for target in targets:
                export(document, target)
        except OSError as error:
            self.post_message(self.Problem("export", f"cannot write {path}: {error}"))
            return
        self.post_message(self.Exported(targets))

    def on_run_files_exported(self, message: Exported) -> None:
        self.file_problem_over()
        # a typed path may hold brackets: never read as markup
        self.notify("Exported " + ", ".join(map(str, message.paths)), markup=False)


def unreadable_notice(problems: list[str]) -> str:
    """One line per unreadable file (``load``'s message: the file, then its first problem), the
    first few named, the rest counted. Plain text: the pane shows it as Text, never as markup."""
    lines = [f"Unreadable, skipped: {problem}" for problem in problems[:MAX_NAMED]]
    if len(problems) > MAX_NAMED:
        lines.append(f"… and {len(problems) - MAX_NAMED} more unreadable saved runs")
    return "\n".join(lines)


def describe(document: RunDocument) -> str:
    """E.g. "Last run: quick, 2026-12-02 18:18 UTC, 23 results" (and whether it was stopped)."""
    when = document.started_at.replace("T", " ")[:16]
    state = ", stopped early" if document.interrupted else ""
    return f"Last run: {document.suite}, {when} UTC, {len(document.results)} results{state}"
