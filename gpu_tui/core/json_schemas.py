"""The JSON Schema of every ``--json`` output, shipped with the package (``gpu_tui/schemas/``).

One file per output, named by what prints it: ``info``, ``watch`` (one object per line),
``bench`` (the run file ``gpu-tui bench`` saves and ``--json`` prints), ``kitchen``,
``guide-fit``, ``guide-cost``, ``fleet``. ``gpu-tui schema NAME`` prints one. A reading that is
unknown is ``null``, with the reason under the object's ``unknown`` key; an object is closed
(``additionalProperties: false``) unless its keys are data (an index, a label, a field name).

The bench file is what the run file's msgspec structs (``core.bench.schema``) say, so the
schema a script validates against and the checks gpu-tui applies to a file it reads are one.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import msgspec

from gpu_tui.core.bench.schema import RunFile

NAMES = ("info", "watch", "check", "bench", "kitchen", "guide-fit", "guide-cost", "fleet")
DIALECT = "https://json-schema.org/draft/2020-12/schema"
BENCH_TITLE = "gpu-tui bench --json"
BENCH_DESCRIPTION = (
    "A benchmark run: the environment it ran in, each result with its timing, telemetry and "
    "% of peak, what was skipped and why, and what failed."
)


def schema(name: str) -> dict[str, Any]:
    """The shipped schema for output ``name`` (one of ``NAMES``); KeyError for any other."""
    if name not in NAMES:
        raise KeyError(name)
    text = resources.files("gpu_tui.schemas").joinpath(f"{name}.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def bench_schema() -> dict[str, Any]:
    """The run file's schema as its structs generate it (what ``bench.schema.json`` holds)."""
    generated = msgspec.json.schema(RunFile)
    return {
        "$schema": DIALECT,
        "$id": schema_id("bench"),
        "title": BENCH_TITLE,
        "description": BENCH_DESCRIPTION,
        **generated,
    }


def schema_id(name: str) -> str:
    return f"urn:gpu-tui:schema:{name}"
