"""Benchmark results, one measurement each: from the worker, JSON in and out, CSV out.

The run document that holds them is ``core.bench.document``."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from gpu_tui.core.bench.formulas import GB, figure
from gpu_tui.core.bench.peak import PeakTable

CSV_COLUMNS = (
    "benchmark",
    "variant",
    "device",
    "dtype",
    "params",
    "median_seconds",
    "p20_seconds",
    "p80_seconds",
    "repeats",
    "value",
    "unit",
    "percent_of_peak",
    "warnings",
    "cache",
)


@dataclass
class BenchResult:
    """One measurement: what ran, how long a call took (median and spread), the figure."""

    benchmark: str
    variant: str
    device: str
    dtype: str | None
    params: dict[str, Any]
    median_seconds: float
    p20_seconds: float
    p80_seconds: float
    repeats: int
    value: float
    unit: str
    percent_of_peak: float | None
    warnings: list[str] = field(default_factory=list)
    best_seconds: float | None = None
    """Fastest repeat: a "capability" figure, never the headline ("Median is the headline" in the
    bench package docstring, bench/__init__.py, like the other rules quoted here)."""
    throughput: float | None = None
    throughput_unit: str | None = None
    peak: float | None = None
    scope: str = "resident"
    """``resident`` (data on the device), ``end-to-end`` (copies in), ``host`` or ``transfer``."""
    timing: dict[str, Any] = field(default_factory=dict)
    checks: dict[str, Any] | None = None
    foreign_cpu_vcpus: float | None = None
    precision: dict[str, Any] | None = None
    cache: str | None = None
    """``hot`` (inputs already in cache from the previous call) or ``cold`` (flushed before
    each call): "Hot or cold caches, said which"."""
    telemetry: dict[str, Any] | None = None
    """NVML readings over the timed part ("GPU telemetry while timed"): clocks, power,
    temperature, throttle reasons."""
    launch_inclusive_seconds: float | None = None
    """For a short GPU kernel timed as a CUDA-graph replay ("Short kernels as a graph replay"):
    the eager time per call, with the launch overhead a Python loop of such calls pays."""
    bus_bandwidth_bytes_per_second: float | None = None
    """A collective's bus bandwidth (nccl-tests' busbw: algbw × the operation's factor), the
    figure to hold against the link's peak; ``value`` holds it in GB/s."""
    algorithm_bandwidth_bytes_per_second: float | None = None
    """A collective's algorithm bandwidth (nccl-tests' algbw: its size over its time)."""

    @property
    def key(self) -> str:
        """Identity for comparing runs: same benchmark, variant, device, dtype and parameters."""
        params = json.dumps(self.params, sort_keys=True, separators=(",", ":"))
        return f"{self.benchmark}/{self.variant}/{self.device}/{self.dtype}/{params}"

    @property
    def library(self) -> str:
        """Which library ran the row: numpy variants (``mm-numpy``, ``cpu-numpy``) end in
        ``-numpy``, everything else is torch (the rule "CPU best" compares the two)."""
        return "numpy" if self.variant.endswith("-numpy") else "torch"

    @property
    def label(self) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in self.params.items() if v is not None)
        return f"{self.benchmark} {self.variant} {self.dtype or ''} {shown}".replace("  ", " ")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_checked(cls, data: dict[str, Any]) -> BenchResult:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        # a file may spell a float as an integer (1 for 1.0): the fields are floats all the same
        for key in _FLOAT_FIELDS:
            if isinstance(known.get(key), int):
                known[key] = float(known[key])
        return cls(**known)


_FLOAT_FIELDS = (
    "median_seconds",
    "p20_seconds",
    "p80_seconds",
    "value",
    "percent_of_peak",
    "best_seconds",
    "throughput",
    "peak",
    "foreign_cpu_vcpus",
    "launch_inclusive_seconds",
)


def from_worker(message: dict[str, Any], peaks: PeakTable) -> BenchResult:
    """Turn a worker ``result`` message into a result with its figure and % of peak."""
    timing = dict(message["timing"])
    median = float(timing["median_seconds"])
    fig = figure(message, median)
    bus, algorithm = _collective_bandwidths(message, median)
    percent, notes = peaks.percent(message["device"], fig)
    return BenchResult(
        benchmark=message["benchmark"],
        variant=message.get("variant") or "",
        device=message["device"],
        dtype=message.get("dtype"),
        params=dict(message.get("params") or {}),
        median_seconds=median,
        p20_seconds=float(timing["p20_seconds"]),
        p80_seconds=float(timing["p80_seconds"]),
        repeats=int(timing["repeats"]),
        value=fig.value,
        unit=fig.unit,
        percent_of_peak=percent,
        warnings=list(message.get("warnings") or []) + notes,
        best_seconds=timing.get("best_seconds"),
        throughput=fig.throughput,
        throughput_unit=fig.throughput_unit,
        peak=peaks.lookup(message["device"], fig.peak_kind),
        scope=message.get("scope") or "resident",
        timing=timing,
        checks=message.get("checks"),
        foreign_cpu_vcpus=message.get("foreign_cpu_vcpus"),
        precision=message.get("precision"),
        cache=message.get("cache"),
        launch_inclusive_seconds=timing.get("launch_inclusive_seconds"),
        bus_bandwidth_bytes_per_second=bus,
        algorithm_bandwidth_bytes_per_second=algorithm,
    )


def _collective_bandwidths(
    message: dict[str, Any], seconds: float
) -> tuple[float | None, float | None]:
    """(busbw, algbw) in bytes/s for a collective; (None, None) for any other benchmark."""
    if message["benchmark"] != "comm":
        return None, None
    from gpu_tui.core.comm.bandwidth import algbw_gbps, busbw_gbps

    params, operation = message["params"], str(message.get("variant"))
    size, ranks = params["bytes"], params["ranks"]
    return busbw_gbps(operation, size, seconds, ranks) * GB, algbw_gbps(size, seconds) * GB


def to_csv(results: list[BenchResult]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in results:
        row = r.to_dict()
        row["params"] = json.dumps(r.params, sort_keys=True)
        row["warnings"] = "; ".join(r.warnings)
        writer.writerow(["" if row[c] is None else row[c] for c in CSV_COLUMNS])
    return out.getvalue()
