"""The measurement loop: cold call, timed warm-up, blocks sized to the timer, budget/noise stop.

**Synchronised timing** — GPU work is asynchronous: a host clock read right after a launch
times the launch, not the work. Host-clock blocks therefore synchronise the device before
each clock read, and GPU rows are timed with CUDA events recorded around the calls, waiting
for the end event. The other rules these loops follow (warm-up, graph replay, cold caches)
are listed in the bench package docstring, ``gpu_tui/core/bench/__init__.py``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .stats import noise_warning, relative_iqr, summary

Block = Callable[[int], float]
"""Runs the operation ``n`` times and returns the elapsed seconds, measured correctly."""

WARMUP_MIN_SECONDS = 0.025  # triton's do_bench warms up for 25 ms (Warm-up before timing)
WARMUP_MIN_CALLS = 2  # torch.utils.benchmark warms up with at least 2 calls (same rule)
MIN_REPEATS = 3
EARLY_STOP_REPEATS = 10
EARLY_STOP_NOISE = 0.05  # stop early only when the spread is well under the 10 % warning line
SETTLE_CALLS = 3  # the last this-many warm-up calls must agree ...
SETTLE_TOLERANCE = 0.05  # ... within 5 %: the worker cannot read NVML, so a steady per-call
# time is its proxy for the SM clock having ramped up from idle ("Warm-up before timing" in the
# bench package docstring, bench/__init__.py)


@dataclass
class Timing:
    """What one measurement found; times are per call, in seconds."""

    samples: list[float]
    calls_per_repeat: int
    cold_start_seconds: float
    warmup_seconds: float
    warmup_calls: int
    stop_reason: str
    warnings: list[str] = field(default_factory=list)
    timed_wall_seconds: float = 0.0
    """Host time the timed blocks spanned: the caller lines GPU telemetry up with it
    ("GPU telemetry while timed", bench/__init__.py)."""
    timed_end: float = 0.0
    """``time.monotonic()`` when the last timed block ended."""
    warmup_stable: bool | None = None
    """Whether the warm-up call times settled (the clock-ramp proxy of "Warm-up before timing");
    None when not asked for."""
    method: str = "host-clock"
    """``host-clock`` (synchronised), ``cuda-events``, ``cuda-events-cold`` or ``cuda-graph``."""
    launch_inclusive_seconds: float | None = None
    """For ``cuda-graph`` rows: the eager time per call, launch overhead included ("Short
    kernels as a graph replay", bench/__init__.py)."""
    calls_per_graph: int | None = None
    graph_skipped: str | None = None
    """Why a short kernel could not be captured into a graph; its figure includes the launch."""
    extra: dict[str, Any] = field(default_factory=dict)
    """More for the record, e.g. the SM clock when warm-up ended (see ``clock_ramp``)."""

    def as_dict(self) -> dict[str, Any]:
        figures: dict[str, Any] = dict(summary(self.samples))
        figures.update(
            repeats=len(self.samples),
            calls_per_repeat=self.calls_per_repeat,
            cold_start_seconds=self.cold_start_seconds,
            warmup_seconds=self.warmup_seconds,
            warmup_calls=self.warmup_calls,
            stop_reason=self.stop_reason,
            timed_wall_seconds=self.timed_wall_seconds,
            warmup_stable=self.warmup_stable,
            method=self.method,
            launch_inclusive_seconds=self.launch_inclusive_seconds,
            calls_per_graph=self.calls_per_graph,
            graph_skipped=self.graph_skipped,
            **self.extra,
        )
        return figures

    @property
    def median(self) -> float:
        return float(summary(self.samples)["median_seconds"])


def block_size(call_seconds: float, target_seconds: float, budget: float) -> int:
    """Calls per timed block: a power of ten reaching ``target_seconds`` (as Timer does),
    but small enough that the budget still holds at least ``MIN_REPEATS`` blocks."""
    if call_seconds <= 0:
        call_seconds = 1e-9
    if call_seconds >= target_seconds:
        return 1
    number = 10 ** math.ceil(math.log10(target_seconds / call_seconds) - 1e-9)
    fit = max(1, int(budget / MIN_REPEATS / call_seconds))
    return int(max(1, min(number, fit)))


def measure(
    block: Block,
    *,
    budget: float,
    target_block_seconds: float,
    check: Callable[[], None] = lambda: None,
    heartbeat: Callable[[float], None] = lambda fraction: None,
    warmup_min_seconds: float = WARMUP_MIN_SECONDS,
    min_repeats: int = MIN_REPEATS,
    settle_max_seconds: float = 0.0,
    ramped: Callable[[], bool | None] | None = None,
) -> Timing:
    """Time ``block`` by the rules: the first call on its own (cold start), warm-up until
    ``WARMUP_MIN_CALLS`` calls and ``warmup_min_seconds``, then blocks until the budget is spent
    (at least ``min_repeats``) or the spread is already tight. ``check`` raises to cancel.
    With ``settle_max_seconds`` > 0 the warm-up goes on (for up to that long after the cold
    call) until the last ``SETTLE_CALLS`` calls agree within ``SETTLE_TOLERANCE`` and
    ``ramped`` (the SM clock has stopped rising) is not False (GPU rows; "Warm-up before
    timing", bench/__init__.py)."""
    check()
    cold = block(1)
    warm_calls, warm_time, last = 1, cold, cold
    while warm_calls < WARMUP_MIN_CALLS or warm_time < warmup_min_seconds:
        if warm_calls >= WARMUP_MIN_CALLS and last * 2 > budget:
            break  # a single call is longer than the budget: two calls are warm-up enough
        check()
        last = block(1)
        warm_calls += 1
        warm_time += last
    stable = None
    if settle_max_seconds > 0:
        recent = [last]
        while True:
            calls_settled = len(recent) >= SETTLE_CALLS and settled(recent[-SETTLE_CALLS:])
            stable = calls_settled and (ramped is None or ramped() is not False)
            if stable or warm_time - cold >= settle_max_seconds or last * 2 > budget:
                break
            check()
            last = block(1)
            recent.append(last)
            warm_calls += 1
            warm_time += last
    number = block_size(last, target_block_seconds, budget)
    samples: list[float] = []
    spent = 0.0
    reason = "budget"
    timed_start = time.monotonic()
    while True:
        check()
        elapsed = block(number)
        samples.append(elapsed / number)
        spent += elapsed
        heartbeat(min(1.0, spent / budget) if budget > 0 else 1.0)
        if len(samples) >= min_repeats and spent >= budget:
            break
        if (
            len(samples) >= EARLY_STOP_REPEATS
            and spent >= budget / 2
            and relative_iqr(samples) < EARLY_STOP_NOISE
        ):
            reason = "noise"
            break
    timed_end = time.monotonic()
    timing = Timing(samples, number, cold, warm_time, warm_calls, reason, warmup_stable=stable)
    timing.timed_wall_seconds, timing.timed_end = timed_end - timed_start, timed_end
    noisy = noise_warning(samples)
    if noisy:
        timing.warnings.append(noisy)
    if len(samples) < 5:
        timing.warnings.append(
            f"only {len(samples)} repeats (one call takes {samples[-1]:.3g} s): "
            "raise --budget for a firmer median"
        )
    return timing


def settled(times: list[float]) -> bool:
    """True when the call times lie within ``SETTLE_TOLERANCE`` of their smallest."""
    low = min(times)
    return low > 0 and (max(times) - low) / low <= SETTLE_TOLERANCE


def host_block(fn: Callable[[], object], sync: Callable[[], None] | None = None) -> Block:
    """Host-clock timing; ``sync`` (a device synchronise) runs before each clock read
    (Synchronised timing, above)."""

    def run(n: int) -> float:
        if sync is not None:
            sync()
        start = time.perf_counter()
        for _ in range(n):
            fn()
        if sync is not None:
            sync()
        return time.perf_counter() - start

    return run


def cuda_event_block(torch: Any, fn: Callable[[], object]) -> Block:
    """Device-time timing with CUDA events around the calls; waits for the end event
    (Synchronised timing, above)."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)

    def run(n: int) -> float:
        start.record()
        for _ in range(n):
            fn()
        end.record()
        end.synchronize()
        return float(start.elapsed_time(end)) / 1e3

    return run


def cold_event_block(torch: Any, fn: Callable[[], object], flush: Any) -> Block:
    """Like :func:`cuda_event_block`, but each call starts with cold caches: ``flush`` (a buffer
    larger than the last-level cache) is zeroed before every call, outside the events ("Hot or
    cold caches, said which", bench/__init__.py)."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)

    def run(n: int) -> float:
        total = 0.0
        for _ in range(n):
            flush.zero_()
            start.record()
            fn()
            end.record()
            end.synchronize()
            total += float(start.elapsed_time(end)) / 1e3
        return total

    return run


def timer_overhead_seconds(samples: int = 5) -> float:
    """Median cost of reading the host clock twice; blocks are sized to make it ≤ 1e-4 of them."""
    costs = []
    for _ in range(samples):
        start = time.perf_counter()
        costs.append(time.perf_counter() - start)
    costs.sort()
    return costs[len(costs) // 2]
