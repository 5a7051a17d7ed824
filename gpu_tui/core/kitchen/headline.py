"""Each race's headline: the ratio that carries its scenario's lesson, and the lesson in words.

The onions are chef against brigade; the complex recipe adds what chef + brigade together gain
(Amdahl); the pantry-bound job says what sets the pace; the hallway scenarios compare K kitchens
with one, since their point is what the hallway costs, not how far the brigade beats the chef.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from gpu_tui.core.kitchen import model
from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.core.kitchen.scenarios import Scenario
from gpu_tui.core.units import (
    format_percent,
    format_precise,
    format_seconds_precise,
    format_times,
)

WORDS = ("ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN")


@dataclass(frozen=True)
class Headline:
    """The banner of a finished race."""

    ratio: float
    """How many times faster (or slower): at least 1, the number shown largest."""
    title: str
    """The ratio in capitals with what it compares: ``BRIGADE 1,000× FASTER``."""
    lesson: str
    """One sentence: why, with the numbers behind it."""

    @property
    def ratio_text(self) -> str:
        return format_times(self.ratio)


def count_word(n: int) -> str:
    """TWO for 2; digits from 11 on (a headline reads "32 KITCHENS", not "THIRTY-TWO")."""
    return WORDS[n - 1] if 1 <= n <= len(WORDS) else f"{n:,}"


def winner(params: KitchenParams) -> tuple[str, float]:
    """``("BRIGADE", chef ÷ brigade)``, ``("CHEF", brigade ÷ chef)``, or ``("TIE", 1)``."""
    chef, brigade = model.chef_seconds(params), model.brigade_seconds(params)
    if brigade < chef:
        return "BRIGADE", float(chef / brigade)
    if chef < brigade:
        return "CHEF", float(brigade / chef)
    return "TIE", 1.0


def _race_title(params: KitchenParams) -> tuple[str, float]:
    who, ratio = winner(params)
    return (
        "CHEF AND BRIGADE TIE" if who == "TIE" else f"{who} {format_times(ratio)} FASTER"
    ), ratio


def _race(scenario: Scenario, params: KitchenParams) -> Headline:
    title, ratio = _race_title(params)
    tasks = sum(p.tasks for p in params.phases)
    crossover = model.crossover_tasks(params) if params.single_phase else None
    if title.startswith("BRIGADE"):
        independent = scenario.counted(tasks).replace(" ", " independent ", 1)
        cooks = "one slow cook beats" if params.cooks == 1 else f"{params.cooks:,} slow cooks beat"
        lesson = f"{cooks} one fast chef at {independent}"
        if crossover is not None and crossover > 1:
            lesson += f"; below {crossover:,} the briefing outweighs the work and the chef wins"
    elif crossover is not None and tasks < crossover:
        briefing = format_seconds_precise(params.launch_seconds)
        lesson = (
            f"only {scenario.counted(tasks)}: the briefing ({briefing}) "
            f"outweighs the work; the brigade wins from {crossover:,}"
        )
    else:
        lesson = "the brigade's briefing and slower cooks cost more than sharing the work saves"
    return Headline(ratio, title, lesson + ".")


def _amdahl(params: KitchenParams) -> Headline:
    title, ratio = _race_title(params)
    serial = model.serial_share(params)
    together = model.chef_seconds(params) / model.hybrid_seconds(params)
    lesson = (
        f"{format_percent(float(serial), 0)} of the chef's work is one dish at a time, so chef + "
        f"brigade together are only {format_times(float(together))} faster than the chef alone "
        "(Amdahl)."
    )
    return Headline(ratio, title, lesson)


def _pantry(params: KitchenParams) -> Headline:
    title, ratio = _race_title(params)
    fetch = sum(
        (p.tasks * model.pantry_seconds_per_task(p, params.pantry_rate) for p in params.phases),
        Fraction(0),
    )
    cook = sum(
        (
            model.ceil_div(p.tasks, params.cooks) * model.cook_seconds_per_task(params, p)
            for p in params.phases
        ),
        Fraction(0),
    )
    rate = f"{format_precise(float(params.pantry_rate))}/s"
    if fetch >= cook:
        pantries = format_times(float(params.pantry_rate / params.chef_pantry_rate))
        lesson = (
            f"the cooks wait on the pantry: its {rate} ({pantries} the chef's) sets the pace, "
            f"not the {params.cooks:,} cooks."
        )
    else:
        lesson = f"the pantry keeps up at {rate}: now the cooks set the pace."
    return Headline(ratio, title, lesson)


def _one_kitchen(params: KitchenParams) -> Headline:
    title, ratio = _race_title(params)
    return Headline(ratio, title, "one kitchen needs no hallway: add kitchens to see its cost.")


def _hallway(params: KitchenParams) -> Headline:
    k = params.kitchens
    if k == 1:
        return _one_kitchen(params)
    one, many = model.brigade_seconds(params, 1), model.brigade_seconds(params)
    hallway = model.params_hallway_seconds(params, k)
    saved = model.compute_round_seconds(params, 1) - model.compute_round_seconds(params, k)
    kitchens = f"{count_word(k)} KITCHENS ARE"
    costs = f"the hallway takes {format_seconds_precise(hallway)} a round"
    shared = f"the {format_seconds_precise(saved)} that sharing the work saves"
    if many > one:
        ratio = float(many / one)
        lesson = f"{costs}, more than {shared}."
        return Headline(ratio, f"{kitchens} {format_times(ratio)} SLOWER THAN ONE", lesson)
    ratio = float(one / many)
    lesson = f"{costs}, less than {shared}."
    return Headline(ratio, f"{kitchens} {format_times(ratio)} FASTER THAN ONE", lesson)


def _scaling(params: KitchenParams) -> Headline:
    k = params.kitchens
    if k == 1:
        return _one_kitchen(params)
    series = model.kitchens_series(params)
    best, last = min(series, key=lambda p: (p.seconds, p.kitchens)), series[-1]
    step = f"{format_seconds_precise(2 * params.hallway_latency_seconds)} a round"
    if best.kitchens < k:
        ratio = float(best.speedup)
        title = (
            f"{count_word(best.kitchens)} KITCHENS ARE BEST: {format_times(ratio)} FASTER THAN ONE"
        )
        lesson = (
            f"{k:,} kitchens are only {format_times(float(last.speedup))} faster: past "
            f"{best.kitchens:,}, each extra kitchen adds two hallway steps ({step}) and saves "
            "less than that."
        )
        return Headline(ratio, title, lesson)
    ratio = float(last.speedup)
    title = f"{count_word(k)} KITCHENS ARE {format_times(ratio)} FASTER THAN ONE"
    lesson = f"the hallway is fast enough that every kitchen up to {k:,} still pays for itself."
    return Headline(ratio, title, lesson)


def headline(scenario: Scenario, params: KitchenParams) -> Headline:
    """The headline of ``scenario`` raced with ``params`` (the knobs may turn its story round)."""
    if scenario.lesson == "amdahl" and not params.single_phase:
        return _amdahl(params)
    if scenario.lesson == "pantry":
        return _pantry(params)
    if scenario.lesson == "hallway":
        return _hallway(params)
    if scenario.lesson == "scaling":
        return _scaling(params)
    return _race(scenario, params)


def story(scenario: Scenario, params: KitchenParams, changes: Sequence[str]) -> str:
    """The scenario's caption; once parameters were set otherwise (``changes``, each in the
    caller's words), what they lead to instead: the caption tells the scenario's own numbers."""
    if not changes:
        return scenario.caption
    lesson = headline(scenario, params).lesson
    return f"Changed: {', '.join(changes)}. {lesson[:1].upper()}{lesson[1:]}"
