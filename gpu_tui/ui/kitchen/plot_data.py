"""The curves behind the Kitchen plots, from the model's closed forms (no Textual here)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from gpu_tui.core.kitchen import model
from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.core.kitchen.scenarios import ONIONS, SCALING

EXAMPLE_SERIAL = Fraction(1, 20)  # shown when the recipe itself has no serial steps


@dataclass(frozen=True)
class LawCurves:
    serial: Fraction
    example: bool  # the serial share is an example, not this recipe's
    workers: list[int]
    amdahl: list[float]
    gustafson: list[float]


@dataclass(frozen=True)
class SizeCurves:
    borrowed: str | None  # the scenario drawn instead when this recipe cannot be
    tasks: list[int]
    chef: list[float]
    brigade: list[float]
    crossover: int | None


@dataclass(frozen=True)
class KitchenCurves:
    borrowed: str | None
    kitchens: list[int]
    speedup: list[float]
    best: int


def law_curves(params: KitchenParams) -> LawCurves:
    """Amdahl with this brigade's slow cooks beside Gustafson, over 1 … 2^20 workers."""
    serial = model.serial_share(params) if not params.single_phase else Fraction(0)
    example = serial == 0
    f = EXAMPLE_SERIAL if example else serial
    workers = [2**i for i in range(21)]
    return LawCurves(
        f,
        example,
        workers,
        [float(model.amdahl_speedup(f, n, params.slowdown)) for n in workers],
        [float(model.gustafson_speedup(f, n)) for n in workers],
    )


def size_curves(params: KitchenParams) -> SizeCurves:
    """Chef and brigade time against the number of tasks, 1 … 100× this recipe.

    A many-phase recipe has no single "number of tasks", so the onions are drawn instead.
    """
    borrowed = None
    if not params.single_phase:
        params, borrowed = ONIONS.params, ONIONS.name
    top = max(10, params.phases[0].tasks * 100)
    counts, value = [], 1
    while value <= top:
        counts += [c for c in (value, 2 * value, 5 * value) if c <= top]
        value *= 10
    rows = model.time_vs_tasks(params, counts)
    return SizeCurves(
        borrowed,
        counts,
        [float(chef) for _, chef, _ in rows],
        [float(brigade) for _, _, brigade in rows],
        model.crossover_tasks(params),
    )


def kitchen_curves(params: KitchenParams) -> KitchenCurves:
    """Speed-up over one kitchen for 1 … max(32, K) kitchens, hallway included.

    A one-kitchen scenario has no hallway worth the name, so the scaling scenario stands in.
    """
    borrowed = None
    if params.kitchens == 1:
        params, borrowed = SCALING.params, SCALING.name
    series = model.kitchens_series(params, max(32, params.kitchens))
    best = min(series, key=lambda p: (p.seconds, p.kitchens))
    return KitchenCurves(
        borrowed, [p.kitchens for p in series], [float(p.speedup) for p in series], best.kitchens
    )
