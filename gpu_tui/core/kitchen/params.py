"""Kitchen parameters: the reference names, exact values (Fractions), valid ranges, validation."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational

from gpu_tui.core.errors import UsageError
from gpu_tui.core.units import format_exact

# Kitchens beyond this make the per-K series pointless and slow to print; real clusters of
# thousands of GPUs are still far below it.
MAX_KITCHENS = 4096

# A value typed by hand is short; a longer one is refused before Fraction sees it, because
# thousands of digits make every exact step of the model (and the 4096-kitchen series) crawl.
MAX_TEXT = 40
# Plain decimals, scientific notation with at most a three-digit exponent (so "1e999999999" is
# never expanded into a billion-digit integer), or a ratio such as 1/3. ASCII digits only:
# Python would read "٣" as 3, which is too surprising to accept silently.
_NUMBER = re.compile(
    r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?|[+-]?[0-9]+/[0-9]+"
)


@dataclass(frozen=True)
class Spec:
    """How one parameter is checked and shown, and the range it must lie in.

    The ranges are wide enough for any kitchen worth drawing (a nanosecond to thirty years per
    step, a trillion tasks) and narrow enough that every result the model reports, multiplied
    out across all of them at once, stays a finite float: the largest chef time is about 1e45 s
    a phase and the largest speed-up about 1e57 a phase, far below the float limit of 1.8e308.
    """

    name: str
    whole: bool  # a count (int) rather than a real number (Fraction)
    low: Fraction  # the smallest value allowed, except 0 when ``zero``
    high: Fraction
    unit: str
    meaning: str
    zero: bool = False  # 0 is allowed too ("no briefing", "nothing to fetch")

    def describe(self) -> str:
        """The valid range in words, e.g. ``0 or between 0.000000001 and 1,000,000,000 s``."""
        kind = "a whole number " if self.whole else ""
        unit = "" if self.unit in ("", "×", self.name) else f" {self.unit}"
        span = f"{kind}between {format_exact(self.low)} and {format_exact(self.high)}{unit}"
        return f"0 or {span}" if self.zero else span

    def refusal(self, got: str) -> UsageError:
        """The one-line error for a value outside the range (or not a number at all)."""
        return UsageError(f"{self.name} must be {self.describe()}, got {got}")


_NANO = Fraction(1, 10**9)
_SECONDS = (_NANO, Fraction(10**9))  # a nanosecond to about 32 years
_RATE = (_NANO, Fraction(10**15))  # units per second
_UNITS = (_NANO, Fraction(10**15))

SPECS: dict[str, Spec] = {
    spec.name: spec
    for spec in (
        Spec("tasks", True, Fraction(1), Fraction(10**12), "tasks", "tasks in the recipe (w)"),
        Spec("chef_seconds", False, *_SECONDS, "s", "chef time per task (τ)"),
        Spec("pantry_units", False, *_UNITS, "units", "ingredients per task (b)", zero=True),
        Spec("cooks", True, Fraction(1), Fraction(10**9), "cooks", "workers in the brigade (n)"),
        Spec(
            "slowdown",
            False,
            Fraction(1, 1000),
            Fraction(10**6),
            "×",
            "a cook takes r·τ per task (r)",
        ),
        Spec("launch_seconds", False, *_SECONDS, "s", "briefing per phase (L)", zero=True),
        Spec("pantry_rate", False, *_RATE, "units/s", "pantry delivery to the brigade (B)"),
        Spec("chef_pantry_rate", False, *_RATE, "units/s", "pantry delivery to the chef"),
        Spec(
            "kitchens",
            True,
            Fraction(1),
            Fraction(MAX_KITCHENS),
            "",
            "brigades working in parallel (K)",
        ),
        Spec(
            "hallway_latency_seconds",
            False,
            *_SECONDS,
            "s",
            "hallway latency per step (α)",
            zero=True,
        ),
        Spec("hallway_rate", False, *_RATE, "units/s", "hallway throughput (β)"),
        Spec(
            "sync_units", False, *_UNITS, "units", "units agreed on after each round (S)", zero=True
        ),
        Spec("rounds", True, Fraction(1), Fraction(10**9), "", "times the recipe repeats"),
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
    Anything outside the parameter's range, or not a number, is one ``UsageError`` that states
    the range: the CLI's ``--set`` and the pane's knobs both end up here.
    """
    spec = SPECS[key]
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str, Rational)):
        raise spec.refusal(_shown(raw))
    if isinstance(raw, str):
        value = _parse_text(raw)
    elif isinstance(raw, float) and not math.isfinite(raw):
        value = None
    else:
        value = Fraction(raw)
    if value is None or not _in_range(spec, value):
        raise spec.refusal(_shown(raw))
    return int(value) if spec.whole else value


def _shown(raw: object) -> str:
    """The value for a message, cut short so a pasted wall of digits stays one line."""
    if isinstance(raw, str) and len(raw) > MAX_TEXT:
        return repr(raw[:MAX_TEXT] + "…")
    return repr(raw)


def _parse_text(raw: str) -> Fraction | None:
    """The exact value of a typed number, or ``None`` when it is not one we accept."""
    cleaned = raw.strip().replace("_", "")  # 1_000 reads as Python writes it
    if len(cleaned) > MAX_TEXT or not _NUMBER.fullmatch(cleaned):
        return None
    try:
        return Fraction(cleaned)
    except ZeroDivisionError:  # 1/0
        return None


def _in_range(spec: Spec, value: Fraction) -> bool:
    if spec.whole and value.denominator != 1:
        return False
    return (spec.zero and value == 0) or spec.low <= value <= spec.high


def parse_assignment(item: str) -> tuple[str, int | Fraction]:
    """One ``--set KEY=VALUE``: a known parameter and its checked value, or ``UsageError``."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise UsageError(f"expected KEY=VALUE, got {item!r}")
    if key not in SPECS:
        raise UsageError(f"unknown parameter {key!r} (known: {', '.join(SPECS)})")
    return key, to_value(key, value)
