"""The pane's live controls: which parameters each scenario offers and how a key steps them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from gpu_tui.core.kitchen.params import SPECS, KitchenParams
from gpu_tui.core.kitchen.scenarios import Scenario
from gpu_tui.core.units import format_exact, format_precise


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
    why_narrower: str = ""
    """Why the knob stops short of the model's range, for the message at its end."""


def _knob(
    key: str,
    label: str,
    unit: str,
    *,
    doubling: bool = False,
    minimum: Fraction | None = None,
    maximum: Fraction | None = None,
    why: str = "",
) -> Knob:
    """A knob whose range is the model's own (``SPECS``), narrowed where the pane needs it.

    Narrowing only, never widening: a knob can then never reach a value the model refuses.
    """
    spec = SPECS[key]
    low = spec.low if minimum is None else max(spec.low, minimum)
    high = spec.high if maximum is None else min(spec.high, maximum)
    return Knob(key, label, unit, doubling, low, high, spec.zero, why)


# The order the knobs appear in; the animation stays cheap within these limits (the frame cost
# grows with kitchens; cells are merged past what the screen shows, so cooks can grow a lot).
# Tasks stop at a billion because the size plot draws up to 100 × the recipe, and that must
# stay inside the model's range too. The small steps stop at 0.1 (0.01 for latency) because a
# talk has no time for forty key presses down to a nanosecond.
_SMOOTH = "to keep the animation smooth"
_FEW_KEYS = "so a few key presses cover it"
_PLOT = "so its size plot (up to 100× the recipe) stays in range"
KNOBS = (
    _knob("cooks", "cooks", "", maximum=Fraction(10**7), why=_SMOOTH),
    _knob("tasks", "tasks", "", maximum=Fraction(10**9), why=_PLOT),
    _knob("slowdown", "slowdown", "×", minimum=Fraction(1), maximum=Fraction(1000), why=_FEW_KEYS),
    _knob(
        "launch_seconds",
        "launch",
        " s",
        minimum=Fraction(1, 10),
        maximum=Fraction(10**9),
        why=_FEW_KEYS,
    ),
    _knob(
        "pantry_rate",
        "pantry",
        "/s",
        minimum=Fraction(1, 10),
        maximum=Fraction(10**9),
        why=_FEW_KEYS,
    ),
    _knob("kitchens", "kitchens", "", doubling=True, maximum=Fraction(64), why=_SMOOTH),
    _knob(
        "hallway_rate",
        "hallway",
        "/s",
        minimum=Fraction(1, 10),
        maximum=Fraction(10**9),
        why=_FEW_KEYS,
    ),
    _knob(
        "hallway_latency_seconds",
        "hallway latency",
        " s",
        minimum=Fraction(1, 100),
        maximum=Fraction(10**9),
        why=_FEW_KEYS,
    ),
)


def knobs_for(scenario: Scenario) -> tuple[Knob, ...]:
    """The knobs this scenario lets you turn (its ``settable`` keys, main ones only)."""
    noun = scenario.noun
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
    return f"{format_precise(float(value))}{knob.unit}"


def at_limit(knob: Knob, value: Fraction, up: bool) -> str | None:
    """What to tell someone who turns a knob past its end, or ``None`` when it can still move."""
    if step(knob, value, up) != value:
        return None
    lowest = Fraction(0) if knob.zero else knob.minimum
    # Written out in full (10,000,000, not 1e+07): this line is about the exact limit.
    span = f"{format_exact(lowest)}{knob.unit} to {format_exact(knob.maximum)}{knob.unit}"
    said = f"{knob.label} is at its {'maximum' if up else 'minimum'} ({span})"
    spec = SPECS[knob.key]
    narrower = knob.maximum < spec.high if up else not knob.zero and knob.minimum > spec.low
    if not narrower:
        return said
    # The command line takes the model's whole range, and says it in its error: say why the
    # pane stops short, so the two never seem to disagree.
    return (
        f"{said}: the pane stops here {knob.why_narrower}; "
        f"gpu-tui kitchen --set {knob.key}=N takes {spec.describe()}"
    )


def try_hint(
    knobs: tuple[Knob, ...], params: KitchenParams, try_it: tuple[str, Fraction] | None
) -> str | None:
    """The keys that turn a scenario's story round ("Try it: ↑↓ to hallway, then → to …"), or
    ``None`` when there is no such knob here or it is already there."""
    if try_it is None:
        return None
    key, value = try_it
    knob = next((k for k in knobs if k.key == key), None)
    now = current(params, key)
    if knob is None or now == value:
        return None
    arrow, verb = ("→", "raise") if value > now else ("←", "lower")
    return (
        f"Try it: ↑↓ to pick {knob.label}, then {arrow} to {verb} it to {show_value(knob, value)}."
    )


def changed(knobs: tuple[Knob, ...], scenario: Scenario, params: KitchenParams) -> list[str]:
    """The knobs turned away from the scenario's values: "cooks 100 (was 10,000)"."""
    words = []
    for knob in knobs:
        own, now = current(scenario.params, knob.key), current(params, knob.key)
        if own != now:
            words.append(f"{knob.label} {show_value(knob, now)} (was {show_value(knob, own)})")
    return words
