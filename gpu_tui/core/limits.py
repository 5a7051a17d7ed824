"""Numeric inputs: one range per input, and the one parser the CLI and the TUI share."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from gpu_tui.core.errors import UsageError
from gpu_tui.core.units import format_exact, format_percent

# What a typed number may look like: ASCII digits (Python's float() would also take "٣", "nan",
# "inf" and "1e999", none of which is a sensible price or token count), underscores between
# digits as Python writes them, an optional fraction and exponent.
_DIGITS = r"[0-9]+(?:_[0-9]+)*"
_NUMBER = re.compile(rf"[+-]?(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?")


def shown(text: str) -> str:
    """What the user typed, quoted for a message, cut short so 5,000 digits stay one line."""
    return repr(text if len(text) <= 40 else text[:40] + "…")


@dataclass(frozen=True)
class Limit:
    """The range one numeric input must lie in, and the message that states it.

    The ranges are chosen so that every result computed from inputs inside them is a finite
    float; the messages read the same whether a CLI flag or a TUI field was given the value.
    """

    name: str
    """How the message names the input, e.g. ``context``."""
    low: float
    high: float
    unit: str = ""
    """Written after the range: ``tokens``, ``years``; ``$`` goes in front of the numbers."""
    whole: bool = False
    percent: bool = False
    """A share: typed as a fraction (0.5) or a percentage (50%), stated in percent."""

    def describe(self) -> str:
        """The valid range in words, e.g. ``a whole number between 0 and 10,000,000 tokens``."""
        kind = "a whole number " if self.whole else ""
        if self.percent:
            return f"between {format_percent(self.low, None)} and {format_percent(self.high, None)}"
        if self.unit == "$":
            return f"{kind}between ${format_exact(self.low)} and ${format_exact(self.high)}"
        unit = f" {self.unit}" if self.unit else ""
        return f"{kind}between {format_exact(self.low)} and {format_exact(self.high)}{unit}"

    def refusal(self, got: str) -> UsageError:
        """The one-line error for a value outside the range, or for text that is no number."""
        # Nameless for a command-line flag: the parser puts the flag in front.
        return UsageError(f"{self.name} must be {self.describe()}, got {got}".lstrip())

    def check(self, value: float) -> float:
        """``value`` when it is in range (and whole where it must be), else ``UsageError``.

        Comparing is enough to refuse nan and ±inf, and it is exact for ints of any size, where
        ``math.isfinite(10**400)`` would raise OverflowError instead.
        """
        is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not (is_number and self.low <= value <= self.high):
            raise self.refusal(repr(value))
        if self.whole and value != int(value):
            raise self.refusal(repr(value))
        return value

    def parse(self, text: str) -> float:
        """A typed value, checked; ``-0`` comes back as ``0.0`` so no JSON says ``-0.0``."""
        cleaned = text.strip()
        percent = self.percent and cleaned.endswith("%")
        if percent:
            cleaned = cleaned[:-1].rstrip()
        if not _NUMBER.fullmatch(cleaned):
            raise self.refusal(shown(text))
        value = float(cleaned) + 0.0  # "1e999" is inf here and "1e-999" is 0: both get checked
        if percent:
            value /= 100
            # 0.1 % ÷ 100 may land a hair off 0.001: a range end typed exactly is that end.
            for end in (self.low, self.high):
                if math.isclose(value, end, rel_tol=1e-12):
                    value = end
        try:
            return self.check(value)
        except UsageError:
            error = self.refusal(shown(text))
        if self.percent and not percent:
            # A bare 50 means 50 % to some and 5000 % to others: say how to write it.
            error = UsageError(f"{error} (write a percentage like 50 % or a fraction like 0.5)")
        raise error

    def parse_whole(self, text: str) -> int:
        """A typed whole number, checked (for the counts: context, batch, GPUs per node)."""
        return int(self.parse(text))
