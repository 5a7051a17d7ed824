"""Each scenario's headline: the ratio that carries its lesson, exact, and turned round by knobs."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gpu_tui.core.kitchen import model
from gpu_tui.core.kitchen.headline import count_word, headline
from gpu_tui.core.kitchen.scenarios import SCENARIOS

ONIONS, COMPLEX, PANTRY = (
    SCENARIOS["onions"],
    SCENARIOS["complex-recipe"],
    SCENARIOS["pantry-bound"],
)
HALLWAY, SCALING = SCENARIOS["slow-hallway"], SCENARIOS["scaling"]


@pytest.mark.parametrize(
    ("name", "ratio", "title", "lesson"),
    [
        (
            "onions",
            Fraction(20_000, 20),
            "BRIGADE 1,000× FASTER",
            "10,000 slow cooks beat one fast chef at 10,000 independent onions; below 8 the "
            "briefing outweighs the work and the chef wins.",
        ),
        (
            "complex-recipe",
            Fraction("9160.05") / 1900,
            "CHEF 4.82× FASTER",
            "95 % of the chef's work is one dish at a time, so chef + brigade together are only "
            "1.05× faster than the chef alone (Amdahl).",
        ),
        (
            "pantry-bound",
            Fraction(1600, 3) / Fraction("81.05"),
            "BRIGADE 6.58× FASTER",
            "the cooks wait on the pantry: its 1,000/s (6.67× the chef's) sets the pace, not "
            "the 1,000 cooks.",
        ),
        (
            # 2 kitchens: (51 s compute + 102 s hallway) × 10 rounds against 101 s × 10 rounds
            "slow-hallway",
            Fraction(1530, 1010),
            "TWO KITCHENS ARE 1.51× SLOWER THAN ONE",
            "the hallway takes 102 s a round, more than the 50 s that sharing the work saves.",
        ),
        (
            "scaling",
            None,  # the series' best: checked against the model below
            "EIGHT KITCHENS ARE BEST: 3.77× FASTER THAN ONE",
            "32 kitchens are only 1.85× faster: past 8, each extra kitchen adds two hallway "
            "steps (2 s a round) and saves less than that.",
        ),
    ],
)
def test_every_scenario_headlines_its_own_lesson(
    name: str, ratio: Fraction | None, title: str, lesson: str
) -> None:
    scenario = SCENARIOS[name]
    head = headline(scenario, scenario.params)
    if ratio is None:
        ratio = model.best_kitchens(scenario.params).speedup
    assert head.ratio == pytest.approx(float(ratio), rel=1e-12)
    assert head.title == title
    assert head.lesson == lesson
    assert head.title.split()[-1] in ("FASTER", "ONE")
    assert head.ratio_text in head.title  # the ratio is the headline


def test_the_slow_hallways_lesson_is_two_kitchens_against_one_not_chef_against_brigade() -> None:
    p = HALLWAY.params
    assert model.chef_seconds(p) / model.brigade_seconds(p) > 100  # the brigade still wins
    assert model.brigade_seconds(p, 2) > model.brigade_seconds(p, 1)  # but two lose to one
    assert "BRIGADE" not in headline(HALLWAY, p).title


def test_knobs_turn_the_stories_round_and_the_headline_follows() -> None:
    fast = headline(HALLWAY, HALLWAY.params.replace({"hallway_rate": 1000}))
    assert fast.title == "TWO KITCHENS ARE 1.87× FASTER THAN ONE"  # 1010 s against 540 s
    assert fast.lesson == (
        "the hallway takes 3 s a round, less than the 50 s that sharing the work saves."
    )
    one = headline(HALLWAY, HALLWAY.params.replace({"kitchens": 1}))
    assert one.title == "BRIGADE 198× FASTER"
    assert one.lesson.startswith("one kitchen needs no hallway")
    few = headline(ONIONS, ONIONS.params.replace({"tasks": 5}))
    assert few.title == "CHEF 1.5× FASTER"  # 15.005 s against 10 s
    assert (
        few.lesson
        == "only 5 onions: the briefing (5 s) outweighs the work; the brigade wins from 8."
    )
    slow = headline(ONIONS, ONIONS.params.replace({"cooks": 1, "slowdown": 1000}))
    assert slow.title.startswith("CHEF ")
    assert slow.lesson.startswith("the brigade's briefing and slower cooks")
    fed = headline(PANTRY, PANTRY.params.replace({"pantry_rate": 10**9}))
    assert fed.lesson == "the pantry keeps up at 1,000,000,000/s: now the cooks set the pace."
    quick = headline(SCALING, SCALING.params.replace({"hallway_latency_seconds": Fraction(1, 100)}))
    assert quick.title == "32 KITCHENS ARE 13.7× FASTER THAN ONE"
    assert quick.lesson.endswith("every kitchen up to 32 still pays for itself.")


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_no_headline_speaks_cli(name: str) -> None:
    scenario = SCENARIOS[name]
    for text in (scenario.caption, scenario.in_real_life, scenario.comparison):
        assert "--" not in text
        assert "=1" not in text
    head = headline(scenario, scenario.params)
    assert "--" not in head.title + head.lesson


def test_count_words() -> None:
    assert [count_word(n) for n in (1, 2, 8, 10, 11, 4096)] == [
        "ONE",
        "TWO",
        "EIGHT",
        "TEN",
        "11",
        "4,096",
    ]
