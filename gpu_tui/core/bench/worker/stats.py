"""Order statistics for timings: median, percentiles, spread (stdlib only, shared with gpu-tui)."""

from __future__ import annotations

import math
from collections.abc import Sequence

NOISY = 0.10
"""IQR/median above this is flagged noisy (torch.utils.benchmark warns at the same 10 %)."""
VERY_NOISY = 0.25


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) with linear interpolation between order statistics."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile must be within 0..100, got {q}")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def median(values: Sequence[float]) -> float:
    return percentile(values, 50.0)


def relative_iqr(values: Sequence[float]) -> float:
    """(p75 - p25) / median: the noise measure; 0 for fewer than two values."""
    if len(values) < 2:
        return 0.0
    mid = median(values)
    if mid <= 0:
        return math.inf
    return (percentile(values, 75.0) - percentile(values, 25.0)) / mid


def _percent(fraction: float) -> str:
    """``0.37`` → ``37 %``, as gpu-tui's ``format_percent`` writes a whole one (a test holds the
    two together): the worker runs without gpu-tui, so it cannot import it."""
    return f"{fraction * 100:,.0f} %"


def noise_warning(values: Sequence[float]) -> str | None:
    """A user-facing warning when the spread makes the median doubtful, else None."""
    spread = relative_iqr(values)
    if spread > VERY_NOISY:
        return f"very noisy: IQR/median = {_percent(spread)} (another process is competing?)"
    if spread > NOISY:
        return f"noisy: IQR/median = {_percent(spread)}"
    return None


def summary(values: Sequence[float]) -> dict[str, float]:
    """The figures every result reports, in seconds."""
    return {
        "median_seconds": median(values),
        "p20_seconds": percentile(values, 20.0),
        "p80_seconds": percentile(values, 80.0),
        "best_seconds": min(values),
        "iqr_over_median": relative_iqr(values),
    }
