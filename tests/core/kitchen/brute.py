"""A brute-force event simulation of the kitchen rules, to check the closed forms against."""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class SimTask:
    """One task as the simulation ran it (times from the phase start, briefing included)."""

    index: int
    cook: int
    start: Fraction
    end: Fraction


def simulate_conveyor(
    tasks: int, cooks: int, d: Fraction, c: Fraction, launch: Fraction
) -> list[SimTask]:
    """The rules, literally: after the briefing ingredient j arrives at (j+1)·c; the cook that
    is free earliest (lowest number on a tie) takes it; the task lasts d."""
    free = [(launch, cook) for cook in range(cooks)]  # (free from, cook)
    heapq.heapify(free)
    out = []
    for j in range(tasks):
        ready, cook = heapq.heappop(free)
        start = max(launch + (j + 1) * c, ready)
        out.append(SimTask(j, cook, start, start + d))
        heapq.heappush(free, (start + d, cook))
    return out


def simulated_seconds(
    tasks: int, cooks: int, d: Fraction, c: Fraction, launch: Fraction
) -> Fraction:
    return max((t.end for t in simulate_conveyor(tasks, cooks, d, c, launch)), default=Fraction(0))
