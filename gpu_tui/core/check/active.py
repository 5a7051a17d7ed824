"""The active checks of ``gpu-tui check --quick``: a short GEMM, memory-bandwidth and host↔GPU
copy run of the bench engine (its worker process), each figure judged against what the chip
should reach (gpu-tui's computed peak) and against the other GPUs of the same box: a GPU 10 %
below its siblings is an outlier even when its figure looks fine on its own. Clocks, power and
temperature read during each measurement tell "slow because throttled" from "slow"."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from gpu_tui.core.bench import messages as bench_messages
from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.runner import BenchRunner, drive
from gpu_tui.core.bench.suites import build_plan
from gpu_tui.core.check.findings import FAIL, OK, SKIP, WARN, Finding, run_failures
from gpu_tui.core.units import format_percent, format_reading_percent

BENCHMARKS = ["gemm", "bandwidth", "transfer"]
QUICK_BUDGET_SECONDS = 0.3
"""Per measurement point: the whole run is about half a minute on one GPU."""
FULL_BUDGET_SECONDS = 1.2
"""Per measurement point of ``--full``, over the full suite's sizes."""
BELOW_SIBLINGS = 0.90
"""Under this share of the median of the other GPUs' figure is an outlier."""
ABOVE_PEAK = 105.0
"""Over this % of the computed peak, the peak's assumptions are wrong for this chip."""
LOW_PERCENT = {"gemm": 30.0, "bandwidth": 50.0, "transfer": 50.0}
"""Under this % of peak a figure is worth a look even without siblings to compare."""
NAMES = {"gemm": "gemm", "bandwidth": "bandwidth", "transfer": "host-copies"}
GEMM_DTYPES = ("bf16", "fp16", "tf32", "fp32")
"""The precision that matters for a GPU's GEMM, first found first (training runs in bf16)."""


def run_quick(
    python: str | None = None,
    deliver: Callable[[bench_messages.Message], object] | None = None,
    *,
    full: bool = False,
) -> RunDocument:
    """The quick run, or with ``full`` the full suite's sizes for longer (never saved to the
    results store: it is a check, not a benchmark)."""
    suite, budget = ("full", FULL_BUDGET_SECONDS) if full else ("quick", QUICK_BUDGET_SECONDS)
    plan = build_plan(suite, only=BENCHMARKS, budget_seconds=budget)
    runner = BenchRunner(plan, python=python, save=False)
    drive(runner, deliver or (lambda message: None))
    return runner.document


def quick_findings(gpus: int, python: str | None = None, *, full: bool = False) -> list[Finding]:
    """The quick (or ``full``) run's findings and, on a box of two GPUs or more that it
    measured, the interconnect's (``check.interconnect``)."""
    from gpu_tui.core.check.interconnect import interconnect_findings, run_interconnect

    document = run_quick(python, full=full)
    found = active_findings(document)
    measured = {r.device for r in document.results if r.device.startswith("cuda")}
    if gpus >= 2 and len(measured) >= 2:
        budget = FULL_BUDGET_SECONDS if full else None
        found += interconnect_findings(run_interconnect(len(measured), python, budget=budget))
    return found


def _best(results: list[BenchResult]) -> BenchResult | None:
    """The result that says most of what the device can do: the highest % of peak, else the
    highest figure."""
    if not results:
        return None
    return max(results, key=lambda r: (r.percent_of_peak or 0.0, r.value))


def _figure(result: BenchResult) -> str:
    text = f"{result.value:,.0f} {result.unit}"
    if result.dtype and result.benchmark == "gemm":
        text += f" {result.dtype}"
    if result.percent_of_peak is not None:
        text += f", {format_reading_percent(result.percent_of_peak)} of peak"
    return text


def _throttled(result: BenchResult) -> str:
    reasons = [
        word for word in (result.telemetry or {}).get("throttle_reasons") or [] if word != "idle"
    ]
    return ", ".join(reasons)


def _gpu_index(document: RunDocument, device: str) -> int | None:
    devices = ((document.environment or {}).get("telemetry") or {}).get("devices") or {}
    index = (devices.get(device) or {}).get("nvml_index")
    # Unmatched (CUDA_VISIBLE_DEVICES renumbers): no GPU is named rather than the wrong one.
    return index if isinstance(index, int) else None


