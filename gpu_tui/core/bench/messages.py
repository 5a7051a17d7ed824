"""What a :class:`~gpu_tui.core.bench.runner.BenchRunner` yields while a run goes on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.telemetry import Reading


@dataclass(frozen=True)
class Status:
    """A phase of the worker's life, e.g. "loading PyTorch"."""

    message: str


@dataclass(frozen=True)
class RunWarning:
    """Something that makes this run's figures less trustworthy; the run goes on.

    ``message`` is the news in one clause, ``detail`` what the run does about it."""

    message: str
    detail: str = ""

    @property
    def text(self) -> str:
        return f"{self.message} ({self.detail})" if self.detail else self.message


@dataclass(frozen=True)
class EnvironmentReady:
    """The worker's environment record (software, flags, devices): arrives once, before results."""

    environment: dict[str, Any]


@dataclass(frozen=True)
class Progress:
    """Benchmark ``index`` of ``total`` (a benchmark on one device) has started."""

    index: int
    total: int
    benchmark: str
    device: str


@dataclass(frozen=True)
class Heartbeat:
    """The current measurement and how far through its budget it is (0..1); latest wins."""

    label: str
    fraction: float

    def can_replace(self, other: object) -> bool:
        return isinstance(other, Heartbeat)


@dataclass(frozen=True)
class Telemetry:
    """The latest NVML reading of each GPU of the run (at most twice a second); latest wins."""

    readings: dict[str, Reading]

    def can_replace(self, other: object) -> bool:
        return isinstance(other, Telemetry)

    def line(self, device: str | None = None) -> tuple[str, Reading] | None:
        """(shown text, reading) for ``device`` (else the first GPU); the device is named
        only when the run has several GPUs."""
        chosen = device if device in self.readings else next(iter(self.readings), None)
        if chosen is None:
            return None
        reading = self.readings[chosen]
        prefix = f"{chosen} " if len(self.readings) > 1 else ""
        return prefix + reading.line(), reading


@dataclass(frozen=True)
class ResultReady:
    """One measurement finished; it is already in the document and saved."""

    result: BenchResult


@dataclass(frozen=True)
class Skipped:
    """Something that could not run here, and why (not a failure)."""

    benchmark: str
    device: str
    reason: str
    params: dict[str, Any] = field(default_factory=dict)


REFUSED_KINDS = ("bad_device", "bad_plan", "start")
"""Failures that mean the run was refused before it measured anything: the command line (or the
pane's choices) asked for something impossible."""


@dataclass(frozen=True)
class BenchError:
    """A failure. ``fatal`` ends the run (torch missing, crash, hang); otherwise the run goes on.

    ``kind``: ``torch_missing``, ``bad_device``, ``bad_plan``, ``start`` (the worker could not
    be started: ``--bench-python``), ``oom``, ``exception``, ``crash``, ``hang``, ``protocol`` or
    ``internal`` (gpu-tui itself failed while following the run).
    """

    kind: str
    message: str
    benchmark: str | None = None
    device: str | None = None
    fatal: bool = False


@dataclass(frozen=True)
class SaveFailed:
    """A file of the run could not be written (a full disk, a read-only results store); the run
    goes on and its results still reach every other destination."""

    message: str
    store: bool
    """True for the results store (saved runs), False for an ``--out`` file or an export."""


@dataclass(frozen=True)
class Finished:
    """The run is over: ``completed``, ``cancelled`` or ``failed``; the final document."""

    status: str
    document: RunDocument


Message = (
    Status
    | RunWarning
    | EnvironmentReady
    | Progress
    | Heartbeat
    | Telemetry
    | ResultReady
    | Skipped
    | BenchError
    | SaveFailed
    | Finished
)
