"""One metric's bounded history: a ring of the newest readings, and coarse rings of min and max."""

from __future__ import annotations

import math
import threading
from array import array

DEFAULT_CAPACITY = 3600
"""Readings in each fine ring: an hour at the default 1 s refresh, one reading per tick."""
TIERS = ((60, 1440), (900, 672))
"""The coarse rings behind it, as (readings per bucket, buckets kept): each bucket holds the
lowest and the highest reading of its ticks (not their mean: a one-tick spike survives). At 1 s
that is a day at one minute, then a week at fifteen minutes; after that the oldest go."""
_NAN = math.nan
_INF = math.inf


class _Tier:
    """Buckets of ``bucket`` readings, each the lowest and highest known one (NaN: all
    unknown), aligned to the tick count so every series' buckets cover the same ticks."""

    __slots__ = ("bucket", "count", "head", "high", "highs", "last", "low", "lows")

    def __init__(self, bucket: int, buckets: int) -> None:
        self.bucket = bucket
        self.lows = array("d", [_NAN]) * buckets
        self.highs = array("d", [_NAN]) * buckets
        self.head = 0
        self.count = 0
        self.last = -1
        """The tick index of the newest bucket held, over ``bucket`` (its number)."""
        self.low = _INF
        self.high = -_INF
        """The open bucket so far (inf and -inf while it has no known reading)."""

    def close(self, number: int) -> tuple[float, float]:
        low, high = (self.low, self.high) if self.high >= self.low else (_NAN, _NAN)
        self.lows[self.head] = low
        self.highs[self.head] = high
        self.head = (self.head + 1) % len(self.lows)
        self.count = min(self.count + 1, len(self.lows))
        self.last = number
        self.low, self.high = _INF, -_INF
        return low, high

    def buckets(self) -> tuple[int, list[float], list[float]]:
        """The number of the oldest bucket held, and every bucket's low and high, oldest first."""
        size, count = len(self.lows), self.count
        start = (self.head - count) % size
        lows, highs = _ring_slice(self.lows, start, count), _ring_slice(self.highs, start, count)
        return self.last - count + 1, lows, highs


def _ring_slice(data: array[float], start: int, count: int) -> list[float]:
    end = start + count
    out = data[start:end].tolist()  # at most two slices of the ring, copied in C
    if end > len(data):
        out += data[: end - len(data)].tolist()
    return out


