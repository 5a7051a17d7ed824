"""A measured TFLOP/s for the cost view: the best accelerator rate in the newest saved bench run."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.store import list_runs, load
from gpu_tui.core.errors import UsageError


@dataclass(frozen=True)
class Measured:
    """A delivered rate and where it was measured."""

    tflops: float
    source: str


def best_tflops(document: RunDocument) -> Measured | None:
    """The run's fastest median in TFLOP/s (the unit bench uses for accelerators, not CPUs)."""
    rates = [r for r in document.results if r.unit == "TFLOP/s" and r.value > 0]
    if not rates:
        return None
    best = max(rates, key=lambda r: r.value)
    return Measured(
        best.value, f"bench run {document.started_at}: {best.label.strip()} on {best.device}"
    )


def latest_measured() -> Measured | None:
    """From the newest run that has an accelerator rate; reads files, so call it off the UI loop."""
    for path in list_runs():
        try:
            measured = best_tflops(load(path))
        except UsageError:
            continue  # a corrupt or foreign file is skipped, not fatal
        if measured is not None:
            return measured
    return None
