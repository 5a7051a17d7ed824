"""Round, evenly spaced tick values for a plotext axis, linear or in powers of ten: plotext's
own (63.5, 124.1 …) are hard to read, and on a short plot it drops whichever label lands on a
row already taken, so that the ticks it shows come out uneven."""

from __future__ import annotations

import math

from gpu_tui.core.units import format_si_count


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


def log_ticks(low: float, high: float, most: int | None = None) -> tuple[list[float], list[str]]:
    """Powers of ten from ``low`` to ``high`` labelled 1, 10, 100, 1k … 1M (plotext's are noisy);
    with ``most``, every second (third …) power so that at most that many are labelled.

    plotext drops a label that lands on a row already taken, and which one it drops varies from
    run to run: too many labels for the rows make the axis change between two identical runs.
    """
    ticks: list[float] = []
    power = 10 ** math.floor(math.log10(max(low, 1e-12)))
    while power <= high * 1.0001:
        ticks.append(power)
        power *= 10
    if most is not None and len(ticks) > most:
        ticks = ticks[:: math.ceil(len(ticks) / max(1, most))]
    return ticks, [format_si_count(t) for t in ticks]


def spanning_log_ticks(low: float, high: float, most: int) -> tuple[list[float], list[str]]:
    """Powers of ten an equal number of decades apart, the first at or below ``low`` and the
    last at or above ``high``, at most ``most`` of them: with the axis drawn from the first to
    the last, the labels stand evenly spaced (an axis that ends between two labels puts them
    one row apart here and two there)."""
    first = math.floor(math.log10(max(low, 1e-12)))
    last = math.ceil(math.log10(max(high, low, 1e-12)) - 1e-9)
    gaps = max(1, min(last - first, max(2, most) - 1))
    step = math.ceil((last - first) / gaps) if last > first else 1
    ticks = [10.0**e for e in range(first, first + step * gaps + 1, step)]
    return ticks, [format_si_count(t) for t in ticks]
