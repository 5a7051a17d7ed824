"""The pane's live controls: which parameters each scenario offers and how a key steps them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.core.kitchen.report import number
from gpu_tui.core.kitchen.scenarios import Scenario


@dataclass(frozen=True)
class Knob:
    """One parameter the arrow keys change, stepping along 1-2-5 (or doubling) values."""

    key: str
    label: str
    unit: str
    doubling: bool = False  # 1, 2, 4, 8 … rather than 1, 2, 5, 10 …
    minimum: Fraction = Fraction(1)
    maximum: Fraction = Fraction(10**9)
    zero: bool = False  # may step down to 0 below the minimum


# The order the knobs appear in; the animation stays cheap within these limits (the frame cost
# grows with kitchens; cells are merged past what the screen shows, so cooks can grow a lot).
KNOBS = (
    Knob("cooks", "cooks", "", maximum=Fraction(10**7)),
    Knob("tasks", "tasks", ""),
    Knob("slowdown", "slowdown", "×", maximum=Fraction(1000)),
    Knob("launch_seconds", "launch", " s", minimum=Fraction(1, 10), zero=True),
    Knob("pantry_rate", "pantry", "/s", minimum=Fraction(1, 10)),
    Knob("kitchens", "kitchens", "", doubling=True, maximum=Fraction(64)),
    Knob("hallway_rate", "hallway", "/s", minimum=Fraction(1, 10)),
    Knob("hallway_latency_seconds", "hallway latency", " s", minimum=Fraction(1, 100), zero=True),
)


def knobs_for(scenario: Scenario) -> tuple[Knob, ...]:
    """The knobs this scenario lets you turn (its ``settable`` keys, main ones only)."""
    noun = "onions" if scenario.name == "onions" else "tasks"
    out = []
    for knob in KNOBS:
        if knob.key not in scenario.settable:
            continue
        if scenario.params.kitchens == 1 and knob.key.startswith("hallway"):
            continue  # one kitchen never uses the hallway: a knob that does nothing confuses
        out.append(Knob(**{**knob.__dict__, "label": noun}) if knob.key == "tasks" else knob)
    return tuple(out)


def current(params: KitchenParams, key: str) -> Fraction:
    if key == "tasks":
        return Fraction(params.phases[0].tasks)
    return Fraction(getattr(params, key))


def _ladder(value: Fraction, doubling: bool, up: bool) -> Fraction:
    """The next value above (or below) ``value`` on the 1-2-5 or doubling ladder."""
    if doubling:
        exp = math.log2(value)
        step = math.floor(exp) + 1 if up else math.ceil(exp) - 1
        return Fraction(2) ** step
    decade = Fraction(10) ** math.floor(math.log10(value))
    candidates = [decade * m for m in (Fraction(1, 10), 1, 2, 5, 10, 20)]
    if up:
        return min(c for c in candidates if c > value)
    return max(c for c in candidates if c < value)


def step(knob: Knob, value: Fraction, up: bool) -> Fraction:
    """The value one key press away, kept within the knob's range."""
    if value == 0:
        return knob.minimum if up else value
    nxt = _ladder(value, knob.doubling, up)
    if nxt < knob.minimum:
        return Fraction(0) if knob.zero else knob.minimum
    return min(knob.maximum, nxt)


def show_value(knob: Knob, value: Fraction) -> str:
    return f"{number(float(value))}{knob.unit}"
