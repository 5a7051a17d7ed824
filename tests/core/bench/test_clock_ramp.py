"""Warm-up waits for the SM clock to stop rising, read from a fake NVML clock.

The readings follow the recorded H200 (tests/fakes/nvml_readings/h200.json): 345 MHz idle,
1980 MHz under load.
Real NVML readings through torch.cuda.clock_rate are unverified here (no GPU on this machine).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from gpu_tui.core.bench.worker import timing
from gpu_tui.core.bench.worker.clock_ramp import READ_EVERY_SECONDS, ClockRamp


class FakeClock:
    """Monotonic time that moves only when a fake GPU call runs."""

    def __init__(self) -> None:
        self.now = 0.0


def ramp(readings: Iterator[float], clock: FakeClock) -> ClockRamp:
    return ClockRamp(lambda: next(readings), now=lambda: clock.now)


def test_ramped_once_three_readings_agree_and_never_faster_than_the_nvml_period() -> None:
    clock = FakeClock()
    tracker = ramp(iter([345.0, 1200.0, 1950.0, 1980.0, 1980.0]), clock)
    verdicts = []
    for _ in range(5):
        verdicts.append(tracker.ramped())
        assert tracker.ramped() == verdicts[-1]  # asked again at once: no new reading
        clock.now += READ_EVERY_SECONDS * 1.001  # just past the period, float-safe
    assert verdicts == [False, False, False, False, True]
    assert tracker.record() == {"warmup_sm_clock_mhz": 1980.0, "warmup_clock_unreadable": None}


def test_an_unreadable_clock_does_not_hold_the_warm_up() -> None:
    def no_nvml() -> float:
        raise ModuleNotFoundError("nvidia-ml-py does not seem to be installed\nsecond line")

    tracker = ClockRamp(no_nvml)
    assert tracker.ramped() is None
    record = tracker.record()
    assert record["warmup_sm_clock_mhz"] is None
    assert record["warmup_clock_unreadable"] == (
        "ModuleNotFoundError: nvidia-ml-py does not seem to be installed"
    )


def test_measure_keeps_warming_while_the_clock_rises_though_call_times_look_steady() -> None:
    clock = FakeClock()
    readings = itertools.chain([345.0, 900.0, 1500.0, 1900.0], itertools.repeat(1980.0))
    tracker = ramp(readings, clock)

    def block(n: int) -> float:  # steady 1 ms calls: call times alone would stop at once
        clock.now += n * 0.001
        return n * 0.001

    result = timing.measure(
        block,
        budget=0.5,
        target_block_seconds=0.001,
        settle_max_seconds=1.0,
        ramped=tracker.ramped,
    )
    assert result.warmup_stable is True
    assert tracker.readings[-3:] == [1980.0, 1980.0, 1980.0]
    assert result.warmup_seconds >= 6 * READ_EVERY_SECONDS  # seven readings, 50 ms apart


def test_a_clock_that_never_settles_is_capped_and_recorded() -> None:
    clock = FakeClock()
    tracker = ramp(itertools.cycle([1000.0, 1500.0]), clock)

    def block(n: int) -> float:
        clock.now += n * 0.001
        return n * 0.001

    result = timing.measure(
        block, budget=0.5, target_block_seconds=0.001, settle_max_seconds=0.3, ramped=tracker.ramped
    )
    assert result.warmup_stable is False
