"""Kitchen parameters: the reference names, exact values (Fractions) and validation."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational

from gpu_tui.core.errors import UsageError

# Kitchens beyond this make the per-K series pointless and slow to print; real clusters of
# thousands of GPUs are still far below it.
MAX_KITCHENS = 4096


@dataclass(frozen=True)
class Spec:
    """How one parameter is checked and shown."""

    name: str
    whole: bool  # a count (int) rather than a real number (Fraction)
    positive: bool  # > 0 when True, >= 0 when False
    unit: str
    meaning: str


SPECS: dict[str, Spec] = {
    spec.name: spec
    for spec in (
        Spec("tasks", True, True, "tasks", "tasks in the recipe (w)"),
        Spec("chef_seconds", False, True, "s", "chef time per task (τ)"),
        Spec("pantry_units", False, False, "units", "ingredients per task (b)"),
        Spec("cooks", True, True, "cooks", "workers in the brigade (n)"),
        Spec("slowdown", False, True, "×", "a cook takes r·τ per task (r)"),
        Spec("launch_seconds", False, False, "s", "briefing per phase (L)"),
        Spec("pantry_rate", False, True, "units/s", "pantry delivery to the brigade (B)"),
        Spec("chef_pantry_rate", False, True, "units/s", "pantry delivery to the chef"),
        Spec("kitchens", True, True, "", "brigades working in parallel (K)"),
        Spec("hallway_latency_seconds", False, False, "s", "hallway latency per step (α)"),
        Spec("hallway_rate", False, True, "units/s", "hallway throughput (β)"),
        Spec("sync_units", False, False, "units", "units agreed on after each round (S)"),
        Spec("rounds", True, True, "", "times the recipe repeats"),
    )
}
PHASE_KEYS = frozenset({"tasks", "chef_seconds", "pantry_units"})
HALLWAY_KEYS = frozenset(
    {"kitchens", "hallway_latency_seconds", "hallway_rate", "sync_units", "rounds"}
)
ALL_KEYS = frozenset(SPECS)


@dataclass(frozen=True)
class Phase:
    """``tasks`` independent identical tasks; a barrier follows the phase."""

    tasks: int
    chef_seconds: Fraction
    pantry_units: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        for key in PHASE_KEYS:
            object.__setattr__(self, key, to_value(key, getattr(self, key)))


@dataclass(frozen=True)
class KitchenParams:
    """Everything the model needs: the recipe (phases) and the workers that cook it."""

    phases: tuple[Phase, ...]
    cooks: int
    slowdown: Fraction
    launch_seconds: Fraction
    pantry_rate: Fraction
    chef_pantry_rate: Fraction
    kitchens: int = 1
    hallway_latency_seconds: Fraction = Fraction(0)
    hallway_rate: Fraction = Fraction(1)
    sync_units: Fraction = Fraction(0)
    rounds: int = 1

    def __post_init__(self) -> None:
        if not self.phases:
            raise UsageError("a recipe needs at least one phase")
        object.__setattr__(self, "phases", tuple(self.phases))
        for key in ALL_KEYS - PHASE_KEYS:
            object.__setattr__(self, key, to_value(key, getattr(self, key)))

    @property
    def single_phase(self) -> bool:
        return len(self.phases) == 1

    def replace(self, overrides: Mapping[str, object]) -> KitchenParams:
        """A copy with ``overrides`` (reference names; ``tasks`` etc. need a single phase)."""
        unknown = sorted(set(overrides) - ALL_KEYS)
        if unknown:
            raise UsageError(f"unknown parameter {unknown[0]!r} (known: {', '.join(SPECS)})")
        phase_changes = {k: v for k, v in overrides.items() if k in PHASE_KEYS}
        phases = self.phases
        if phase_changes:
            if not self.single_phase:
                key = sorted(phase_changes)[0]
                raise UsageError(f"{key!r} is per phase and this recipe has {len(phases)} phases")
            phases = (dataclasses.replace(phases[0], **phase_changes),)  # type: ignore[arg-type]
        rest = {k: v for k, v in overrides.items() if k not in PHASE_KEYS}
        return dataclasses.replace(self, phases=phases, **rest)  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, object]:
        """Every parameter by its reference name; a multi-phase recipe lists ``phases``."""
        out: dict[str, object] = {}
        if self.single_phase:
            out.update(phase_dict(self.phases[0]))
        for key in SPECS:
            if key not in PHASE_KEYS:
                out[key] = json_number(getattr(self, key))
        if not self.single_phase:
            out["phases"] = [phase_dict(phase) for phase in self.phases]
        return out


def phase_dict(phase: Phase) -> dict[str, object]:
    return {
        key: json_number(getattr(phase, key)) for key in ("tasks", "chef_seconds", "pantry_units")
    }


def json_number(value: int | Fraction) -> int | float:
    """Counts stay ints; real quantities are always floats so the schema has one type each."""
    return value if isinstance(value, int) else float(value)


def to_value(key: str, raw: object) -> int | Fraction:
    """Check one parameter and return it exactly: int for counts, Fraction for the rest.

    Strings go through ``Fraction`` so that ``0.1`` from the command line is exactly 1/10.
    """
    spec = SPECS[key]
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str, Rational)):
        raise UsageError(f"{key} must be a number, got {raw!r}")
    try:
        value = Fraction(raw.strip().replace("_", "")) if isinstance(raw, str) else Fraction(raw)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise UsageError(f"{key} must be a finite number, got {raw!r}") from None
    if spec.positive and value <= 0:
        raise UsageError(f"{key} must be greater than 0, got {raw}")
    if value < 0:
        raise UsageError(f"{key} cannot be negative, got {raw}")
    if not spec.whole:
        return value
    if value.denominator != 1:
        raise UsageError(f"{key} must be a whole number, got {raw}")
    if key == "kitchens" and value > MAX_KITCHENS:
        raise UsageError(f"kitchens must be at most {MAX_KITCHENS}, got {raw}")
    return int(value)


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """``["cooks=64", ...]`` from ``--set`` into a dict (the last value of a key wins)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key or not value.strip():
            raise UsageError(f"--set expects KEY=VALUE, got {item!r}")
        out[key] = value
    return out
