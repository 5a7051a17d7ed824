"""One phase in one kitchen, task by task: the exact conveyor timeline and its state at time t.

Time 0 is the start of the phase: the briefing runs [0, L), then ingredient j arrives at
L + (j+1)·c and cook ``j mod n`` takes it. Round robin *is* "the earliest-free cook" here: every
task lasts d and ingredients arrive in order, so the cook that took task j−n frees up first.
Starts are therefore ``max((j+1)·c, (j mod n + 1)·c + ⌊j/n⌋·d)`` after the briefing, and never
decrease with j — which is what lets ``state_at`` count with two binary searches instead of
walking thousands of cooks.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

SQUAD = 32  # cooks per squad: a warp


@dataclass(frozen=True, slots=True)
class TaskSpan:
    """Task ``index``: who cooked it and when (exact seconds from the phase start)."""

    index: int
    cook: int
    arrives: Fraction  # its ingredients reach the counter
    ready: Fraction  # its cook is free (briefing over, previous task done)
    start: Fraction
    end: Fraction

    @property
    def pantry_wait(self) -> Fraction:
        """How long the cook stood idle waiting for the pantry before this task."""
        return self.start - self.ready


@dataclass(frozen=True, slots=True)
class CookCounts:
    """How many of a group of cooks (a squad, a kitchen) do what at one instant."""

    cooks: int
    briefing: int  # listening to the briefing (the launch overhead)
    cooking: int
    waiting: int  # free, with work left, but its ingredients have not arrived
    finished: int  # nothing left to do in this phase (or never had a task)


@dataclass(frozen=True, slots=True)
class PhaseState:
    """A phase in one kitchen at one instant."""

    time: float
    tasks: int
    started: int
    done: int
    delivered: int  # ingredients the pantry has brought so far
    counts: CookCounts

    @property
    def briefing(self) -> bool:
        return self.counts.briefing > 0


def cyclic_overlap(lo: int, hi: int, start: int, length: int, n: int) -> int:
    """How many i in [lo, hi) are among the ``length`` cooks start, start+1, … (mod n)."""
    if length <= 0 or hi <= lo:
        return 0
    if length >= n:
        return hi - lo
    end = start + length
    inside = max(0, min(hi, end) - max(lo, start))
    if end > n:  # the range wraps round to cook 0
        inside += max(0, min(hi, end - n) - lo)
    return inside


class ConveyorTimeline:
    """The exact event timeline of ``tasks`` tasks on ``cooks`` cooks (see the module docstring)."""

    def __init__(self, tasks: int, cooks: int, d: Fraction, c: Fraction, launch: Fraction) -> None:
        self.tasks, self.cooks, self.d, self.c, self.launch = tasks, cooks, d, c, launch
        # Floats for the per-frame queries; exact Fractions for task() and end.
        self._d, self._c, self._launch = float(d), float(c), float(launch)
        if tasks == 0:
            self.end = Fraction(0)
        else:
            self.end = self.task(tasks - 1).end

    def _start(self, j: int) -> Fraction:
        n = self.cooks
        return max((j + 1) * self.c, (j % n + 1) * self.c + (j // n) * self.d)

    def task(self, index: int) -> TaskSpan:
        """Task ``index`` exactly; O(1)."""
        if not 0 <= index < self.tasks:
            raise IndexError(f"task {index} of {self.tasks}")
        start = self.launch + self._start(index)
        previous = index - self.cooks
        ready = self.launch + (self._start(previous) + self.d if previous >= 0 else 0)
        arrives = self.launch + (index + 1) * self.c
        return TaskSpan(index, index % self.cooks, arrives, ready, start, start + self.d)

    def tasks_of_cook(self, cook: int) -> range:
        """Indices of the tasks ``cook`` does, in order."""
        return range(cook, self.tasks, self.cooks)

    def _count_started(self, since_briefing: float) -> int:
        """#{j : start_j ≤ u}, u measured from the end of the briefing."""
        if since_briefing < 0:
            return 0
        n, c, d = self.cooks, self._c, self._d
        lo, hi = 0, self.tasks  # invariant: start_j ≤ u for j < lo; > u for j ≥ hi
        while lo < hi:
            mid = (lo + hi) // 2
            if max((mid + 1) * c, (mid % n + 1) * c + (mid // n) * d) <= since_briefing:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def started(self, t: float) -> int:
        return self._count_started(t - self._launch)

    def done(self, t: float) -> int:
        return self._count_started(t - self._launch - self._d)

    def delivered(self, t: float) -> int:
        u = t - self._launch
        if u < 0:
            return 0
        if self._c == 0:
            return self.tasks
        return min(self.tasks, int(u / self._c))

    def counts(self, t: float, first: int = 0, count: int | None = None) -> CookCounts:
        """What cooks ``first`` … ``first+count−1`` do at time ``t``; O(log tasks)."""
        lo = max(0, first)
        hi = min(self.cooks, self.cooks if count is None else first + count)
        return self._counts(t, lo, hi, self.started(t), self.done(t))

    def _counts(self, t: float, lo: int, hi: int, started: int, done: int) -> CookCounts:
        size = max(0, hi - lo)
        if t < self._launch and self.tasks > 0:
            return CookCounts(size, size, 0, 0, 0)
        n, w = self.cooks, self.tasks
        cooking = cyclic_overlap(lo, hi, done % n, started - done, n)
        # The last task of every cook is one of the final min(w, n) tasks; a cook whose last task
        # is done is finished, and cooks past the w-th never get one.
        last_first = max(0, w - n)
        finished = cyclic_overlap(lo, hi, last_first % n, done - last_first, n)
        finished += max(0, hi - max(lo, w))
        return CookCounts(size, 0, cooking, size - cooking - finished, finished)

    def state_at(self, t: float) -> PhaseState:
        started, done = self.started(t), self.done(t)
        counts = self._counts(t, 0, self.cooks, started, done)
        return PhaseState(t, self.tasks, started, done, self.delivered(t), counts)

    def squads_at(
        self, t: float, first: int = 0, count: int | None = None, size: int = SQUAD
    ) -> list[CookCounts]:
        """Counts per squad of ``size`` cooks, squads ``first`` … (the last may be partial).

        Two binary searches, then O(1) per squad: fine for thousands of squads per frame.
        """
        squads = -(-self.cooks // size)
        stop = squads if count is None else min(squads, first + count)
        started, done = self.started(t), self.done(t)
        return [
            self._counts(t, s * size, min(self.cooks, (s + 1) * size), started, done)
            for s in range(max(0, first), stop)
        ]
