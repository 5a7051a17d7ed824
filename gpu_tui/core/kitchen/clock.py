"""The race's two big clocks: one unit for both, and the number each shows in it."""

from __future__ import annotations

import math
from dataclasses import dataclass

# Smallest first: the race counts in the first unit that keeps the slower side's time under
# MAX_WHOLE, so both clocks read as plain numbers and their ratio shows in the digits themselves
# (20,000 against 20.0 seconds) rather than behind two different units (5:33 h:mm against 20.0 s).
UNITS = (
    ("seconds", 1.0),
    ("minutes", 60.0),
    ("hours", 3600.0),
    ("days", 86_400.0),
    ("years", 365.25 * 86_400.0),
)
MAX_WHOLE = 100_000  # "99,999" is 16 cells of big digits: it fits the chef's side at 80 columns
MAX_DECIMALS = 4


@dataclass(frozen=True)
class RaceClock:
    """Both clocks of one race: the unit they count in and how many decimals the faster shows."""

    unit: str
    unit_seconds: float
    decimals: int

    def text(self, seconds: float) -> str:
        """``seconds`` of model time in this race's unit: 20.0, 3,333, 0.0023."""
        value = max(0.0, seconds) / self.unit_seconds
        # fewer decimals as the number grows: a clock never shows more than five digits
        whole = len(str(int(value))) if value >= 1 else 0
        return f"{value:,.{max(0, min(self.decimals, 5 - max(1, whole)))}f}"


def race_clock(chef_seconds: float, brigade_seconds: float) -> RaceClock:
    """The unit and decimals for a race whose sides finish after these many model seconds.

    The unit is the smallest in which the slower side stays under ``MAX_WHOLE``; the decimals
    give the faster side's final time three significant figures (up to ``MAX_DECIMALS``).
    """
    slow, fast = max(chef_seconds, brigade_seconds), min(chef_seconds, brigade_seconds)
    name, size = next(((n, s) for n, s in UNITS if slow / s < MAX_WHOLE), UNITS[-1])
    value = fast / size
    decimals = 0 if value <= 0 else 2 - math.floor(math.log10(value))
    return RaceClock(name, size, max(0, min(MAX_DECIMALS, decimals)))
