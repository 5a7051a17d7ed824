"""The five kitchen scenarios: teaching parameter values, the story each tells, and real life."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from gpu_tui.core.devices.sources import Source
from gpu_tui.core.errors import UsageError
from gpu_tui.core.kitchen import figures, hardware_facts
from gpu_tui.core.kitchen.params import ALL_KEYS, HALLWAY_KEYS, PHASE_KEYS, KitchenParams, Phase
from gpu_tui.core.units import format_count

Lesson = Literal["race", "amdahl", "pantry", "hallway", "scaling"]


@dataclass(frozen=True)
class Scenario:
    """A named setup: parameters chosen so the numbers tell one story clearly."""

    name: str
    title: str
    caption: str  # the story, one line
    in_real_life: str  # keeps the analogy honest: computed from sourced figures (hardware_facts.py)
    params: KitchenParams
    settable: frozenset[str]  # what --set (and the pane's live controls) may change
    sources: tuple[Source, ...] = ()  # where the real-life figures come from
    comparison: str = ""
    """What the headline ratio means in real hardware, where the teaching numbers would mislead
    (the onions' 1,000× is one CPU core against a GPU, not a whole CPU)."""
    lesson: Lesson = "race"
    """Which ratio the headline gives (``headline.py``): the one that carries this story."""
    noun: str = "tasks"
    try_it: tuple[str, Fraction] | None = None
    """A parameter and the value that turns the story round, for a "try it" hint: the CLI
    words it as ``--set``, the pane as the keys to press."""

    def title_for(self, params: KitchenParams) -> str:
        """The title, its count following ``params`` where it names the recipe's size: "10,000
        onions" raced with 100 of them reads "100 onions"."""
        default = f"{self.params.phases[0].tasks:,} {self.noun}"
        if params.single_phase and self.params.single_phase and self.title.startswith(default):
            return self.counted(params.phases[0].tasks) + self.title[len(default) :]
        return self.title

    def counted(self, n: int) -> str:
        """``n`` of the recipe's tasks in words: "1 onion", "10,000 onions"."""
        return format_count(n, self.noun)

    def changes(self, params: KitchenParams) -> list[tuple[str, object, object]]:
        """What ``params`` sets otherwise than the scenario: (reference name, the scenario's
        value, this one), in the parameters' order."""
        own = self.params.as_dict()
        now = params.as_dict()
        return [(key, own.get(key), value) for key, value in now.items() if own.get(key) != value]

    def with_overrides(self, overrides: Mapping[str, object]) -> KitchenParams:
        """The scenario's parameters with ``overrides`` applied, or a one-line UsageError."""
        for key in sorted(overrides):
            if key not in ALL_KEYS:
                raise UsageError(
                    f"unknown parameter {key!r} (known: {', '.join(sorted(ALL_KEYS))})"
                )
            if key not in self.settable:
                allowed = ", ".join(sorted(self.settable))
                raise UsageError(f"{self.name} does not let you set {key!r} (settable: {allowed})")
        return self.params.replace(overrides)


def _f(text: str) -> Fraction:
    return Fraction(text)


ONIONS = Scenario(
    name="onions",
    title="10,000 onions",
    caption=(
        "One chef (one CPU core) races one brigade (one GPU): the brigade finishes in seconds "
        "where the chef takes hours; below 8 onions the chef wins, because the briefing costs "
        "more than the work."
    ),
    in_real_life=hardware_facts.onions_real_life(),
    comparison=hardware_facts.onions_comparison(),
    noun="onions",
    sources=figures.H100_SOURCES + figures.EPYC_SOURCES + figures.LAUNCH_SOURCES,
    params=KitchenParams(
        phases=(Phase(10_000, _f("2"), _f("1")),),
        cooks=10_000,
        slowdown=_f("5"),
        launch_seconds=_f("5"),
        pantry_rate=_f("2000"),
        chef_pantry_rate=_f("100"),
        hallway_rate=_f("1000"),
    ),
    settable=ALL_KEYS,
)

COMPLEX_RECIPE = Scenario(
    name="complex-recipe",
    title="30 judgment steps and a little prep",
    caption=(
        "Dependent judgment steps, one dish at a time: the chef beats the brigade, and chef + "
        "brigade together gains only a few percent (Amdahl)."
    ),
    in_real_life=hardware_facts.complex_real_life(),
    lesson="amdahl",
    sources=figures.LAUNCH_SOURCES,
    params=KitchenParams(
        phases=(Phase(100, _f("1"), _f("1")),) + (Phase(1, _f("60"), _f("0")),) * 30,
        cooks=1000,
        slowdown=_f("5"),
        launch_seconds=_f("5"),
        pantry_rate=_f("2000"),
        chef_pantry_rate=_f("100"),
        hallway_rate=_f("1000"),
    ),
    settable=ALL_KEYS - PHASE_KEYS,
)

PANTRY_BOUND = Scenario(
    name="pantry-bound",
    title="cheap tasks, heavy ingredients",
    caption=(
        "The cooks stand idle waiting for the pantry: twice the cooks changes nothing, twice "
        "the pantry halves the time, and fusing trips (fewer units per task) helps."
    ),
    in_real_life=hardware_facts.pantry_real_life(),
    lesson="pantry",
    sources=(*figures.H100_SOURCES, figures.EPYC_TABLE),
    params=KitchenParams(
        phases=(Phase(10_000, _f("0.01"), _f("8")),),
        cooks=1000,
        slowdown=_f("5"),
        launch_seconds=_f("1"),
        pantry_rate=_f("1000"),
        chef_pantry_rate=_f("150"),
        hallway_rate=_f("1000"),
    ),
    settable=ALL_KEYS,
)

SLOW_HALLWAY = Scenario(
    name="slow-hallway",
    title="two kitchens, one hallway",
    caption=(
        "Two kitchens that must agree on the stock pot through a slow hallway are slower than "
        "one; with a fast hallway (1,000/s instead of 10/s) they are faster."
    ),
    lesson="hallway",
    try_it=("hallway_rate", Fraction(1000)),
    in_real_life=hardware_facts.hallway_real_life(),
    sources=(*figures.GRADIENT_SOURCES, figures.H100_SPECS),
    params=KitchenParams(
        phases=(Phase(20_000, _f("1"), _f("0")),),
        cooks=1000,
        slowdown=_f("5"),
        launch_seconds=_f("1"),
        pantry_rate=_f("1000"),
        chef_pantry_rate=_f("100"),
        kitchens=2,
        hallway_latency_seconds=_f("1"),
        hallway_rate=_f("10"),
        sync_units=_f("1000"),
        rounds=10,
    ),
    settable=HALLWAY_KEYS,
)

SCALING = Scenario(
    name="scaling",
    title="1 to 32 kitchens",
    caption=(
        "More kitchens, each with its own pantry, and a fast hallway: the speed-up rises, peaks "
        "near √(C/2α) = 8 kitchens, then falls as every extra kitchen adds two hallway steps."
    ),
    in_real_life=(
        "A ring all-reduce takes 2(K-1) latency steps (NCCL): spreading a fixed job over more "
        "GPUs stops paying once that outweighs each GPU's shrinking share of the compute."
    ),
    sources=(figures.NCCL_BUS_BANDWIDTH,),
    lesson="scaling",
    params=KitchenParams(
        phases=(Phase(32_768, _f("1"), _f("1")),),
        cooks=1024,
        slowdown=_f("2"),
        launch_seconds=_f("1"),
        pantry_rate=_f("256"),
        chef_pantry_rate=_f("100"),
        kitchens=32,
        hallway_latency_seconds=_f("1"),
        hallway_rate=_f("1000"),
        sync_units=_f("1000"),
    ),
    settable=HALLWAY_KEYS,
)

SCENARIOS: dict[str, Scenario] = {
    s.name: s for s in (ONIONS, COMPLEX_RECIPE, PANTRY_BOUND, SLOW_HALLWAY, SCALING)
}


def get_scenario(name: str) -> Scenario:
    """The scenario called ``name``, or a UsageError that lists the real ones."""
    try:
        return SCENARIOS[name]
    except KeyError:
        raise UsageError(
            f"unknown scenario {name!r} (choose from: {', '.join(SCENARIOS)})"
        ) from None
