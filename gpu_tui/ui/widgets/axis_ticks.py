"""Round tick values for a plotext axis: plotext's own (63.5, 124.1 …) are hard to read, and
on a short plot it drops whichever label lands on a row already taken, so that the ticks it
shows come out uneven."""

from __future__ import annotations

import math


def linear_ticks(top: float, most: int = 5) -> list[float]:
    """Round numbers from 0 to the first at or past ``top``: 0, 50, 100 … in 1-2-2.5-5 steps,
    at most ``most`` of them (at least two) so that each gets its own row."""
    if top <= 0:
        return []
    labels = max(2, most)
    raw = top / (labels - 1)
    step = 10 ** math.floor(math.log10(raw))
    step *= next(f for f in (1, 2, 2.5, 5, 10) if raw <= f * step * (1 + 1e-9))
    return [i * step for i in range(math.ceil(top / step - 1e-9) + 1)]
