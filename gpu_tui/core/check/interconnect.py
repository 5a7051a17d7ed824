"""The interconnect part of ``gpu-tui check --quick`` on a box of two GPUs or more: a copy
between every ordered pair of GPUs (peer to peer where the pair has peer access) and an
all-reduce across all of them, run by the comm suite (``core/comm``: copies in one process,
the all-reduce on torchrun's ranks over NCCL). Each pair is judged against its link's peak (the
NVLink or PCIe link NVML's topology names) and against the other pairs of the same box: a pair
10 % below the median of the pairs is a link that trained down or a switch port at fault, even
when its figure looks fine on its own. The all-reduce's bus bandwidth is judged against the
link peak, and its result against the exact answer."""

from __future__ import annotations

import statistics
from collections.abc import Callable

from gpu_tui.core.bench import messages as bench_messages
from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.runner import drive
from gpu_tui.core.check.findings import FAIL, OK, WARN, Finding, run_failures
from gpu_tui.core.comm.copies import COPIES
from gpu_tui.core.comm.plan import Launch, build_comm_plan
from gpu_tui.core.comm.runner import CommRunner
from gpu_tui.core.units import format_percent, format_reading_percent

REDUCE_BYTES = 256 << 20
"""The all-reduce and copy size: large enough that the links, not launches, set the time."""
BUDGET_SECONDS = 0.2
BELOW_PAIRS = 0.90
"""Under this share of the median pair is an outlier pair."""
LOW_LINK_PERCENT = 50.0
"""Under this % of the link's peak a copy or an all-reduce is worth a look."""


def run_interconnect(
    gpus: int,
    python: str | None = None,
    deliver: Callable[[bench_messages.Message], object] | None = None,
    *,
    budget: float | None = None,
) -> RunDocument:
    """Copies between every pair and one all-reduce over ``gpus`` GPUs, ``budget`` seconds per
    measurement (never saved to the results store: it is a check, not a benchmark)."""
    plan = build_comm_plan(
        Launch(nproc=gpus),
        device="cuda",
        operations=[COPIES, "all_reduce"],
        dtypes=["bf16"],
        sizes=[REDUCE_BYTES],
        budget_seconds=budget or BUDGET_SECONDS,
    )
    runner = CommRunner(plan, python=python, save=False)
    drive(runner, deliver or (lambda message: None))
    return runner.document


def _index(device: str) -> int | None:
    number = device.removeprefix("cuda:")
    return int(number) if number.isdigit() else None


def _pair_findings(results: list[BenchResult]) -> list[Finding]:
    direct = {
        (str(r.params.get("src")), str(r.params.get("dst"))): r
        for r in results
        if r.variant == "p2p" and r.params.get("role") == "bandwidth" and r.value > 0
    }
    staged = {
        (str(r.params.get("src")), str(r.params.get("dst")))
        for r in results
        if r.variant == "staged" and r.params.get("role") == "bandwidth"
    }
    median = statistics.median(r.value for r in direct.values()) if direct else 0.0
    found: list[Finding] = []
    for (src, dst), result in sorted(direct.items()):
        reading = f"{src}→{dst} {result.value:,.0f} GB/s"
        if result.percent_of_peak is not None:
            link = result.params.get("link") or "link"
            reading += f", {format_reading_percent(result.percent_of_peak)} of {link}"
        if len(direct) > 1 and result.value < BELOW_PAIRS * median:
            short = 100 * (1 - result.value / median)
            found.append(
                Finding(
                    "p2p",
                    FAIL,
                    reading,
                    expected=f"within {format_percent(1 - BELOW_PAIRS, 0)} of the other pairs "
                    f"({median:,.0f} GB/s)",
                    why=f"{format_reading_percent(short)} below the median pair: a link that "
                    "trained down or a faulty switch port",
                    fix="nvidia-smi nvlink -s -i N for the links' state and error counts; "
                    "reseat or RMA if they keep failing",
                    gpu=_index(src),
                )
            )
        elif result.percent_of_peak is not None and result.percent_of_peak < LOW_LINK_PERCENT:
            found.append(
                Finding(
                    "p2p",
                    WARN,
                    reading,
                    expected=f"at least {format_reading_percent(LOW_LINK_PERCENT)} of the "
                    "link's peak",
                    why="well below what the link should carry",
                    fix="gpu-tui bench --suite comm --only copies for the whole matrix",
                    gpu=_index(src),
                )
            )
        else:
            found.append(Finding("p2p", OK, reading, gpu=_index(src)))
    for src, dst in sorted(staged - set(direct)):
        found.append(
            Finding(
                "p2p",
                WARN,
                f"{src}→{dst}: no peer access, copies go through host memory",
                expected="peer access",
                why="every transfer between these two GPUs crosses the host: NCCL is slower",
                fix="check the PCIe ACS and IOMMU settings (or the VM's GPU passthrough)",
                gpu=_index(src),
            )
        )
    return found


def _reduce_finding(results: list[BenchResult]) -> list[Finding]:
    reduces = [r for r in results if r.benchmark == "comm" and r.variant == "all_reduce"]
    if not reduces:
        return []
    largest = max(reduces, key=lambda r: int(r.params.get("bytes", 0)))
    reading = f"bus bandwidth {largest.value:,.0f} GB/s over {largest.params.get('ranks')} GPUs"
    if largest.percent_of_peak is not None:
        reading += f", {format_reading_percent(largest.percent_of_peak)} of the link's peak"
    if (largest.checks or {}).get("ok") is False:
        return [
            Finding(
                "all-reduce",
                FAIL,
                reading + "; wrong results",
                expected="the exact sum on every rank",
                why="a GPU or a link corrupts data: training would diverge silently",
                fix="run gpu-tui bench --suite comm to see which ranks; drain the node",
            )
        ]
    if largest.percent_of_peak is not None and largest.percent_of_peak < LOW_LINK_PERCENT:
        return [
            Finding(
                "all-reduce",
                WARN,
                reading,
                expected=f"at least {format_reading_percent(LOW_LINK_PERCENT)} of the link's peak",
                why="collectives are well below what the links carry: NCCL may be using a "
                "slower path (NCCL_DEBUG=INFO says which)",
                fix="NCCL_DEBUG=INFO gpu-tui bench --suite comm --only all_reduce",
            )
        ]
    return [Finding("all-reduce", OK, reading)]


def interconnect_findings(document: RunDocument) -> list[Finding]:
    """Every pair's copy and the all-reduce; failures of the run itself say what went wrong."""
    found = _pair_findings(document.results) + _reduce_finding(document.results)
    return found + run_failures("interconnect", document.errors, "gpu-tui bench --suite comm")
