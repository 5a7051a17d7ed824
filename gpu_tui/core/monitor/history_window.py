"""Zoom windows over the history: each graph column's lowest and highest reading, and the axis."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from functools import lru_cache

from gpu_tui.core.monitor.history import History, Series
from gpu_tui.core.units import format_axis_ago

WINDOWS: tuple[int | None, ...] = (60, 300, 900, 3600, None)
"""What ``z`` cycles through, in seconds of sampling; ``None``: everything kept."""
ALL_STEPS = (60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800)
"""Windows "everything kept" rounds up to (then whole weeks), so the axis reads round times."""
TICK_STEPS = (5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)
"""Spacing of the axis labels in seconds (then whole days)."""
MIN_TICK_GAP = 10
"""Columns from one axis label to the next at least (a label such as "-1h45" and room)."""
MAX_TICKS = 6
"""Axis labels at most, besides "now": a time axis, not a ruler."""
Column = tuple[float | None, float | None]


def window_name(seconds: int | None) -> str:
    """``1 min``, ``15 min``, ``1 h``, ``all``: what the status line calls a window."""
    if seconds is None:
        return "all"
    return f"{seconds // 3600} h" if seconds % 3600 == 0 else f"{seconds // 60} min"


def kept_ms(history: History) -> float:
    """How much sampling time the history holds, oldest coarse bucket to the newest tick."""
    with history.locked():
        oldest = history.elapsed.oldest()
        return 0.0 if oldest is None else history.now_ms - oldest


def window_ms(seconds: int | None, history: History) -> int:
    """The window's width in milliseconds; "everything kept" rounds up to ``ALL_STEPS``."""
    if seconds is not None:
        return seconds * 1000
    kept = kept_ms(history) / 1000
    step = next((s for s in ALL_STEPS if s >= kept), None)
    return 1000 * (step if step is not None else 604800 * math.ceil(kept / 604800))


