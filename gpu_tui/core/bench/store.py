"""Where results live: atomic saves under the user's data dir, ``--out`` files, baselines."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.outputs import Destination
from gpu_tui.core.bench.results import BenchResult, to_csv
from gpu_tui.core.bench.schema import SchemaError, printable, read_json
from gpu_tui.core.data_dir import data_dir
from gpu_tui.core.errors import InputError, UsageError


def results_dir() -> Path:
    return data_dir() / "results"


class RunOutput:
    """``--out FILE`` (or an export): the JSON document, with baseline deltas when given, or CSV
    rows when the name ends in ``.csv``. Opened before the run (a path that cannot be written
    is a UsageError then); see :mod:`gpu_tui.core.bench.outputs` for how each kind of file is
    written."""

    def __init__(
        self,
        path: Path,
        baseline: tuple[RunDocument, Path] | None = None,
        *,
        waiting: Callable[[str], None] | None = None,
    ) -> None:
        self.destination = Destination.open(path, waiting=waiting)
        self.path = path
        self.baseline = baseline
        self._csv = path.suffix.lower() == ".csv"

    def save(self, document: RunDocument, *, final: bool) -> str | None:
        """Write the document (a FIFO or device only when ``final``); what went wrong, or None."""
        if self.destination.is_stream and not final:
            return None
        text = to_csv(document.results) if self._csv else document_json(document, self.baseline)
        return self.destination.write(text, final=final)

    def close(self) -> None:
        self.destination.close()


def export(
    document: RunDocument, path: Path, baseline: tuple[RunDocument, Path] | None = None
) -> None:
    """Write ``document`` to ``path`` once (the Bench pane's export), making missing folders;
    an OSError whose text is one line saying what failed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        output = RunOutput(path, baseline)
    except OSError as error:
        raise OSError(f"cannot write {path}: {error.strerror or error}") from None
    except UsageError as error:
        raise OSError(str(error)) from None
    problem = output.save(document, final=True)
    if problem is not None:
        raise OSError(problem)


def auto_path(document: RunDocument) -> Path:
    stamp = document.started_at.replace(":", "").replace("-", "").replace("+0000", "Z")
    return results_dir() / f"bench-{stamp}-{document.suite}.json"


def list_runs() -> list[Path]:
    """Saved runs, newest first."""
    folder = results_dir()
    return sorted(folder.glob("bench-*.json"), reverse=True) if folder.is_dir() else []


def load(path: Path) -> RunDocument:
    """A saved run or a baseline, checked against the schema before anything uses it: any
    problem is an InputError of one line naming the file and the first problem (exit 2)."""
    try:
        return RunDocument.from_dict(read_json(path))
    except SchemaError as error:
        raise InputError(f"{printable(str(path))}: {error}") from None


@dataclass(frozen=True)
class Delta:
    """The change of one result against the same measurement in a baseline run."""

    result: BenchResult
    baseline: BenchResult

    @property
    def speedup(self) -> float:
        """> 1 means faster now (baseline time / current time)."""
        return self.baseline.median_seconds / self.result.median_seconds

    @property
    def fraction(self) -> float:
        """Change in the figure, as a fraction (positive = more GB/s, more FLOP/s, or more µs):
        what ``format_percent`` writes, with no rounding moved by a scale and back."""
        return (self.result.value - self.baseline.value) / self.baseline.value

    @property
    def percent(self) -> float:
        """Change in the figure, in % (positive = more GB/s, more FLOP/s, or more µs)."""
        return 100.0 * (self.result.value - self.baseline.value) / self.baseline.value


def compare(current: list[BenchResult], baseline: RunDocument) -> dict[str, Delta]:
    """Deltas by result key, for results measured in both runs."""
    earlier = {r.key: r for r in baseline.results if r.median_seconds > 0 and r.value}
    return {r.key: Delta(r, earlier[r.key]) for r in current if r.key in earlier}


def with_baseline(document: RunDocument, baseline: RunDocument, source: Path) -> dict[str, Any]:
    """The document's JSON data with ``baseline_file`` and, on every result, ``baseline``: the
    earlier ``value``, ``unit`` and ``median_seconds``, ``relative_change`` of the value
    ((now - then) / then) and ``speedup`` (then / now time per call); null when the baseline has
    no such measurement."""
    data = document.to_dict()
    data["baseline_file"] = str(source)
    deltas = compare(document.results, baseline)
    for result, row in zip(document.results, data["results"], strict=True):
        delta = deltas.get(result.key)
        row["baseline"] = (
            None
            if delta is None
            else {
                "value": delta.baseline.value,
                "unit": delta.baseline.unit,
                "median_seconds": delta.baseline.median_seconds,
                "relative_change": delta.percent / 100.0,
                "speedup": delta.speedup,
            }
        )
    return data


def document_json(document: RunDocument, baseline: tuple[RunDocument, Path] | None = None) -> str:
    """What ``--json`` prints: the document, with per-result baseline deltas when given."""
    if baseline is None:
        return document.to_json()
    data = with_baseline(document, *baseline)
    return json.dumps(data, indent=2, allow_nan=False, default=str) + "\n"
