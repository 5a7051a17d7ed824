"""Each scenario tells its story: asserted on the model's exact numbers."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

from gpu_tui.core.kitchen import model
from gpu_tui.core.kitchen.scenarios import SCENARIOS


def test_every_scenario_has_a_story_and_real_life() -> None:
    assert list(SCENARIOS) == [
        "onions",
        "complex-recipe",
        "pantry-bound",
        "slow-hallway",
        "scaling",
    ]
    for s in SCENARIOS.values():
        for line in (s.caption, s.in_real_life):
            assert line
            assert "\n" not in line


def test_onions_brigade_wins_by_orders_of_magnitude_but_not_for_a_handful() -> None:
    p = SCENARIOS["onions"].params
    assert model.chef_seconds(p) == 20_000
    assert model.brigade_seconds(p) == 20
    assert model.brigade_roofline_seconds(p) == 15
    assert model.crossover_tasks(p) == 8
    few = p.replace({"tasks": 7})
    assert model.chef_seconds(few) < model.brigade_seconds(few)


def test_complex_recipe_chef_wins_and_the_hybrid_gains_a_few_percent() -> None:
    p = SCENARIOS["complex-recipe"].params
    chef, brigade, hybrid = model.chef_seconds(p), model.brigade_seconds(p), model.hybrid_seconds(p)
    assert chef < brigade
    assert Fraction(1) < chef / hybrid < Fraction(110, 100)
    f = model.serial_share(p)
    assert chef / hybrid < model.amdahl_speedup(f, p.cooks, p.slowdown) < 1 / f


def test_pantry_bound_cooks_idle_more_cooks_useless_more_pantry_halves() -> None:
    scenario = SCENARIOS["pantry-bound"]
    p = scenario.params
    base = model.brigade_seconds(p)
    assert model.brigade_seconds(p) < model.chef_seconds(p)
    assert model.cook_busy_fraction(p) < Fraction(1, 20)
    doubled_cooks = scenario.with_overrides({"cooks": 2 * p.cooks})
    assert model.brigade_seconds(doubled_cooks) == base
    doubled_pantry = scenario.with_overrides({"pantry_rate": 2 * p.pantry_rate})
    fixed = p.launch_seconds + p.slowdown * p.phases[0].chef_seconds  # briefing + the last dish
    assert model.brigade_seconds(doubled_pantry) - fixed == (base - fixed) / 2
    fused = scenario.with_overrides({"pantry_units": p.phases[0].pantry_units / 2})
    assert model.brigade_seconds(fused) - fixed == (base - fixed) / 2


def test_slow_hallway_two_kitchens_lose_fast_hallway_two_win() -> None:
    scenario = SCENARIOS["slow-hallway"]
    p = scenario.params
    assert p.kitchens == 2
    assert model.brigade_seconds(p, 2) > model.brigade_seconds(p, 1)
    fast = scenario.with_overrides({"hallway_rate": 1000})
    assert model.brigade_seconds(fast, 2) < model.brigade_seconds(fast, 1)


def test_scaling_rises_peaks_then_falls() -> None:
    p = SCENARIOS["scaling"].params
    series = [pt.speedup for pt in model.kitchens_series(p)]
    assert len(series) == 32
    peak = series.index(max(series))
    assert 0 < peak < 31
    assert all(a < b for a, b in pairwise(series[: peak + 1]))
    assert all(a > b for a, b in pairwise(series[peak:]))
    best = model.best_kitchens(p).kitchens
    estimate = model.best_kitchens_estimate(p)
    assert best == peak + 1 == 8
    assert estimate is not None
    assert abs(estimate - best) < 1
