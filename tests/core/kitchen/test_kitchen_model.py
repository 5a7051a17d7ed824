"""The closed forms: equal to the brute-force simulation, bounded, and the worked example."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_tui.core.kitchen import model
from gpu_tui.core.kitchen.params import KitchenParams, Phase
from tests.core.kitchen.brute import simulated_seconds

FAST = settings(max_examples=200, deadline=None)

tasks_st = st.integers(1, 120)
cooks_st = st.integers(1, 40)
# Small numerators and denominators: exact, yet varied enough to hit every branch of the max.
time_st = st.fractions(min_value=0, max_value=20, max_denominator=12)
positive_st = st.fractions(min_value=Fraction(1, 12), max_value=20, max_denominator=12)


def onions() -> KitchenParams:
    return KitchenParams(
        phases=(Phase(10_000, Fraction(2), Fraction(1)),),
        cooks=10_000,
        slowdown=Fraction(5),
        launch_seconds=Fraction(5),
        pantry_rate=Fraction(2000),
        chef_pantry_rate=Fraction(100),
    )


@FAST
@given(tasks_st, cooks_st, positive_st, time_st, time_st)
def test_conveyor_closed_form_equals_the_event_simulation(
    w: int, n: int, d: Fraction, c: Fraction, launch: Fraction
) -> None:
    assert model.conveyor_seconds(w, n, d, c, launch) == simulated_seconds(w, n, d, c, launch)


@FAST
@given(tasks_st, cooks_st, positive_st, time_st, time_st)
def test_roofline_le_conveyor_le_no_overlap(
    w: int, n: int, d: Fraction, c: Fraction, launch: Fraction
) -> None:
    roofline = model.roofline_seconds(w, n, d, c, launch)
    conveyor = model.conveyor_seconds(w, n, d, c, launch)
    assert roofline <= conveyor <= launch + model.ceil_div(w, n) * d + w * c
    assert conveyor <= model.conveyor_upper_bound(w, n, d, c, launch)


def test_onions_worked_example() -> None:
    p = onions()
    assert model.chef_seconds(p) == 20_000
    assert model.brigade_roofline_seconds(p) == 15
    assert model.brigade_seconds(p) == 20
    assert model.chef_seconds(p) / model.brigade_seconds(p) == 1000
    assert model.crossover_tasks(p) == 8


def test_onions_crossover_is_where_the_brigade_starts_winning() -> None:
    p = onions()
    wins = [w for w, chef, brigade in model.time_vs_tasks(p, range(1, 40)) if brigade < chef]
    assert wins == list(range(8, 40))


@FAST
@given(
    st.integers(1, 60),
    positive_st,
    st.fractions(min_value=0, max_value=5, max_denominator=6),
    positive_st,
    st.fractions(min_value=1, max_value=8, max_denominator=4),
    time_st,
    positive_st,
)
def test_crossover_matches_a_search_within_one_wave(
    n: int,
    tau: Fraction,
    b: Fraction,
    rate: Fraction,
    r: Fraction,
    launch: Fraction,
    chef_rate: Fraction,
) -> None:
    p = KitchenParams(
        phases=(Phase(1, tau, b),),
        cooks=n,
        slowdown=r,
        launch_seconds=launch,
        pantry_rate=rate,
        chef_pantry_rate=chef_rate,
    )
    rows = model.time_vs_tasks(p, range(1, n + 1))
    winning = [w for w, chef, brigade in rows if brigade < chef]
    expected = winning[0] if winning else None
    assert model.crossover_tasks(p) == expected
    if expected is not None:  # once it wins within the wave it keeps winning
        assert winning == list(range(expected, n + 1))


def test_reference_crossover_formula_without_pantry() -> None:
    # w* = ⌊(L + r·τ)/τ⌋ + 1 when nothing waits on the pantry.
    p = onions().replace({"pantry_units": 0, "launch_seconds": "7.5", "slowdown": 3})
    assert model.crossover_tasks(p) == (Fraction(15, 2) + 6) // 2 + 1
    assert model.crossover_tasks(p.replace({"cooks": 3})) is None  # needs more than one wave


def test_recipe_is_the_sum_of_its_phases() -> None:
    base = onions()
    two = KitchenParams(
        phases=(Phase(10_000, Fraction(2), Fraction(1)), Phase(1, Fraction(60))),
        cooks=base.cooks,
        slowdown=base.slowdown,
        launch_seconds=base.launch_seconds,
        pantry_rate=base.pantry_rate,
        chef_pantry_rate=base.chef_pantry_rate,
    )
    assert model.brigade_seconds(two) == 20 + (5 + 300)
    assert model.chef_seconds(two) == 20_000 + 60
    assert model.hybrid_seconds(two) == 20 + 60
    assert model.serial_share(two) == Fraction(60, 20_060)


@FAST
@given(st.integers(2, 20), st.integers(1, 30), positive_st, positive_st, st.integers(1, 8))
def test_hybrid_is_amdahl_with_slow_cooks(
    waves: int, n: int, tau: Fraction, serial_tau: Fraction, r: int
) -> None:
    # No briefing, no pantry, whole waves: the hybrid's speed-up is exactly Amdahl's.
    p = KitchenParams(
        phases=(Phase(1, serial_tau), Phase(waves * n, tau)),
        cooks=n,
        slowdown=Fraction(r),
        launch_seconds=Fraction(0),
        pantry_rate=Fraction(1),
        chef_pantry_rate=Fraction(1),
    )
    f = model.serial_share(p)
    speedup = model.chef_seconds(p) / model.hybrid_seconds(p)
    assert speedup == model.amdahl_speedup(f, n, p.slowdown)
    assert speedup < 1 / f
    if n < r:
        assert speedup < 1


def test_amdahl_and_gustafson() -> None:
    assert model.amdahl_speedup(Fraction(0), 100, Fraction(1)) == 100
    assert model.amdahl_speedup(Fraction(1, 10), 10**9, Fraction(5)) < 10
    assert model.amdahl_speedup(Fraction(1, 2), 2, Fraction(5)) < 1
    assert model.gustafson_speedup(Fraction(1, 10), 100) == Fraction(1, 10) + Fraction(9, 10) * 100


def test_hallway_is_the_ring_all_reduce() -> None:
    assert model.hallway_seconds(1, Fraction(3), Fraction(7), Fraction(100)) == 0
    assert model.hallway_seconds(4, Fraction(2), Fraction(10), Fraction(100)) == 12 + 15
    p = onions().replace({"kitchens": 4, "hallway_latency_seconds": 2, "hallway_rate": 10})
    p = p.replace({"sync_units": 100, "rounds": 3})
    per_kitchen = model.conveyor_seconds(2500, 10_000, Fraction(10), Fraction(1, 2000), Fraction(5))
    assert model.brigade_seconds(p) == 3 * (per_kitchen + 27)
    assert model.chef_seconds(p) == 3 * 20_000


def test_kitchens_series_and_best() -> None:
    p = onions().replace({"kitchens": 6, "hallway_latency_seconds": 1, "sync_units": 0})
    series = model.kitchens_series(p)
    assert [pt.kitchens for pt in series] == [1, 2, 3, 4, 5, 6]
    assert series[0].speedup == 1
    assert all(pt.seconds == model.brigade_seconds(p, pt.kitchens) for pt in series)
    assert model.best_kitchens(p).seconds == min(pt.seconds for pt in series)
    assert model.best_kitchens_estimate(p.replace({"hallway_latency_seconds": 0})) is None


def test_cook_busy_fraction() -> None:
    assert model.cook_busy_fraction(onions()) == Fraction(10_000 * 10, 10_000 * 20)
