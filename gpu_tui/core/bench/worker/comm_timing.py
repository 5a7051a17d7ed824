"""Timing a collective the nccl-tests way: line the ranks up, time a block, take the slowest.

Each repeat: every rank joins a one-element all-reduce (it doubles as the barrier and carries
a "stop" to all), reads the clock, runs ``calls`` operations back to back, waits for the
device, reads the clock again. The block's time per call is then the maximum over the ranks
(one all-reduce with MAX after the last block, so that no collective runs between timed blocks
other than the barrier). Every rank decides the same number of calls and blocks, from the
first call's time taken as the maximum over the ranks.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from .timing import Timing

WARMUP_SECONDS = 0.025
"""Warm-up for at least this long and at least two calls (as the other benchmarks do)."""
MIN_REPEATS, MAX_REPEATS = 3, 200
MAX_CALLS_PER_BLOCK = 1000


class Stopped(Exception):  # noqa: N818 - a request, not an error
    """Rank 0 said stop (the user asked); every rank sees it at the same barrier."""


class Lineup:
    """The barrier before each block; it also spreads rank 0's stop flag to every rank."""

    def __init__(self, torch: Any, dist: Any, device: str, stop: Callable[[], bool]) -> None:
        self.torch = torch
        self.dist = dist
        self.device = device
        self.stop = stop
        self.flag = torch.zeros(1, dtype=torch.int32, device=device)

    def sync(self) -> None:
        if self.device != "cpu":
            self.torch.cuda.synchronize(self.device)

    def __call__(self) -> None:
        """Wait for every rank; raise :class:`Stopped` on all of them once one node was told to."""
        self.flag.fill_(1 if self.stop() else 0)
        self.dist.all_reduce(self.flag, op=self.dist.ReduceOp.MAX)
        if int(self.flag.item()):  # .item() waits for the device too
            raise Stopped

    def slowest(self, values: list[float]) -> list[float]:
        """Each value's maximum over the ranks."""
        tensor = self.torch.tensor(values, dtype=self.torch.float64, device=self.device)
        self.dist.all_reduce(tensor, op=self.dist.ReduceOp.MAX)
        return [float(v) for v in tensor.tolist()]


def _block(line: Lineup, call: Callable[[], object], calls: int) -> float:
    line()
    start = time.perf_counter()
    for _ in range(calls):
        call()
    line.sync()
    return (time.perf_counter() - start) / calls


def plan_blocks(first_call: float, budget: float) -> tuple[int, int, int]:
    """(warm-up calls, calls per block, blocks) from the first call's time: about ten blocks
    in the budget, each long enough that the barrier's and the clock's cost vanish."""
    call = max(first_call, 1e-7)
    warmup = min(200, max(2, math.ceil(WARMUP_SECONDS / call)))
    per_block = min(MAX_CALLS_PER_BLOCK, max(1, round(budget / 10 / call)))
    blocks = min(MAX_REPEATS, max(MIN_REPEATS, math.floor(budget / (per_block * call))))
    return warmup, per_block, blocks


def measure(
    line: Lineup,
    call: Callable[[], object],
    budget: float,
    heartbeat: Callable[[float], None] = lambda fraction: None,
) -> Timing:
    """Time ``call`` (one collective) on every rank; every rank returns the same figures."""
    cold = line.slowest([_block(line, call, 1)])[0]
    warm_start = time.perf_counter()
    warmup, per_block, blocks = plan_blocks(cold, budget)
    _block(line, call, warmup)
    warmed = time.perf_counter() - warm_start
    mine: list[float] = []
    began = time.monotonic()
    for index in range(blocks):
        mine.append(_block(line, call, per_block))
        heartbeat((index + 1) / blocks)
    ended = time.monotonic()
    samples = line.slowest(mine)
    return Timing(
        samples=samples,
        calls_per_repeat=per_block,
        cold_start_seconds=cold,
        warmup_seconds=warmed,
        warmup_calls=warmup,
        stop_reason="blocks",
        timed_wall_seconds=ended - began,
        timed_end=ended,
        method="barrier-block-max-over-ranks",
    )
