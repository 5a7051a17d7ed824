"""The kitchen model's closed forms (exact, in Fractions): chef, brigade, recipe, hallway, laws."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from gpu_tui.core.errors import UsageError
from gpu_tui.core.kitchen.params import KitchenParams, Phase


def ceil_div(a: int, b: int) -> int:
    """⌈a/b⌉ in integers (floats lose exactness past 2**53 tasks)."""
    return -(-a // b)


def cook_seconds_per_task(params: KitchenParams, phase: Phase) -> Fraction:
    """d = r·τ: one line cook's time for one task."""
    return params.slowdown * phase.chef_seconds


def pantry_seconds_per_task(phase: Phase, rate: Fraction) -> Fraction:
    """c = b/B: how long the pantry takes to deliver one task's ingredients."""
    return phase.pantry_units / rate


def conveyor_seconds(
    tasks: int, cooks: int, d: Fraction, c: Fraction, launch: Fraction
) -> Fraction:
    """Exact conveyor time: ingredient j arrives at (j+1)·c, the earliest-free cook takes it.

    ``L + d + max(w·c, ((w−1) mod n + 1)·c + ⌊(w−1)/n⌋·d)``; the last task's start is the later of
    its own arrival and the chain of tasks its cook did before it.
    """
    if tasks == 0:
        return Fraction(0)
    last = tasks - 1
    return launch + d + max(tasks * c, (last % cooks + 1) * c + (last // cooks) * d)


def roofline_seconds(
    tasks: int, cooks: int, d: Fraction, c: Fraction, launch: Fraction
) -> Fraction:
    """Roofline bound: ``L + max(⌈w/n⌉·d, w·c)`` (cooking and fetching overlap perfectly)."""
    if tasks == 0:
        return Fraction(0)
    return launch + max(ceil_div(tasks, cooks) * d, tasks * c)


def conveyor_upper_bound(
    tasks: int, cooks: int, d: Fraction, c: Fraction, launch: Fraction
) -> Fraction:
    """``L + ⌈w/n⌉·d + w·c``: no overlap at all between cooking and fetching."""
    return launch + ceil_div(tasks, cooks) * d + tasks * c


def chef_phase_seconds(phase: Phase, chef_pantry_rate: Fraction) -> Fraction:
    """``max(w·τ, w·b/B_chef)``: the chef fetches while cooking, so the slower of the two rules."""
    return phase.tasks * max(phase.chef_seconds, phase.pantry_units / chef_pantry_rate)


def chef_seconds(params: KitchenParams) -> Fraction:
    """The master chef cooks every task of every phase, every round."""
    one = sum((chef_phase_seconds(p, params.chef_pantry_rate) for p in params.phases), Fraction(0))
    return params.rounds * one


def kitchen_tasks(tasks: int, kitchens: int) -> int:
    """Tasks of a phase the busiest kitchen gets when ``kitchens`` share it: ⌈w/K⌉."""
    return ceil_div(tasks, kitchens)


def brigade_phase_seconds(
    params: KitchenParams, phase: Phase, kitchens: int = 1, *, exact: bool = True
) -> Fraction:
    """One phase in one kitchen of ``kitchens``: the conveyor (exact) or the roofline bound."""
    form = conveyor_seconds if exact else roofline_seconds
    d = cook_seconds_per_task(params, phase)
    c = pantry_seconds_per_task(phase, params.pantry_rate)
    return form(kitchen_tasks(phase.tasks, kitchens), params.cooks, d, c, params.launch_seconds)


def ring_share(kitchens: int) -> Fraction:
    """2(K−1)/K: the share of the payload S that each of K ring members sends (and receives).

    A ring all-reduce is a reduce-scatter then an all-gather, each moving (K−1)/K of S through
    every member; nccl-tests calls the resulting rate "bus bandwidth". 0 for one kitchen.
    """
    return Fraction(2 * (kitchens - 1), kitchens)


def hallway_seconds(kitchens: int, latency: Fraction, rate: Fraction, units: Fraction) -> Fraction:
    """Ring all-reduce of ``units`` (the whole payload S, e.g. every gradient of a training step):
    ``2(K−1)·α + 2·(K−1)/K · S/β`` (0 for one kitchen)."""
    return 2 * (kitchens - 1) * latency + ring_share(kitchens) * units / rate


def params_hallway_seconds(params: KitchenParams, kitchens: int) -> Fraction:
    return hallway_seconds(
        kitchens, params.hallway_latency_seconds, params.hallway_rate, params.sync_units
    )


def compute_round_seconds(
    params: KitchenParams, kitchens: int = 1, *, exact: bool = True
) -> Fraction:
    """One round of the recipe in one kitchen of ``kitchens`` (phases add up: barriers)."""
    phases = (brigade_phase_seconds(params, p, kitchens, exact=exact) for p in params.phases)
    return sum(phases, Fraction(0))


def brigade_seconds(
    params: KitchenParams, kitchens: int | None = None, *, exact: bool = True
) -> Fraction:
    """All rounds with ``kitchens`` (default: the parameter): compute, then the hallway sync."""
    k = params.kitchens if kitchens is None else kitchens
    per_round = compute_round_seconds(params, k, exact=exact) + params_hallway_seconds(params, k)
    return params.rounds * per_round


def brigade_roofline_seconds(params: KitchenParams, kitchens: int | None = None) -> Fraction:
    return brigade_seconds(params, kitchens, exact=False)


def cook_busy_fraction(params: KitchenParams) -> Fraction:
    """Share of all cooks' time spent cooking (the rest: briefing, pantry waits, hallway)."""
    work = sum((p.tasks * cook_seconds_per_task(params, p) for p in params.phases), Fraction(0))
    return params.rounds * work / (params.cooks * params.kitchens * brigade_seconds(params))


def crossover_tasks(params: KitchenParams) -> int | None:
    """Fewest tasks of the (single) phase from which one brigade beats the chef, within one wave.

    The textbook ``⌊(L + r·τ)/τ⌋ + 1``, made exact with the pantry: for w ≤ n the brigade takes
    ``L + d + w·c`` and the chef ``w·t`` with ``t = max(τ, b/B_chef)``, so it wins once
    ``w·(t − c) > L + d``. ``None`` when that never happens within one wave of cooks.
    """
    phase = params.phases[0]
    per_task_chef = max(phase.chef_seconds, phase.pantry_units / params.chef_pantry_rate)
    gain = per_task_chef - pantry_seconds_per_task(phase, params.pantry_rate)
    if gain <= 0:
        return None
    tasks = math.floor((params.launch_seconds + cook_seconds_per_task(params, phase)) / gain) + 1
    return tasks if tasks <= params.cooks else None


def is_serial(phase: Phase) -> bool:
    """A one-task phase is a judgment step: nothing in it to share out."""
    return phase.tasks == 1


def hybrid_seconds(params: KitchenParams) -> Fraction:
    """Chef + one brigade: the chef takes the serial (one-task) phases, the brigade the rest.

    Literal rather than "whoever is faster" so that it agrees with Amdahl, slow cooks included.
    """
    total = Fraction(0)
    for phase in params.phases:
        if is_serial(phase):
            total += chef_phase_seconds(phase, params.chef_pantry_rate)
        else:
            total += brigade_phase_seconds(params, phase)
    return params.rounds * total


def serial_share(params: KitchenParams) -> Fraction:
    """f: the share of the chef's time spent on serial (one-task) phases."""
    rate = params.chef_pantry_rate
    serial = sum((chef_phase_seconds(p, rate) for p in params.phases if is_serial(p)), Fraction(0))
    return params.rounds * serial / chef_seconds(params)


def amdahl_speedup(serial: Fraction, cooks: int, slowdown: Fraction) -> Fraction:
    """Amdahl with slow cooks (Hill & Marty): ``1 / (f + r·(1−f)/n)``; ceiling 1/f."""
    return 1 / (serial + slowdown * (1 - serial) / cooks)


def gustafson_speedup(serial: Fraction, workers: int) -> Fraction:
    """Gustafson (fixed time, growing job): ``s + (1−s)·N``."""
    return serial + (1 - serial) * workers


@dataclass(frozen=True)
class KitchenPoint:
    """One K of the multi-kitchen series."""

    kitchens: int
    seconds: Fraction
    speedup: Fraction  # against one kitchen: the strong-scaling curve
    speedup_vs_chef: Fraction


def kitchens_series(params: KitchenParams, up_to: int | None = None) -> list[KitchenPoint]:
    """K = 1 … ``up_to`` (default: the ``kitchens`` parameter), hallway included."""
    chef = chef_seconds(params)
    one = brigade_seconds(params, 1)
    points = []
    for k in range(1, (params.kitchens if up_to is None else up_to) + 1):
        seconds = brigade_seconds(params, k)
        points.append(KitchenPoint(k, seconds, one / seconds, chef / seconds))
    return points


def best_kitchens(params: KitchenParams, up_to: int | None = None) -> KitchenPoint:
    """The fastest K in the series (the smallest such K on a tie: fewer kitchens cost less)."""
    return min(kitchens_series(params, up_to), key=lambda p: (p.seconds, p.kitchens))


def best_kitchens_estimate(params: KitchenParams) -> float | None:
    """The rule of thumb ``√(C / 2α)``, where 2(K−1)·α and C/K balance; ``None`` when the hallway
    has no latency."""
    if params.hallway_latency_seconds == 0:
        return None
    return math.sqrt(compute_round_seconds(params) / (2 * params.hallway_latency_seconds))


def time_vs_tasks(
    params: KitchenParams, counts: Iterable[int]
) -> list[tuple[int, Fraction, Fraction]]:
    """``(tasks, chef, brigade)`` of a single-phase recipe at other sizes (the crossover plot)."""
    if not params.single_phase:
        raise UsageError("time against tasks needs a single-phase recipe")
    out = []
    for w in counts:
        p = params.replace({"tasks": w})
        out.append((w, chef_seconds(p), brigade_seconds(p)))
    return out
