"""The last health check, kept so ``gpu-tui export`` can serve it and the fleet can flag a node
whose check failed or is stale: ``<data dir>/checks/last.json``, the ``--json`` report itself.

The file is read back through a strict struct: one that is corrupt, hostile or of another
version is refused with the reason, never half-trusted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from gpu_tui.core.bench.outputs import atomic_write
from gpu_tui.core.data_dir import data_dir

MAX_BYTES = 1 << 20
"""A report of a thousand findings is ~300 KB; a bigger file is not one of ours."""


def last_check_path() -> Path:
    return data_dir() / "checks" / "last.json"


def save(document: dict[str, Any], path: Path | None = None) -> str | None:
    """Write the report atomically (temp file, rename); what went wrong, or None."""
    target = path or last_check_path()
    try:
        atomic_write(target, json.dumps(document, indent=1) + "\n")
    except OSError as error:
        return f"the check could not be kept in {target}: {error.strerror or error}"
    return None


class _Finding(msgspec.Struct, forbid_unknown_fields=False):
    gpu: int | None
    verdict: str
    check: str


class LastCheck(msgspec.Struct, forbid_unknown_fields=False):
    """What the export serves of a saved report."""

    schema_version: int
    timestamp: float
    exit_status: int
    findings: list[_Finding]

    def failures(self, gpu: int | None) -> int:
        """Failed checks of GPU ``gpu`` (None: of the host)."""
        return sum(f.verdict == "fail" and f.gpu == gpu for f in self.findings)


def load(path: Path | None = None) -> LastCheck | str:
    """The saved report, or why there is none to serve."""
    source = path or last_check_path()
    try:
        with source.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return "no check has run on this machine (gpu-tui check)"
    except OSError as error:
        return f"{source}: {error.strerror or error}"
    if len(data) > MAX_BYTES:
        return f"{source}: larger than a check report can be"
    try:
        found = msgspec.json.decode(data, type=LastCheck)
    except msgspec.DecodeError as error:
        return f"{source}: not a gpu-tui check report ({error})"
    if found.schema_version != 1 or found.exit_status not in (0, 1, 2):
        return f"{source}: a check report of another version"
    return found
