"""CUDA-graph replay for short kernels: the launch overhead out of the figure ("Short kernels
as a graph replay" in the bench package docstring, ``gpu_tui/core/bench/__init__.py``).

A kernel shorter than about 20 µs can finish before the host has launched the next one, so
calls timed back to back measure the launch rate, not the GPU. Captured K times into one CUDA
graph, the calls go to the GPU in a single launch, and a replay's time over K is the GPU's own
time per call (as triton's ``do_bench_cudagraph`` does it). The eager time, launch included,
stays beside it as a figure of its own: that is what a Python loop of such calls costs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .timing import Timing

GRAPH_BELOW_SECONDS = 20e-6
"""Eager calls faster than this are timed again as a graph replay."""
REPLAY_SECONDS = 200e-6
"""Work per replay: long enough that the replay's own launch (a few µs) is a small share."""
MAX_CALLS_PER_GRAPH = 1000  # caps capture time and the graph's memory for the tiniest calls


def calls_per_graph(call_seconds: float) -> int:
    """How many calls one graph holds so that a replay runs about ``REPLAY_SECONDS``."""
    wanted = math.ceil(REPLAY_SECONDS / max(call_seconds, 1e-9) - 1e-9)  # 200.00000000000003
    return max(2, min(MAX_CALLS_PER_GRAPH, wanted))


def capture(torch: Any, fn: Callable[[], object], device: str, calls: int) -> Any:
    """A CUDA graph of ``calls`` back-to-back calls of ``fn``. Raises when ``fn`` cannot be
    captured (it waits for the host, e.g. a pageable copy or ``.item()``)."""
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):  # torch's docs: warm up on a side stream before capturing
        fn()
    torch.cuda.current_stream(device).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    return graph


def why_not_captured(error: BaseException) -> str:
    """One line for the record: the first line of the driver's or torch's message."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def per_call(replay: Timing, calls: int, eager: Timing) -> Timing:
    """The replay's timing turned into time per call, with the eager figure kept beside it.
    Cold start and warm-up are the eager ones: those are what a user's first calls cost."""
    timing = Timing(
        samples=[sample / calls for sample in replay.samples],
        calls_per_repeat=replay.calls_per_repeat * calls,
        cold_start_seconds=eager.cold_start_seconds,
        warmup_seconds=eager.warmup_seconds,
        warmup_calls=eager.warmup_calls,
        stop_reason=replay.stop_reason,
        warnings=list(replay.warnings),
        warmup_stable=eager.warmup_stable,
        method="cuda-graph",
        launch_inclusive_seconds=eager.median,
        calls_per_graph=calls,
        extra=dict(eager.extra),
    )
    # telemetry is matched to the whole timed stretch, eager blocks then replays ("GPU telemetry")
    timing.timed_end = replay.timed_end
    timing.timed_wall_seconds = replay.timed_end - (eager.timed_end - eager.timed_wall_seconds)
    return timing
