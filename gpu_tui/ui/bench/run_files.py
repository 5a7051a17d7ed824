"""Saved runs for the Bench pane: load the last one, compare with one, export the shown one."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.message import Message
from textual.widget import Widget

from gpu_tui.core.bench.results import BenchResult, RunDocument
from gpu_tui.core.bench.store import export, list_runs, load
from gpu_tui.core.errors import UsageError
from gpu_tui.ui.bench.path_dialog import PathDialog


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
    class Exported(Message):
        paths: list[Path]

    def show_results(self, results: list[BenchResult]) -> None:
        """Put ``results`` in the table and plots (the pane does it)."""
        raise NotImplementedError

    def action_compare(self) -> None:
        runs = [p for p in list_runs() if p != self.saved_path][:30]
        hint = "Enter compares · empty line drops the baseline · Esc closes"
        self.app.push_screen(
            PathDialog("Compare with a saved run or a baseline file", hint, "", runs),
            self._compare_chosen,
        )

    def _compare_chosen(self, path: Path | None) -> None:
        if path is None:
            return
        if str(path) == ".":
            self.baseline = None
            self.show_results(self.results)
            return
        self.load_run(path, baseline=True)

    def action_export(self) -> None:
        if not self.results:
            self.notify("Nothing to export yet: r runs the benchmarks.", severity="warning")
            return
        stamp = time.strftime("%Y%m%d-%H%M%S")
        hint = "Enter writes NAME.json and NAME.csv (or give .json / .csv) · Esc closes"
        default = str(Path.cwd() / f"gpu-tui-bench-{stamp}")
        self.app.push_screen(PathDialog("Export the shown run", hint, default), self._export_to)

    def _export_to(self, path: Path | None) -> None:
        if path is not None and self.document is not None:
            snapshot = dataclasses.replace(self.document, results=list(self.results))
            self.export_run(snapshot, path)

    @work(thread=True, exclusive=True, group="bench-load", exit_on_error=False)
    def load_run(self, path: Path | None, *, baseline: bool) -> None:
        if path is None:
            runs = list_runs()
            if not runs:
                return
            path = runs[0]
        try:
            self.post_message(self.Loaded(load(path), path, baseline))
        except UsageError as error:
            self.post_message(self.Problem("load", str(error)))

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
        self.notify("Exported " + ", ".join(map(str, message.paths)))


def describe(document: RunDocument) -> str:
    """E.g. "Last run: quick, 2026-12-02 18:18 UTC, 23 results" (and whether it was stopped)."""
    when = document.started_at.replace("T", " ")[:16]
    state = ", stopped early" if document.interrupted else ""
    return f"Last run: {document.suite}, {when} UTC, {len(document.results)} results{state}"
