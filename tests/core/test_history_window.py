"""Zoom windows: each graph column's lowest and highest reading, kept tick by tick as a fresh
read of the whole history gives it, spikes that survive zooming out, and the time axis."""

from __future__ import annotations

import random

import pytest

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.monitor.history import History, Series
from gpu_tui.core.monitor.history_window import (
    WINDOWS,
    Columns,
    axis_row,
    kept_ms,
    window_ms,
    window_name,
)
from gpu_tui.core.monitor.samples import CpuSample, GpuSample, MemorySample, Sample
from tests.fakes.samples import NOT_SUPPORTED, gpu_sample


def tick(
    history: History, busy: float, interval: float = 1.0, gpus: tuple[GpuSample, ...] = ()
) -> None:
    cpu = CpuSample(busy, (0.0,), Unknown("x"), Unknown("x"), 40.0)
    memory = MemorySample(16 << 30, 4 << 30, 12 << 30, 0, 0)
    history.append(Sample(timestamp=0.0, cpu=cpu, memory=memory, gpus=gpus), interval)


def same(a: list[float | None], b: list[float | None]) -> bool:
    """Equal, NaN matching NaN."""
    return len(a) == len(b) and all(
        x is y or (x is not None and y is not None and (x == y or (x != x and y != y)))
        for x, y in zip(a, b, strict=True)
    )


def test_each_column_holds_the_lowest_and_highest_reading_that_began_in_it() -> None:
    series = Series("busy", "%", 100)  # one reading a second (no clock)
    for value in (10.0, 90.0, 30.0, 40.0, 50.0, 0.0, 70.0):
        series.append(value)
    columns = Columns(series, 8_000, 4)  # 8 s in 4 columns: 2 s a column
    assert columns.update() == (4, 4)  # drawn afresh
    # Readings 0-6 began at 0-6 s; the newest (6 s) is in the column of 6-8 s.
    assert columns.lows == [10.0, 30.0, 0.0, 70.0]
    assert columns.highs == [90.0, 40.0, 50.0, 70.0]
    series.append(20.0)  # 7 s: into the newest column
    assert columns.update() == (0, 1)
    assert (columns.lows[-1], columns.highs[-1]) == (20.0, 70.0)
    series.append(60.0)  # 8 s: a new column, the rest move along
    assert columns.update() == (1, 1)
    assert columns.lows == [30.0, 0.0, 20.0, 60.0]
    assert columns.highs == [40.0, 50.0, 70.0, 60.0]


def test_a_window_narrower_than_the_ticks_repeats_each_reading_until_the_next() -> None:
    history = History(capacity=50)
    for busy in (10.0, 20.0, 30.0):
        tick(history, busy, interval=2.0)
    columns = Columns(history.cpu_percent, 10_000, 10)  # a second a column, a tick each 2 s
    columns.update()
    assert columns.highs == [None] * 5 + [10.0, 10.0, 20.0, 20.0, 30.0]


def test_the_time_axis_follows_the_interval_each_tick_was_taken_at() -> None:
    history = History(capacity=100)
    for _ in range(30):
        tick(history, 10.0, interval=2.0)  # a minute at 2 s ...
    for _ in range(60):
        tick(history, 90.0, interval=0.5)  # ... then half a minute at 0.5 s
    columns = Columns(history.cpu_percent, 60_000, 6)  # the last minute, 10 s a column
    columns.update()
    # The last half minute is the fast ticks; the half before it, the end of the slow ones.
    assert columns.highs == [10.0, 10.0, 10.0, 90.0, 90.0, 90.0]


@pytest.mark.parametrize("seed", range(40))
def test_columns_kept_tick_by_tick_are_what_a_fresh_read_gives(seed: int) -> None:
    """With the interval changing, unknown readings, and a GPU that joins a few ticks late."""
    rng = random.Random(seed)
    history = History(capacity=400)
    window, count = rng.choice([(60_000, 7), (5_000, 13), (30_000, 30), (2_000, 2), (900_000, 3)])
    kept: Columns | None = None
    interval = 1.0
    # Draw until that many frames were compared: the GPU joins late, and frames before it can't be.
    compared, wanted = 0, rng.randint(1, 60)
    while compared < wanted:
        for _ in range(rng.choice([0, 1, 1, 1, 2, 5])):  # drawn late, or not at all
            if rng.random() < 0.1:
                interval = rng.choice([0.1, 0.5, 1.0, 2.0, 10.0])
            busy = rng.choice([NOT_SUPPORTED, rng.uniform(0, 100), rng.uniform(0, 100)])
            gpus = (gpu_sample(utilization_percent=busy),) if history.ticks > 3 else ()
            tick(history, 1.0, interval, gpus)
        if not history.gpus:
            continue
        series = history.gpus[0].utilization_percent
        kept = kept or Columns(series, window, count)
        kept.update()
        fresh = Columns(series, window, count)
        fresh.update()
        assert same(kept.lows, fresh.lows)
        assert same(kept.highs, fresh.highs)
        compared += 1


def test_a_spike_an_hour_and_a_half_ago_shows_at_the_widest_window() -> None:
    history = History()  # the default: an hour of ticks in full, coarser behind
    for second in range(2 * 3600):
        tick(history, 100.0 if second == 600 else 5.0)
    window = window_ms(WINDOWS[-1], history)
    assert window == 7_200_000  # everything kept: two hours
    columns = Columns(history.cpu_percent, window, 88)
    columns.update()
    assert max(h for h in columns.highs if h is not None) == 100.0
    spike = columns.highs.index(100.0)
    assert spike == 600 * 88 // 7200  # where ten minutes in sits on the two-hour axis
    assert columns.highs.count(100.0) == 1
    assert min(low for low in columns.lows if low is not None) == 5.0


def test_everything_kept_rounds_up_to_a_round_window() -> None:
    history = History(capacity=100)
    assert window_ms(None, history) == 60_000
    for _ in range(90):
        tick(history, 1.0)
    assert kept_ms(history) == 90_000
    assert window_ms(None, history) == 120_000
    assert window_ms(300, history) == 300_000


def test_window_names() -> None:
    assert [window_name(w) for w in WINDOWS] == ["1 min", "5 min", "15 min", "1 h", "all"]


@pytest.mark.parametrize(
    ("window", "width", "axis"),
    [
        (60_000, 54, "-1m           -45s         -30s         -15s       now"),
        (300_000, 54, "-5m        -4m        -3m       -2m        -1m     now"),
        (3_600_000, 54, "-1h           -45m         -30m         -15m       now"),
        (7_200_000, 40, "-2h       -1h30     -1h       -30m   now"),
        (86_400_000, 30, "-1d            -12h        now"),
        (60_000, 3, "   "),
    ],
)
def test_the_time_axis_says_how_long_ago_each_column_was(
    window: int, width: int, axis: str
) -> None:
    assert axis_row(window, width) == axis
