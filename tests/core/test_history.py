"""Ring buffers: fixed length, oldest-first order, gaps for unknown, scales from the device."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.monitor.history import CORE_CAPACITY, DEFAULT_CAPACITY, History, Series
from gpu_tui.core.monitor.samples import CpuSample, GpuSample, MemorySample, Sample
from tests.fakes.samples import NOT_SUPPORTED, gpu_sample


def cpu(percent: float = 10.0, cores: tuple[float, ...] = (5.0, 15.0)) -> CpuSample:
    return CpuSample(percent, cores, 2500.0, (0.5, 0.4, 0.3), Unknown("no sensors"))


def memory(used: int = 4 << 30) -> MemorySample:
    return MemorySample(16 << 30, used, (16 << 30) - used, 2 << 30, 1 << 30)


def gpu(index: int = 0, util: float = 50.0, **changes: object) -> GpuSample:
    return gpu_sample(index, utilization_percent=util, **changes)


def sample(t: float, gpus: tuple[GpuSample, ...] = (), **cpu_args: object) -> Sample:
    return Sample(timestamp=t, cpu=cpu(**cpu_args), memory=memory(), gpus=gpus)  # type: ignore[arg-type]


def test_series_keeps_the_newest_capacity_values_oldest_first() -> None:
    series = Series("x", "%", 3)
    for value in (1.0, 2.0, 3.0, 4.0, 5.0):
        series.append(value)
    assert series.values() == [3.0, 4.0, 5.0]
    assert len(series) == 3
    assert series.latest() == 5.0


def test_newer_gives_only_what_was_appended_since() -> None:
    series = Series("x", "%", 4)
    assert series.newer(0, 10) == (0, [])
    for value in (1.0, 2.0, 3.0):
        series.append(value)
    assert series.newer(0, 10) == (3, [1.0, 2.0, 3.0])
    series.append(None)
    series.append(5.0)
    assert series.newer(3, 10) == (5, [None, 5.0])
    assert series.newer(3, 1) == (5, [5.0])  # at most ``last``
    assert series.newer(5, 10) == (5, [])
    assert series.newer(0, 10) == (5, [2.0, 3.0, None, 5.0])  # no more than the ring holds


def test_series_records_unknown_as_a_gap() -> None:
    series = Series("x", "%", 4)
    series.append(1.0)
    series.append(None)
    series.append(3.0)
    assert series.values() == [1.0, None, 3.0]
    series.append(None)
    assert series.latest() is None


def test_empty_series() -> None:
    series = Series("x", "%", 2)
    assert series.values() == []
    assert series.latest() is None
    assert len(series) == 0


def test_series_rejects_zero_capacity() -> None:
    with pytest.raises(ValueError, match="capacity"):
        Series("x", "%", 0)


@given(
    capacity=st.integers(min_value=1, max_value=50),
    values=st.lists(st.one_of(st.none(), st.floats(allow_nan=False)), max_size=200),
)
def test_series_matches_a_list_tail(capacity: int, values: list[float | None]) -> None:
    series = Series("x", "", capacity)
    for value in values:
        series.append(value)
    assert series.values() == values[-capacity:]
    assert len(series) == min(capacity, len(values))
    assert series.capacity == capacity


def test_series_storage_does_not_grow() -> None:
    series = Series("x", "", 100)
    size_before = series._data.buffer_info()
    for i in range(10_000):
        series.append(float(i))
    assert series._data.buffer_info() == size_before
    assert series.values()[0] == 9_900.0


def test_history_records_cpu_memory_and_cores() -> None:
    history = History(capacity=5)
    for t in range(7):
        history.append(sample(float(t), percent=float(t), cores=(t, 2.0 * t)))
    assert history.cpu_percent.values() == [2.0, 3.0, 4.0, 5.0, 6.0]
    assert len(history.cpu_cores) == 2
    assert history.cpu_cores[1].values() == [4.0, 6.0, 8.0, 10.0, 12.0]
    assert history.timestamps.values() == [2.0, 3.0, 4.0, 5.0, 6.0]
    assert history.cpu_frequency_mhz.latest() == 2500.0
    assert history.cpu_temperature_c.latest() is None
    assert history.load_average_1m.latest() == 0.5
    assert history.load_average_1m.high == 2.0  # two cores
    assert history.memory_used_bytes.high == float(16 << 30)
    assert history.memory_used_bytes.latest() == float(4 << 30)
    assert history.swap_used_bytes.high == float(2 << 30)


def test_fixed_scales_for_percentages() -> None:
    history = History(capacity=2)
    history.append(sample(0.0, gpus=(gpu(),)))
    assert (history.cpu_percent.low, history.cpu_percent.high) == (0.0, 100.0)
    assert all((core.low, core.high) == (0.0, 100.0) for core in history.cpu_cores)
    assert history.gpus[0].utilization_percent.high == 100.0


def test_gpu_scales_follow_the_limits_the_gpu_reports() -> None:
    history = History(capacity=4)
    history.append(sample(0.0, gpus=(gpu(),)))
    one = history.gpus[0]
    assert one.power_watts.high == 700.0
    assert one.temperature_c.high == 87.0
    assert one.sm_clock_mhz.high == 1980.0
    assert one.memory_used_bytes.high == float(80 << 30)
    history.append(sample(1.0, gpus=(gpu(power_limit_watts=450.0),)))
    assert one.power_watts.high == 450.0
    # An unknown limit keeps the last known one rather than switching to auto-scale.
    history.append(sample(2.0, gpus=(gpu(power_limit_watts=NOT_SUPPORTED),)))
    assert one.power_watts.high == 450.0


def test_unknown_stale_and_lost_gpu_readings_are_gaps() -> None:
    history = History(capacity=8)
    history.append(sample(0.0, gpus=(gpu(util=10.0),)))
    history.append(sample(1.0, gpus=(gpu(util=20.0, stale=True),)))
    history.append(sample(2.0, gpus=(gpu(util=30.0, lost=True),)))
    history.append(sample(3.0, gpus=(gpu(util=40.0),)))
    one = history.gpus[0]
    assert one.utilization_percent.values() == [10.0, None, None, 40.0]
    assert one.fan_percent.values() == [None, None, None, None]


def test_history_keeps_gpu_rings_aligned_when_a_slot_is_missing() -> None:
    history = History(capacity=4)
    history.append(sample(0.0, gpus=(gpu(0, 10.0), gpu(1, 11.0))))
    history.append(sample(1.0, gpus=(gpu(0, 20.0),)))
    assert history.gpus[0].utilization_percent.values() == [10.0, 20.0]
    assert history.gpus[1].utilization_percent.values() == [11.0, None]


def test_history_bounds_gpu_slots() -> None:
    history = History(capacity=2, max_gpus=2)
    history.append(sample(0.0, gpus=tuple(gpu(i) for i in range(5))))
    assert len(history.gpus) == 2


def test_total_ring_count_is_fixed_after_the_first_tick() -> None:
    history = History(capacity=16)
    history.append(sample(0.0, gpus=(gpu(0), gpu(1))))
    count = len(history.all_series())
    for t in range(1, 100):
        history.append(sample(float(t), gpus=(gpu(0), gpu(1))))
    assert len(history.all_series()) == count
    assert all(len(s) <= 16 for s in history.all_series())


def test_locked_reads_see_one_tick() -> None:
    history = History(capacity=4)
    history.append(sample(0.0, percent=1.0))
    with history.locked() as held:
        assert held.cpu_percent.values() == [1.0]
        assert held.timestamps.values() == [0.0]


def test_values_can_copy_only_the_newest_readings() -> None:
    series = Series("x", "%", 10)
    for i in range(25):
        series.append(None if i % 7 == 0 else float(i))
    assert series.values(3) == [22.0, 23.0, 24.0]
    assert series.values(4) == [None, 22.0, 23.0, 24.0]  # 21 was unknown: still a gap
    assert series.values(50) == series.values()  # more than held: everything held
    assert series.values(0) == []


# ---- coarse rings: the lowest and highest reading per bucket, in fixed memory ------------------
def test_coarse_rings_keep_the_lowest_and_highest_reading_of_each_bucket() -> None:
    series = Series("x", "%", 8, tiers=((4, 3), (12, 2)))
    for value in (5.0, 99.0, 7.0, None, 1.0, 2.0, 3.0, 4.0, None, None, None, None):
        series.append(value)
    bucket, oldest, lows, highs = series.tier(0)
    assert (bucket, oldest) == (4, 0)
    assert lows[:2] == [5.0, 1.0]
    assert highs[:2] == [99.0, 4.0]  # the one-tick spike of 99 survives; a mean would say 28
    assert math.isnan(lows[2])  # a bucket of unknown readings is a gap, not zero
    assert math.isnan(highs[2])
    assert series.tier(1)[2:] == ([1.0], [99.0])  # twelve ticks: the first coarser bucket


def test_buckets_line_up_with_the_tick_count_for_a_series_that_started_late() -> None:
    series = Series("x", "%", 8, tiers=((4, 3),), start=2)  # a GPU that joined at tick 2
    for value in (10.0, 20.0, 30.0, 40.0, 50.0, 60.0):
        series.append(value)
    # Ticks 2-3 close bucket 0, ticks 4-7 bucket 1: the same ticks as the clock's buckets.
    assert series.tier(0) == (4, 0, [10.0, 30.0], [20.0, 60.0])


@given(
    values=st.lists(st.one_of(st.none(), st.floats(-1e6, 1e6)), min_size=1, max_size=300),
    start=st.integers(0, 30),
)
def test_every_bucket_is_the_min_and_max_of_its_ticks(
    values: list[float | None], start: int
) -> None:
    series = Series("x", "", 5, tiers=((6, 100), (18, 100)), start=start)
    for value in values:
        series.append(value)
    end = start + len(values)
    tiers = [series.tier(level) for level in range(series.levels)]
    # Every bucket the series has closed is kept (100 buckets outlast 300 ticks), oldest first:
    # the bucket numbers held, as ranges (two empty ranges are equal).
    assert [(size, range(oldest, oldest + len(lows))) for size, oldest, lows, _ in tiers] == [
        (size, range(start // size, end // size)) for size in (6, 18)
    ]
    for size, oldest, lows, highs in tiers:
        for number, (low, high) in enumerate(zip(lows, highs, strict=True), oldest):
            ticks = range(max(start, number * size), (number + 1) * size)
            known = [v for t in ticks if (v := values[t - start]) is not None]
            assert (low, high) == (min(known), max(known)) if known else math.isnan(high)


def test_a_week_of_readings_takes_the_memory_of_an_hour_and_keeps_a_spike() -> None:
    series = Series("GPU busy", "%", DEFAULT_CAPACITY)
    after_an_hour = 0
    for tick in range(7 * 24 * 3600):
        series.put_locked(100.0 if tick == 3 * 24 * 3600 else 20.0)  # one spike, mid-week
        if tick == 3600:
            after_an_hour = series.storage()
    assert series.storage() == after_an_hour
    assert series.storage() < 70_000  # bytes: 3,600 readings, a day of minutes, a week of 15
    assert len(series) == 3600
    _, _, _, highs = series.tier(1)
    assert len(highs) == 672  # a week of fifteen-minute buckets
    assert max(highs) == 100.0
    assert highs.count(100.0) == 1


def test_history_storage_is_fixed_from_the_first_tick() -> None:
    history = History()
    history.append(sample(0.0, gpus=(gpu(0), gpu(1))))
    storage = sum(series.storage() for series in history.all_series())
    for t in range(1, 5000):
        history.append(sample(float(t), gpus=(gpu(0), gpu(1))))
    assert sum(series.storage() for series in history.all_series()) == storage
    assert all(len(core) <= CORE_CAPACITY for core in history.cpu_cores)


def test_sampling_time_adds_up_each_ticks_interval() -> None:
    history = History(capacity=10)
    for t, interval in enumerate((1.0, 1.0, 0.5, 0.1, 60.0)):
        history.append(sample(1e9 + t), interval)
    assert history.elapsed.values() == [0.0, 1000.0, 2000.0, 2500.0, 2600.0]
    assert history.now_ms == 62_600.0
    assert history.ticks == 5
    assert history.gpus == []
