"""Where results live: atomic saves under the user's data dir, ``--out`` files, baselines."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gpu_tui.core.bench.results import BenchResult, RunDocument, to_csv
from gpu_tui.core.errors import UsageError


def data_dir() -> Path:
    """``$GPU_TUI_DATA_DIR``, else ``$XDG_DATA_HOME/gpu-tui``, else ``~/.local/share/gpu-tui``."""
    override = os.environ.get("GPU_TUI_DATA_DIR")
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "gpu-tui"


def results_dir() -> Path:
    return data_dir() / "results"


def atomic_write(path: Path, text: str) -> None:
    """Write to a temp file in the same folder, fsync, rename: a reader (or a crash) sees the old
    file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def export(document: RunDocument, path: Path) -> None:
    """``--out FILE``: the JSON document, or CSV rows when the name ends in ``.csv``."""
    text = to_csv(document.results) if path.suffix.lower() == ".csv" else document.to_json()
    atomic_write(path, text)


def auto_path(document: RunDocument) -> Path:
    stamp = document.started_at.replace(":", "").replace("-", "").replace("+0000", "Z")
    return results_dir() / f"bench-{stamp}-{document.suite}.json"


def list_runs() -> list[Path]:
    """Saved runs, newest first."""
    folder = results_dir()
    return sorted(folder.glob("bench-*.json"), reverse=True) if folder.is_dir() else []


def load(path: Path) -> RunDocument:
    """A saved run; a missing or corrupt file is a UsageError (one line, exit 2)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise UsageError(f"{path} is not valid JSON ({error})") from None
    try:
        return RunDocument.from_dict(data)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise UsageError(f"{path} is not a gpu-tui bench results file: {error}") from None


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
    def percent(self) -> float:
        """Change in the figure, in % (positive = more GB/s, more FLOP/s, or more µs)."""
        return 100.0 * (self.result.value - self.baseline.value) / self.baseline.value


def compare(current: list[BenchResult], baseline: RunDocument) -> dict[str, Delta]:
    """Deltas by result key, for results measured in both runs."""
    earlier = {r.key: r for r in baseline.results if r.median_seconds > 0 and r.value}
    return {r.key: Delta(r, earlier[r.key]) for r in current if r.key in earlier}