class Series:
    """One metric's history: a ring of the newest ``capacity`` readings that never grows, and
    coarse rings (``tiers``) of the lowest and highest reading per bucket of older ticks.

    Unknown readings are kept as gaps (``None``) so a graph shows the hole instead of a made-up
    value. ``low``/``high`` are the fixed scale to draw against (``high`` is ``None`` until a
    limit is known, e.g. a GPU's power limit); graphs must not auto-scale to the data.
    ``start`` is the tick of the first reading (a GPU may join a few ticks after the host), and
    ``clock`` the history's ``elapsed`` series, which says when each tick began.
    """

    __slots__ = (
        "_appended",
        "_count",
        "_data",
        "_head",
        "_lock",
        "_tiers",
        "clock",
        "high",
        "low",
        "name",
        "start",
        "unit",
    )

    def __init__(
        self,
        name: str,
        unit: str,
        capacity: int,
        *,
        low: float = 0.0,
        high: float | None = None,
        lock: threading.RLock | None = None,
        tiers: tuple[tuple[int, int], ...] = TIERS,
        start: int = 0,
        clock: Series | None = None,
    ) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self.name = name
        self.unit = unit
        self.low = low
        self.high = high
        # Preallocated arrays of doubles: appending never allocates, so memory is flat forever.
        self._data = array("d", [_NAN]) * capacity
        self._tiers = tuple(_Tier(bucket, buckets) for bucket, buckets in tiers)
        self._head = 0
        self._count = 0
        self._appended = 0
        """Readings ever appended: tells a drawing how many are new since it last looked."""
        self._lock = lock if lock is not None else threading.RLock()
        self.start = start
        self.clock = clock

    @property
    def capacity(self) -> int:
        return len(self._data)

    @property
    def lock(self) -> threading.RLock:
        return self._lock

    @property
    def end(self) -> int:
        """The tick after the newest reading (``start`` plus the readings appended)."""
        return self.start + self._appended

    def __len__(self) -> int:
        return self._count

    def append(self, value: float | None) -> None:
        """Add the newest reading (``None`` for unknown), dropping the oldest when full."""
        with self._lock:
            self.put_locked(value)

    def put_locked(self, value: float | None) -> None:
        """``append`` for a caller already holding the history's lock (the sampler, per tick)."""
        data = self._data
        head = self._head
        data[head] = _NAN if value is None else value
        head += 1
        self._head = 0 if head == len(data) else head
        self._appended += 1
        if self._count < len(data):
            self._count += 1
        tiers = self._tiers
        if not tiers:
            return
        first = tiers[0]
        if value is not None:  # NaN compares false both ways: left out as unknown
            if value < first.low:
                first.low = value
            if value > first.high:
                first.high = value
        tick = self.start + self._appended
        if tick % first.bucket == 0:
            self._close(tick)

    def _close(self, tick: int) -> None:
        """The buckets that end at ``tick`` are complete: each feeds the next coarser one."""
        tiers = self._tiers
        for level, tier in enumerate(tiers):
            if tick % tier.bucket:
                return
            low, high = tier.close(tick // tier.bucket - 1)
            if level + 1 < len(tiers) and high == high:
                coarser = tiers[level + 1]
                coarser.low = min(coarser.low, low)
                coarser.high = max(coarser.high, high)

    def values(self, last: int | None = None) -> list[float | None]:
        """The readings held, oldest first (only the newest ``last`` when given: a graph
        ``last`` cells wide need not copy the whole ring each tick); ``None`` where unknown."""
        with self._lock:
            return self._newest(self._count if last is None else last)

    def newer(self, seen: int, last: int) -> tuple[int, list[float | None]]:
        """The readings appended since the first ``seen`` (at most the newest ``last``), and
        how many have been appended in all: a graph kept from the last tick adds only these."""
        with self._lock:
            return self._appended, self._newest(min(self._appended - seen, last))

    def _newest(self, last: int) -> list[float | None]:
        return [None if v != v else v for v in self.raw(last)]  # NaN marks an unknown reading

    def raw(self, last: int) -> list[float]:
        """The newest ``last`` readings held (at most), oldest first, NaN where unknown; the
        caller holds the lock."""
        count = max(0, min(last, self._count))
        return _ring_slice(self._data, (self._head - count) % len(self._data), count)

    def newest(self) -> float:
        """The newest reading (NaN when unknown or empty); the caller holds the lock."""
        return self._data[self._head - 1] if self._count else _NAN

    def tier(self, level: int) -> tuple[int, int, list[float], list[float]]:
        """Coarse ring ``level``: its bucket size in ticks, the number of its oldest bucket, and
        the buckets' lows and highs, oldest first; the caller holds the lock."""
        tier = self._tiers[level]
        return (tier.bucket, *tier.buckets())

    @property
    def levels(self) -> int:
        """How many coarse rings there are."""
        return len(self._tiers)

    def latest(self) -> float | None:
        """The newest reading, or ``None`` when empty or unknown."""
        with self._lock:
            if self._count == 0:
                return None
            value = self._data[(self._head - 1) % len(self._data)]
        return None if math.isnan(value) else value

    def oldest(self) -> float | None:
        """The lowest value held in any ring (for the sampling clock: when the oldest reading
        or coarse bucket began); ``None`` when empty. The caller holds the lock."""
        held = []
        if self._count:
            held.append(self._data[(self._head - self._count) % len(self._data)])
        for tier in self._tiers:
            if tier.count:
                held.append(tier.lows[(tier.head - tier.count) % len(tier.lows)])
        known = [value for value in held if value == value]
        return min(known) if known else None

    def storage(self) -> int:
        """Bytes held in its arrays: the same after a week as after a minute."""
        arrays = [self._data, *(a for t in self._tiers for a in (t.lows, t.highs))]
        return sum(a.buffer_info()[1] * a.itemsize for a in arrays)
