"""Whole-race timelines for the animation: the chef, and K brigades with phases, rounds, hallway.

A round is: each phase in turn (all kitchens together, a barrier after each), then — with more
than one kitchen — the hallway sync. Rounds repeat identically, so nothing here grows with
``rounds``; and a phase's kitchens only ever get ⌈w/K⌉ or ⌊w/K⌋ tasks, so at most two conveyor
timelines exist per phase however many kitchens there are.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from gpu_tui.core.kitchen.conveyor import SQUAD, ConveyorTimeline, CookCounts, PhaseState
from gpu_tui.core.kitchen.model import (
    brigade_phase_seconds,
    cook_seconds_per_task,
    pantry_seconds_per_task,
    params_hallway_seconds,
)
from gpu_tui.core.kitchen.params import KitchenParams


@dataclass(frozen=True)
class Segment:
    """A stretch of one round: a phase (with its briefing) or the hallway sync."""

    kind: Literal["phase", "hallway"]
    phase: int | None  # index into params.phases; None for the hallway
    start: Fraction  # seconds from the start of the round
    end: Fraction


@dataclass(frozen=True)
class BrigadeState:
    """The brigade side of the race at one instant."""

    time: float
    round: int  # 0-based; equals rounds once everything is done
    segment: Segment
    segment_fraction: float  # 0…1 through the current segment (the stock pot in the hallway)
    tasks_done: int  # over all rounds, phases and kitchens
    tasks_total: int
    kitchens: tuple[PhaseState, ...]  # per kitchen during a phase; empty in the hallway
    finished: bool

    @property
    def progress(self) -> float:
        return self.tasks_done / self.tasks_total


@dataclass(frozen=True)
class ChefState:
    """The chef side of the race at one instant."""

    time: float
    round: int
    phase: int
    tasks_done: int
    tasks_total: int
    pantry_bound: bool  # this phase is paced by the chef's pantry, not his knife
    finished: bool

    @property
    def progress(self) -> float:
        return self.tasks_done / self.tasks_total


def split_tasks(tasks: int, kitchens: int, kitchen: int) -> int:
    """Tasks kitchen ``kitchen`` gets: the first ``w mod K`` kitchens get one extra."""
    base, extra = divmod(tasks, kitchens)
    return base + (1 if kitchen < extra else 0)


class BrigadeTimeline:
    """Every task of every kitchen, phase and round, queried by time (seconds, float)."""

    def __init__(self, params: KitchenParams, kitchens: int | None = None) -> None:
        self.params = params
        self.kitchens = params.kitchens if kitchens is None else kitchens
        self.cooks = params.cooks
        k = self.kitchens
        self._conveyors: list[dict[int, ConveyorTimeline]] = []
        segments: list[Segment] = []
        clock = Fraction(0)
        for i, phase in enumerate(params.phases):
            d = cook_seconds_per_task(params, phase)
            c = pantry_seconds_per_task(phase, params.pantry_rate)
            sizes = {split_tasks(phase.tasks, k, 0), phase.tasks // k}
            self._conveyors.append(
                {w: ConveyorTimeline(w, params.cooks, d, c, params.launch_seconds) for w in sizes}
            )
            length = brigade_phase_seconds(params, phase, k)
            segments.append(Segment("phase", i, clock, clock + length))
            clock += length
        if k > 1:
            hallway = params_hallway_seconds(params, k)
            segments.append(Segment("hallway", None, clock, clock + hallway))
            clock += hallway
        self.segments = tuple(segments)
        self.round_seconds = clock
        self.end = params.rounds * clock
        self._starts = [float(s.start) for s in segments]
        self._round = float(clock)
        self._tasks_before = [0]
        for phase in params.phases:
            self._tasks_before.append(self._tasks_before[-1] + phase.tasks)
        self.tasks_per_round = self._tasks_before[-1]
        self.tasks_total = params.rounds * self.tasks_per_round

    def conveyor(self, phase: int, kitchen: int = 0) -> ConveyorTimeline:
        """The exact timeline of ``kitchen`` in ``phase`` (times from that phase's start)."""
        tasks = split_tasks(self.params.phases[phase].tasks, self.kitchens, kitchen)
        return self._conveyors[phase][tasks]

    def _locate(self, t: float) -> tuple[int, Segment, float] | None:
        """(round, segment, seconds into it) — None once the race is over."""
        if t >= float(self.end):
            return None
        t = max(0.0, t)
        rnd = min(self.params.rounds - 1, int(t // self._round)) if self._round > 0 else 0
        local = t - rnd * self._round
        index = max(0, bisect.bisect_right(self._starts, local) - 1)
        segment = self.segments[index]
        return rnd, segment, local - self._starts[index]

    def state_at(self, t: float) -> BrigadeState:
        """Cheap enough for every frame: O(K · log tasks)."""
        where = self._locate(t)
        if where is None:
            last = self.segments[-1]
            total = self.tasks_total
            return BrigadeState(t, self.params.rounds, last, 1.0, total, total, (), True)
        rnd, segment, into = where
        length = float(segment.end - segment.start)
        fraction = min(1.0, into / length) if length > 0 else 1.0
        done = rnd * self.tasks_per_round
        if segment.phase is None:
            done += self.tasks_per_round
            return BrigadeState(t, rnd, segment, fraction, done, self.tasks_total, (), False)
        done += self._tasks_before[segment.phase]
        states = tuple(self.conveyor(segment.phase, j).state_at(into) for j in range(self.kitchens))
        done += sum(s.done for s in states)
        return BrigadeState(t, rnd, segment, fraction, done, self.tasks_total, states, False)

    def squads_at(
        self, t: float, kitchen: int = 0, first: int = 0, count: int | None = None
    ) -> list[CookCounts]:
        """Per-squad counts of ``kitchen`` at ``t`` (see ``ConveyorTimeline.squads_at``).

        In the hallway and after the end every cook is finished (waiting on the hallway).
        """
        where = self._locate(t)
        if where is None or where[1].phase is None:
            squads = -(-self.cooks // SQUAD)
            stop = squads if count is None else min(squads, first + count)
            sizes = (min(SQUAD, self.cooks - s * SQUAD) for s in range(max(0, first), stop))
            return [CookCounts(n, 0, 0, 0, n) for n in sizes]
        _, segment, into = where
        assert segment.phase is not None
        return self.conveyor(segment.phase, kitchen).squads_at(into, first, count)


class ChefTimeline:
    """The master chef: one task at a time, each ``max(τ, b/B_chef)``, phase after phase."""

    def __init__(self, params: KitchenParams) -> None:
        self.params = params
        rate = params.chef_pantry_rate
        self.per_task = [max(p.chef_seconds, p.pantry_units / rate) for p in params.phases]
        self._pantry_bound = [p.pantry_units / rate > p.chef_seconds for p in params.phases]
        starts = [Fraction(0)]
        for phase, each in zip(params.phases, self.per_task, strict=True):
            starts.append(starts[-1] + phase.tasks * each)
        self.round_seconds = starts[-1]
        self.end = params.rounds * self.round_seconds
        self._starts = [float(s) for s in starts[:-1]]
        self._each = [float(e) for e in self.per_task]
        self._round = float(self.round_seconds)
        self._before = [0]
        for phase in params.phases:
            self._before.append(self._before[-1] + phase.tasks)
        self.tasks_total = params.rounds * self._before[-1]

    def state_at(self, t: float) -> ChefState:
        phases = len(self.params.phases)
        if t >= float(self.end):
            total = self.tasks_total
            return ChefState(t, self.params.rounds, phases - 1, total, total, False, True)
        t = max(0.0, t)
        rnd = min(self.params.rounds - 1, int(t // self._round))
        local = t - rnd * self._round
        i = max(0, bisect.bisect_right(self._starts, local) - 1)
        in_phase = min(
            self.params.phases[i].tasks, math.floor((local - self._starts[i]) / self._each[i])
        )
        done = rnd * self._before[-1] + self._before[i] + in_phase
        return ChefState(t, rnd, i, done, self.tasks_total, self._pantry_bound[i], False)
