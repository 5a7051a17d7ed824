"""The sampler: real psutil readings, scheduling on a fake clock, and GPUs that fail or hang."""

from __future__ import annotations

import dataclasses
import gc
import os
import sys
import threading
import time
import tracemalloc
from types import SimpleNamespace
from typing import Any

import psutil
import pytest

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.monitor.host_reader import SLOW_SECONDS, LiveHostReader
from gpu_tui.core.monitor.sampler import FunctionSource, Sampler, step_interval
from gpu_tui.core.monitor.samples import CpuSample, GpuSample, MemorySample, Sample
from tests.fakes.samples import gpu_sample
from tests.polling import wait_for


def cpu(percent: float) -> CpuSample:
    return CpuSample(percent, (percent, percent), 2500.0, (0.5, 0.4, 0.3), Unknown("no sensors"))


def memory() -> MemorySample:
    return MemorySample(16 << 30, 4 << 30, 12 << 30, 0, 0)


def gpu(index: int, util: float = 50.0) -> GpuSample:
    return gpu_sample(index, utilization_percent=util, throttle_reasons=("idle",))


class FakeClock:
    """Monotonic time that only moves when the sampler sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class FakeHost:
    def __init__(self) -> None:
        self.reads = 0
        self.fail_on: set[int] = set()

    def read(self) -> tuple[CpuSample, MemorySample]:
        self.reads += 1
        if self.reads in self.fail_on:
            raise OSError("/proc/stat vanished")
        return cpu(float(self.reads % 100)), memory()


class CountingSource:
    """GPUs whose utilisation is the number of reads so far; can be told to fail or hang."""

    def __init__(self, count: int = 1) -> None:
        self.device_count = count
        self.reads = [0] * count
        self.raise_on: dict[int, Exception] = {}
        self.lost: set[int] = set()
        self.block: dict[int, threading.Event] = {}

    def sample(self, index: int) -> GpuSample:
        self.reads[index] += 1
        if index in self.block:
            self.block[index].wait(30)
        if index in self.raise_on:
            raise self.raise_on[index]
        if index in self.lost:
            return dataclasses.replace(
                gpu(index), lost=True, utilization_percent=Unknown("GPU is lost")
            )
        return gpu(index, util=float(self.reads[index]))


def fake_sampler(clock: FakeClock | None = None, **kwargs: object) -> Sampler:
    clock = clock or FakeClock()
    options: dict[str, object] = {
        "host": FakeHost(),
        "clock": clock,
        "wall_clock": clock,
        "sleep": clock.sleep,
    }
    options.update(kwargs)
    return Sampler(**options)  # type: ignore[arg-type]


# --- real psutil on this machine --------------------------------------------------------------


def test_psutil_readings_match_this_machine() -> None:
    sampler = Sampler(interval=0.1)
    first = sampler.tick()
    assert len(first.cpu.per_core_percent) == os.cpu_count()
    assert first.memory.total_bytes == psutil.virtual_memory().total
    assert first.memory.swap_total_bytes == psutil.swap_memory().total
    assert 0 < first.memory.used_bytes < first.memory.total_bytes
    assert 0.0 <= first.cpu.percent <= 100.0
    assert all(0.0 <= core <= 100.0 for core in first.cpu.per_core_percent)
    load = first.cpu.load_average
    assert not isinstance(load, Unknown)
    assert len(load) == 3
    assert isinstance(first.cpu.temperature_c, (float, Unknown))
    assert first.gpus == ()
    assert len(sampler.history.cpu_cores) == os.cpu_count()


def test_cpu_percent_sees_this_process_working() -> None:
    reader = LiveHostReader()
    end = time.process_time() + 0.3  # 30 jiffies of our own CPU time, however busy the box is
    while time.process_time() < end:
        pass
    sample, _ = reader.read()
    assert sample.percent > 0.0
    assert max(sample.per_core_percent) > 0.0


def test_frequency_is_a_number_or_says_why_not() -> None:
    frequency = LiveHostReader().read_cpu().frequency_mhz
    assert isinstance(frequency, Unknown) or frequency > 0


# --- scheduling on a fake clock ------------------------------------------------------------


def test_ticks_follow_the_interval_after_a_short_first_wait() -> None:
    clock = FakeClock()
    sampler = fake_sampler(clock, interval=1.0)
    stamps: list[float] = []
    sampler.on_tick = lambda s: stamps.append(s.timestamp)
    sampler.run(max_ticks=4)
    assert [round(t - 1000.0, 6) for t in stamps] == [0.2, 1.2, 2.2, 3.2]
    assert sampler.ticks == 4


def test_one_callback_per_tick_with_the_recorded_sample() -> None:
    sampler = fake_sampler(interval=0.5, gpu_sources=[CountingSource(2)])
    seen: list[Sample] = []
    sampler.on_tick = seen.append
    sampler.run(max_ticks=3)
    assert len(seen) == 3
    assert seen[-1] is sampler.latest
    assert [g.utilization_percent for g in seen[-1].gpus] == [3.0, 3.0]
    assert sampler.history.gpus[1].utilization_percent.values() == [1.0, 2.0, 3.0]
    sampler.stop()


def test_set_interval_applies_from_the_next_tick() -> None:
    clock = FakeClock()
    sampler = fake_sampler(clock, interval=1.0)
    stamps: list[float] = []

    def on_tick(sample: Sample) -> None:
        stamps.append(sample.timestamp - 1000.0)
        if len(stamps) == 2:
            sampler.set_interval(5.0)

    sampler.on_tick = on_tick
    sampler.run(max_ticks=4)
    assert [round(t, 6) for t in stamps] == [0.2, 1.2, 6.2, 11.2]
    assert sampler.interval == 5.0


def test_each_tick_lasts_its_interval_on_the_history_time_axis() -> None:
    """Graphs place readings in sampling time: a tick ticked by hand (a test, a benchmark)
    takes up its interval on the axis as a timed one does."""
    sampler = fake_sampler(FakeClock(), interval=1.0)
    sampler.tick()
    sampler.tick()
    sampler.set_interval(0.5)
    sampler.tick()
    assert sampler.history.elapsed.values() == [0.0, 1000.0, 2000.0]
    assert sampler.history.now_ms == 2500.0


@pytest.mark.parametrize("seconds", [0.0, 0.05, 60.5, -1.0])
def test_set_interval_rejects_out_of_range(seconds: float) -> None:
    sampler = fake_sampler()
    with pytest.raises(ValueError, match=r"between 0\.1 and 60"):
        sampler.set_interval(seconds)
    with pytest.raises(ValueError, match=r"between 0\.1 and 60"):
        fake_sampler(interval=seconds)


@pytest.mark.parametrize(
    ("current", "faster", "expected"),
    [
        (1.0, True, 0.5),
        (1.0, False, 2.0),
        (0.1, True, 0.1),
        (60.0, False, 60.0),
        (0.3, True, 0.2),
        (0.3, False, 0.5),
    ],
)
def test_step_interval(current: float, faster: bool, expected: float) -> None:
    assert step_interval(current, faster) == expected


def test_pause_stops_ticks_and_resume_ticks_at_once() -> None:
    clock = FakeClock()
    sampler = fake_sampler(clock, interval=1.0)
    stamps: list[float] = []
    paused_sleeps = 0

    def on_tick(sample: Sample) -> None:
        stamps.append(round(sample.timestamp - 1000.0, 6))
        if len(stamps) == 2:
            sampler.pause()

    def sleep(seconds: float) -> None:
        nonlocal paused_sleeps
        clock.sleep(seconds)
        if sampler.paused:
            paused_sleeps += 1
            if paused_sleeps == 3:
                sampler.resume()

    sampler.on_tick = on_tick
    sampler._sleep = sleep
    sampler.run(max_ticks=4)
    # Paused after the tick at 1.2 for three 1 s sleeps; resumed at 4.2 and ticked at once.
    assert stamps == [0.2, 1.2, 4.2, 5.2]
    assert not sampler.paused


def test_falling_behind_skips_missed_ticks_instead_of_bursting() -> None:
    clock = FakeClock()
    host = FakeHost()
    slow_read = host.read

    def read() -> tuple[CpuSample, MemorySample]:
        if host.reads == 1:
            clock.now += 3.5  # the second read stalls for three and a half intervals
        return slow_read()

    host.read = read  # type: ignore[method-assign]
    sampler = fake_sampler(clock, host=host, interval=1.0)
    stamps: list[float] = []
    sampler.on_tick = lambda s: stamps.append(round(s.timestamp - 1000.0, 6))
    sampler.run(max_ticks=4)
    assert stamps == [0.2, 4.7, 5.7, 6.7]


def test_errors_in_a_tick_or_callback_are_reported_and_sampling_goes_on() -> None:
    host = FakeHost()
    host.fail_on = {2}
    errors: list[BaseException] = []
    sampler = fake_sampler(host=host, on_error=errors.append)
    calls = 0

    def on_tick(sample: Sample) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("the UI is gone")

    sampler.on_tick = on_tick
    sampler.run(max_ticks=4)
    assert [type(e) for e in errors] == [RuntimeError, OSError]
    assert sampler.ticks == 3  # the failed read recorded nothing
    assert len(sampler.history.cpu_percent) == 3


def test_start_and_stop_on_a_real_thread() -> None:
    ticked = threading.Event()
    seen: list[Sample] = []

    def on_tick(sample: Sample) -> None:
        seen.append(sample)
        if len(seen) == 2:
            ticked.set()

    sampler = Sampler(host=FakeHost(), interval=0.1, on_tick=on_tick)
    sampler.start()
    assert ticked.wait(10)
    sampler.stop()
    assert not sampler.running
    with pytest.raises(RuntimeError, match="already started"):
        sampler.start()


# --- GPUs that fail, vanish or hang ----------------------------------------------------------


def test_a_gpu_that_raises_is_unknown_with_the_reason_and_the_others_update() -> None:
    source = CountingSource(2)
    source.raise_on[0] = RuntimeError("NVML_ERROR_UNKNOWN")
    sampler = fake_sampler(gpu_sources=[source])
    sampler.run(max_ticks=3)
    broken, fine = sampler.latest.gpus  # type: ignore[union-attr]
    assert isinstance(broken.utilization_percent, Unknown)
    assert "NVML_ERROR_UNKNOWN" in broken.utilization_percent.reason
    assert broken.index == 0
    assert fine.utilization_percent == 3.0
    sampler.stop()


def test_a_lost_gpu_is_shown_lost_and_the_others_keep_updating() -> None:
    source = CountingSource(3)
    sampler = fake_sampler(gpu_sources=[source])
    sampler.on_tick = lambda s: source.lost.add(1) if sampler.ticks == 2 else None
    sampler.run(max_ticks=4)
    gpus = sampler.latest.gpus  # type: ignore[union-attr]
    assert [g.lost for g in gpus] == [False, True, False]
    assert [g.utilization_percent for g in (gpus[0], gpus[2])] == [4.0, 4.0]
    assert sampler.history.gpus[1].utilization_percent.values() == [1.0, 2.0, None, None]
    sampler.stop()


def test_a_hanging_gpu_goes_stale_without_stalling_the_others() -> None:
    source = CountingSource(2)
    # Generous: only the first tick of the hang waits this long; later ticks do not wait.
    sampler = fake_sampler(gpu_sources=[source], gpu_deadline=0.5)
    assert sampler.tick().gpus[0].utilization_percent == 1.0
    release = threading.Event()
    source.block[0] = release
    try:
        stale = [sampler.tick()]
        threads_while_hung = threading.active_count()
        stale += [sampler.tick() for _ in range(19)]
        assert all(s.gpus[0].stale for s in stale)
        # The stale reading repeats the last good values; the other GPU moves on.
        assert {s.gpus[0].utilization_percent for s in stale} == {1.0}
        assert [s.gpus[1].utilization_percent for s in stale] == [float(n) for n in range(2, 22)]
        assert not any(s.gpus[1].stale for s in stale)
        # One call stuck in the driver and one thread for it, not one per tick.
        assert source.reads[0] == 2
        assert sampler.hung_devices == 1
        assert threading.active_count() == threads_while_hung
        assert sampler.history.gpus[0].utilization_percent.values()[1:] == [None] * 20
    finally:
        del source.block[0]
        release.set()
    # the stuck call returns on its own thread; how long it takes is not the test
    wait_for(lambda: not sampler.hung_devices, "the stuck call to return", every=0.05)
    recovered = sampler.tick().gpus[0]
    assert not recovered.stale
    # Either the late answer of the stuck call or this tick's own: both are real readings.
    assert recovered.utilization_percent in (2.0, 3.0)
    sampler.stop()


def test_a_gpu_that_never_answered_is_stale_and_unknown() -> None:
    source = CountingSource(1)
    release = threading.Event()
    source.block[0] = release
    sampler = fake_sampler(gpu_sources=[source], gpu_deadline=0.02)
    try:
        first = sampler.tick().gpus[0]
    finally:
        release.set()
    assert first.stale
    assert isinstance(first.power_watts, Unknown)
    assert "has not answered" in first.power_watts.reason
    sampler.stop()


def test_inline_sources_come_after_real_gpus() -> None:
    simulated = FunctionSource(1, lambda i: dataclasses.replace(gpu(7), simulated=True))
    sampler = fake_sampler(gpu_sources=[CountingSource(2)], inline_sources=[simulated])
    assert sampler.gpu_count == 3
    gpus = sampler.tick().gpus
    assert [g.simulated for g in gpus] == [False, False, True]
    assert gpus[2].index == 7
    sampler.stop()


# --- soak: 40,000 ticks (11 hours at the default refresh) in seconds, with flat memory ------


def test_40000_ticks_keep_buffers_and_memory_bounded() -> None:
    clock = FakeClock()
    worker_gpu, inline_gpu = CountingSource(1), CountingSource(1)
    late_ticks = 0

    def count_late(sample: Sample) -> None:
        nonlocal late_ticks
        late_ticks += sample.gpus[0].stale

    sampler = fake_sampler(
        clock,
        interval=0.1,
        capacity=300,
        gpu_sources=[worker_gpu],
        inline_sources=[inline_gpu],
        on_tick=count_late,
    )
    sampler.run(max_ticks=1_000)  # warm up: every ring allocated, every thread started
    gc.collect()
    blocks_before = sys.getallocatedblocks()
    sampler.run(max_ticks=29_000)
    gc.collect()
    blocks_after = sys.getallocatedblocks()
    # tracemalloc slows every allocation several-fold, so it watches the last 10,000 ticks.
    tracemalloc.start()
    try:
        traced_before, _ = tracemalloc.get_traced_memory()
        sampler.run(max_ticks=10_000)
        gc.collect()
        traced_after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    sampler.stop()
    assert sampler.ticks == 40_000
    assert inline_gpu.reads == [40_000]
    # The worker GPU's deadline is real time (50 ms here): on a loaded machine an answer can come
    # a tick late, and the device is not asked again until it has answered. Each late tick
    # skips exactly one request, never adds one.
    assert late_ticks < 400  # under 1 %: the worker path is what was exercised
    assert 40_000 - late_ticks <= worker_gpu.reads[0] <= 40_000
    # Each run starts one interval (0.1 s, shorter than the first-tick wait) before its tick.
    assert clock.now - 1000.0 == pytest.approx(40_000 * 0.1)
    assert all(len(series) == 300 for series in sampler.history.all_series())
    assert sampler.history.gpus[1].utilization_percent.latest() == 40_000.0
    # 29,000 ticks left at most a few hundred objects behind (none per tick) ...
    assert blocks_after - blocks_before < 500
    # ... and the last 10,000 kept under 16 KiB (about one tick's worth of readings).
    assert traced_after - traced_before < 16 * 1024


def test_clock_and_swap_are_read_again_only_every_few_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeClock()
    reads: list[str] = []

    def cpu_freq() -> Any:
        reads.append("clock")
        return SimpleNamespace(current=2000.0 + len(reads))

    def swap_memory() -> Any:
        reads.append("swap")
        return SimpleNamespace(total=8 << 30, used=len(reads) << 20)

    monkeypatch.setattr(psutil, "cpu_freq", cpu_freq)
    monkeypatch.setattr(psutil, "swap_memory", swap_memory)
    reader = LiveHostReader(clock=clock, use_procfs=False)  # swap from psutil, as off Linux
    cpu, memory = reader.read()
    clock.sleep(SLOW_SECONDS - 0.5)
    later_cpu, later_memory = reader.read()
    assert reads == ["clock", "swap"]  # kept, not read again
    assert later_cpu.frequency_mhz == cpu.frequency_mhz == 2001.0
    assert later_memory.swap_used_bytes == memory.swap_used_bytes == 2 << 20
    clock.sleep(0.5)
    cpu, memory = reader.read()
    assert reads == ["clock", "swap", "clock", "swap"]
    assert cpu.frequency_mhz == 2003.0
    assert memory.swap_used_bytes == 4 << 20