@lru_cache(maxsize=64)  # asked for every graph every tick; the same few each time
def axis_row(window: int, width: int) -> str:
    """The time axis under a graph ``width`` columns wide showing ``window`` ms: labels such as
    ``-5m`` where that time is, ``now`` at the right end (the newest column)."""
    if width < 4:
        return " " * max(0, width)
    columns_per_second = width / (window / 1000)
    seconds = window / 1000
    fits = [
        s for s in TICK_STEPS if s * columns_per_second >= MIN_TICK_GAP and seconds / s <= MAX_TICKS
    ]
    # A step that divides the window labels its left end too.
    step = next((s for s in fits if seconds % s == 0), fits[0] if fits else None)
    if step is None:
        days = max(MIN_TICK_GAP / columns_per_second, seconds / MAX_TICKS) / 86400
        step = 86400 * math.ceil(days)
    row = [" "] * width
    row[width - 3 :] = "now"
    free = width - 4  # labels end before the gap ahead of "now"
    position = -1
    ticks = [step * k for k in range(int(window / 1000 // step), 0, -1)]
    for seconds in ticks:  # oldest first, so the left end is labelled when it is a tick
        label = format_axis_ago(seconds)
        at = width - round(seconds * columns_per_second)
        if at > position and at + len(label) <= free:
            row[at : at + len(label)] = label
            position = at + len(label)
    return "".join(row)


def _merge(low: float | None, high: float | None, new_low: float, new_high: float) -> Column:
    if low is None or high is None or high != high:  # nothing yet, or a gap: the new reading
        return new_low, new_high
    if new_high != new_high:
        return low, high
    return min(low, new_low), max(high, new_high)


def _known(values: list[float], pick: Callable[[Iterable[float]], float]) -> float:
    known = [value for value in values if value == value]
    return pick(known) if known else math.nan


def _readings(series: Series, since: float) -> tuple[list[float], list[float], list[float]]:
    """When each reading or coarse bucket began, and its low and high, oldest first, from the
    last one that began before ``since`` on. The caller holds the lock."""
    clock, end = series.clock, series.end
    lows = series.raw(series.capacity)
    first = end - len(lows)
    starts = clock.raw(len(lows)) if clock is not None else [1000.0 * t for t in range(first, end)]
    highs = list(lows)
    boundary = first
    for level in range(series.levels):
        if starts and starts[0] <= since:
            break
        bucket, oldest, tier_lows, tier_highs = series.tier(level)
        clock_oldest, clock_lows = 0, list[float]()
        if clock is not None:
            _, clock_oldest, clock_lows, _ = clock.tier(level)
        boundary_next = boundary
        older: list[tuple[float, float, float]] = []
        for number, (low, high) in enumerate(zip(tier_lows, tier_highs, strict=True), oldest):
            if number * bucket >= boundary:  # these ticks are in finer rings already
                break
            if clock is None:
                began = 1000.0 * number * bucket
            elif 0 <= number - clock_oldest < len(clock_lows):
                began = clock_lows[number - clock_oldest]
            else:
                continue
            if not older:
                boundary_next = number * bucket
            older.append((began, low, high))
        if older:
            boundary = boundary_next
            starts = [o[0] for o in older] + starts
            lows = [o[1] for o in older] + lows
            highs = [o[2] for o in older] + highs
    cut = max(0, bisect_right(starts, since) - 1)
    return starts[cut:], lows[cut:], highs[cut:]


class Columns:
    """The lowest and highest reading in each of ``count`` columns spanning ``window`` ms of one
    series, kept up to date tick by tick.

    Columns are fixed slices of sampling time (column ``t * count // window`` holds the readings
    that began at ``t`` ms), so a tick changes the newest column or adds one and moves the rest
    along. The newest column holds the newest reading. A column no reading began in (a window
    narrower than the ticks) shows the reading that was current then. ``lows``/``highs`` are
    oldest first: ``None`` before the first reading, NaN where every reading was unknown.
    """

    def __init__(self, series: Series, window: int, count: int) -> None:
        if window < 1 or count < 1:
            raise ValueError(f"a window of {window} ms in {count} columns")
        self.series = series
        self.window = window
        self.count = count
        self.lows: list[float | None] = [None] * count
        self.highs: list[float | None] = [None] * count
        self._last: int | None = None
        """The column of the newest reading (numbered from the start of sampling)."""
        self._carry: tuple[float, float] = (math.nan, math.nan)
        self._seen = -1
        """The tick after the newest reading drawn; -1: never drawn."""

    def _column(self, began: float) -> int:
        return int(began) * self.count // self.window

    def update(self) -> tuple[int, int]:
        """Bring the columns up to date: how many columns moved along, and how many at the
        right end are new or changed (both ``count`` when drawn afresh)."""
        series = self.series
        with series.lock:
            end = series.end
            new = end - self._seen
            if new <= 0 or len(series) == 0:
                return 0, 0
            if self._seen < 0 or new >= len(series):
                self._rebuild()
                self._seen = end
                return self.count, self.count
            if new == 1:  # the usual tick: one reading, read without copying slices
                clock = series.clock
                began = clock.newest() if clock is not None else 1000.0 * (end - 1)
                value = series.newest()
                self._seen = end
                step = self._add(began, value, value)
                return step, step or 1
            lows = series.raw(new)
            clock = series.clock
            starts = (
                clock.raw(new) if clock is not None else [1000.0 * t for t in range(end - new, end)]
            )
        self._seen = end
        moved = changed = 0
        for began, value in zip(starts, lows, strict=True):
            step = self._add(began, value, value)
            moved += step
            changed = changed + step if step else max(changed, 1)
        return min(moved, self.count), min(changed, self.count)

    def _add(self, began: float, low: float, high: float) -> int:
        column, last, count = self._column(began), self._last, self.count
        carry_low, carry_high = self._carry
        self._carry = (low, high)
        if last is None or column >= last + count:
            fill: Column = (carry_low, carry_high) if last is not None else (None, None)
            self.lows = [fill[0]] * (count - 1) + [low]
            self.highs = [fill[1]] * (count - 1) + [high]
            self._last = column
            return count
        if column <= last:  # another reading in the newest column
            self.lows[-1], self.highs[-1] = _merge(self.lows[-1], self.highs[-1], low, high)
            return 0
        step = column - last
        del self.lows[:step], self.highs[:step]
        self.lows += [carry_low] * (step - 1) + [low]
        self.highs += [carry_high] * (step - 1) + [high]
        self._last = column
        return step

    def _rebuild(self) -> None:
        """Every column afresh from the rings (a new window or width, or a long absence):
        each column's range of readings found by bisection, its low and high taken in C."""
        series, count, window = self.series, self.count, self.window
        clock = series.clock
        newest = clock.raw(1)[0] if clock is not None else 1000.0 * (series.end - 1)
        last = self._column(newest)
        first = last - count + 1
        since = first * window / count
        starts, lows, highs = _readings(series, since)
        # The first tick at or after each column's start, then one past the end.
        edges = [bisect_left(starts, -(-(first + j) * window // count)) for j in range(count)]
        edges.append(len(starts))
        self.lows, self.highs = [], []
        for j in range(count):
            begin, stop = edges[j], edges[j + 1]
            if stop > begin:
                self.lows.append(_known(lows[begin:stop], min))
                self.highs.append(_known(highs[begin:stop], max))
            elif begin > 0:
                self.lows.append(lows[begin - 1])
                self.highs.append(highs[begin - 1])
            else:
                self.lows.append(None)
                self.highs.append(None)
        self._last = last
        self._carry = (lows[-1], highs[-1]) if lows else (math.nan, math.nan)