def _picked(document: RunDocument, benchmark: str) -> dict[str, BenchResult]:
    """Per device, the result that stands for it in ``benchmark``."""
    by_device: dict[str, list[BenchResult]] = {}
    for result in document.results:
        if result.benchmark == benchmark and result.value > 0:
            by_device.setdefault(result.device, []).append(result)
    picked: dict[str, BenchResult] = {}
    for device, results in by_device.items():
        if benchmark == "gemm" and device.startswith("cuda"):
            for dtype in GEMM_DTYPES:
                chosen = [r for r in results if r.dtype == dtype]
                if chosen:
                    results = chosen
                    break
        if benchmark == "transfer":
            pinned = [r for r in results if "pinned" in r.variant]
            results = pinned or results
        best = _best(results)
        if best is not None:
            picked[device] = best
    return picked


def _judge(benchmark: str, result: BenchResult, siblings: list[float], gpu: int | None) -> Finding:
    name = NAMES[benchmark] if result.device.startswith("cuda") else f"cpu-{NAMES[benchmark]}"
    reading = _figure(result)
    throttled = _throttled(result)
    if throttled:
        reading += f" (throttled while measured: {throttled})"
    percent = result.percent_of_peak
    if siblings and result.value < BELOW_SIBLINGS * statistics.median(siblings):
        short = 100 * (1 - result.value / statistics.median(siblings))
        return Finding(
            name,
            FAIL,
            reading,
            expected=f"within {format_percent(1 - BELOW_SIBLINGS, 0)} of the other GPUs",
            why=f"{format_reading_percent(short)} below the median of the other GPUs in this box"
            + ("; it was throttled" if throttled else ""),
            fix="compare its clocks, power limit and PCIe/NVLink links with the others (--all)",
            gpu=gpu,
        )
    if percent is not None and percent > ABOVE_PEAK:
        return Finding(
            name,
            WARN,
            reading,
            expected="at most 100 % of peak",
            why="above the peak gpu-tui computes: one of its assumptions (the clock, or the "
            "work per cycle) is wrong for this chip; gpu-tui info shows the peak's basis",
            gpu=gpu,
        )
    if percent is not None and percent < LOW_PERCENT[benchmark]:
        return Finding(
            name,
            WARN,
            reading,
            expected=f"at least {format_reading_percent(LOW_PERCENT[benchmark])} of peak",
            why="well below what this chip should reach"
            + (": it was throttled" if throttled else ""),
            fix="run gpu-tui bench --suite full to see where it falls short",
            gpu=gpu,
        )
    return Finding(name, OK, reading, gpu=gpu)


def active_findings(document: RunDocument) -> list[Finding]:
    """Every active check of the run, host first; a GPU part that did not run says why."""
    found: list[Finding] = []
    for benchmark in BENCHMARKS:
        picked = _picked(document, benchmark)
        gpus = {d: r for d, r in picked.items() if d.startswith("cuda")}
        for device, result in sorted(picked.items()):
            others = [r.value for d, r in gpus.items() if d != device] if device in gpus else []
            found.append(_judge(benchmark, result, others, _gpu_index(document, device)))
    reasons = sorted({_skip_text(skip) for skip in document.skipped if skip.get("device") == "gpu"})
    found += [Finding("gpu-measurements", SKIP, _skip_reading(r), why=r) for r in reasons]
    rerun = "gpu-tui bench with the same benchmarks"
    return found + run_failures("measurements", document.errors, rerun)


def _skip_reading(reason: str) -> str:
    """The reading a list shows beside "not checked": the cause where it is the usual one (a
    CPU build of PyTorch on a GPU machine), so it is not read as "this machine has no GPU"."""
    return "PyTorch sees no GPU" if "visible to PyTorch" in reason else "no GPU measured"


def _skip_text(skip: dict[str, Any]) -> str:
    """The bench engine's reason, in a check's words (its worker is the measuring process)."""
    reason = str(skip.get("reason") or "skipped")
    return reason.replace("visible to the worker", "visible to PyTorch (a CPU build, or no GPU)")
