"""The run document (``schema_version`` 1): one run's results, skips and errors, JSON in and out.

Apart from ``results`` (one measurement each) because it also carries what is derived from
them, such as the copy matrix (``core.comm.copies``), which itself is built from results.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.schema import SCHEMA_VERSION, check_document


@dataclass
class RunDocument:
    """Everything one run produced; saved after every result so nothing completed is lost."""

    suite: str
    budget_seconds: float
    started_at: str
    environment: dict[str, Any] | None = None
    results: list[BenchResult] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False
    finished: bool = False
    finished_at: str | None = None
    plan: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        data = {
            "schema_version": SCHEMA_VERSION,
            "suite": self.suite,
            "budget_seconds": self.budget_seconds,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "finished": self.finished,
            "interrupted": self.interrupted,
            "environment": self.environment,
            "results": [r.to_dict() for r in self.results],
            "skipped": self.skipped,
            "errors": self.errors,
            "plan": self.plan,
        }
        if any(r.benchmark == "copies" for r in self.results):
            # the copy matrix, derived from the results (which stay the record): read back,
            # it is ignored and derived again (core.comm.copies.summary)
            # imported here: core.comm.copies reads core.bench's results, so importing it with
            # this module would be a loop for whoever imports core.comm first
            from gpu_tui.core.comm.copies import summary

            data["copies"] = summary(self.results)
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, allow_nan=False, default=str) + "\n"

    @classmethod
    def from_dict(cls, data: object) -> RunDocument:
        """A document read from a file, checked against the schema first (core.bench.schema);
        SchemaError (a ValueError) names the first problem and where it is."""
        checked = check_document(data)
        return cls(
            suite=checked["suite"],
            budget_seconds=float(checked["budget_seconds"]),
            started_at=checked["started_at"],
            environment=checked.get("environment"),
            results=[BenchResult.from_checked(r) for r in checked["results"]],
            skipped=checked.get("skipped", []),
            errors=checked.get("errors", []),
            interrupted=checked.get("interrupted", False),
            finished=checked.get("finished", False),
            finished_at=checked.get("finished_at"),
            plan=checked.get("plan"),
        )
