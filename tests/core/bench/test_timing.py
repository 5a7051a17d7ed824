"""Statistics and the measurement loop, driven by fake clocks (no timing is asserted)."""

from __future__ import annotations

import itertools

import pytest

from gpu_tui.core.bench.worker import stats, timing
from gpu_tui.core.bench.worker.protocol import Cancelled
from gpu_tui.core.units import format_percent


def test_percentiles_interpolate_linearly() -> None:
    values = [4.0, 1.0, 3.0, 2.0, 5.0]
    assert stats.median(values) == 3.0
    assert stats.percentile(values, 20) == pytest.approx(1.8)
    assert stats.percentile(values, 80) == pytest.approx(4.2)
    assert stats.percentile([7.0], 20) == 7.0
    with pytest.raises(ValueError, match="no values"):
        stats.percentile([], 50)


def test_relative_iqr_and_noise_warnings() -> None:
    assert stats.relative_iqr([1.0]) == 0.0
    assert stats.relative_iqr([1.0, 1.0, 1.0, 1.0]) == 0.0
    assert stats.noise_warning([1.0] * 9 + [1.02]) is None
    noisy = stats.noise_warning([1.0, 1.0, 1.15, 1.15])
    assert noisy is not None
    assert noisy.startswith("noisy")
    very = stats.noise_warning([1.0, 1.0, 2.0, 2.0])
    assert very is not None
    assert very.startswith("very noisy")


@pytest.mark.parametrize("spread", [0.0, 0.1395, 0.5, 12.345])
def test_the_worker_writes_a_spread_as_format_percent_does(spread: float) -> None:
    """The worker runs without gpu-tui, so it keeps its own copy of the rule: the same text."""
    assert stats._percent(spread) == format_percent(spread, 0)


def test_summary_reports_median_spread_and_best() -> None:
    got = stats.summary([3.0, 1.0, 2.0])
    assert got["median_seconds"] == 2.0
    assert got["best_seconds"] == 1.0
    assert got["p20_seconds"] < got["median_seconds"] < got["p80_seconds"]


@pytest.mark.parametrize(
    ("call", "target", "budget", "expected"),
    [
        (1.0, 1e-3, 10.0, 1),  # long calls are timed one by one
        (1e-6, 1e-3, 10.0, 1000),  # short ones in blocks reaching the target
        (1e-6, 1e-3, 1e-3, 333),  # ... but the budget still holds three blocks
        (3e-7, 1e-4, 10.0, 1000),  # a power of ten, rounded up
    ],
)
def test_block_size(call: float, target: float, budget: float, expected: int) -> None:
    assert timing.block_size(call, target, budget) == expected


class FakeBlock:
    """Each call 'takes' the next duration; the loop sees only what it is told."""

    def __init__(self, per_call: list[float]) -> None:
        self.durations = itertools.cycle(per_call)
        self.calls: list[int] = []

    def __call__(self, n: int) -> float:
        self.calls.append(n)
        return sum(next(self.durations) for _ in range(n))


def test_measure_times_cold_call_and_warmup_separately() -> None:
    block = FakeBlock([0.5] + [0.01] * 10_000)
    result = timing.measure(block, budget=0.2, target_block_seconds=0.001)
    assert result.cold_start_seconds == 0.5
    assert result.warmup_calls >= 2
    assert result.warmup_seconds >= timing.WARMUP_MIN_SECONDS
    assert result.median == pytest.approx(0.01)
    assert len(result.samples) >= timing.MIN_REPEATS
    assert 0.5 not in result.samples  # the cold call never enters the statistics


def test_measure_keeps_minimum_repeats_for_calls_longer_than_the_budget() -> None:
    block = FakeBlock([2.0])
    result = timing.measure(block, budget=0.05, target_block_seconds=0.001)
    assert len(result.samples) == timing.MIN_REPEATS
    assert result.warmup_calls == 2
    assert any("raise --budget" in w for w in result.warnings)


def test_measure_stops_early_when_the_spread_is_tight() -> None:
    block = FakeBlock([0.001])
    result = timing.measure(block, budget=10.0, target_block_seconds=0.001)
    assert result.stop_reason == "noise"
    assert sum(result.samples) < 10.0


def test_measure_flags_noise() -> None:
    block = FakeBlock([0.01, 0.01, 0.03, 0.01, 0.04])
    result = timing.measure(block, budget=0.3, target_block_seconds=0.001)
    assert any("noisy" in w for w in result.warnings)


def test_measure_checks_for_cancellation_between_blocks() -> None:
    seen = []

    def check() -> None:
        seen.append(1)
        if len(seen) > 4:
            raise Cancelled

    with pytest.raises(Cancelled):
        timing.measure(FakeBlock([0.01]), budget=100.0, target_block_seconds=0.001, check=check)


def test_warmup_continues_until_call_times_settle() -> None:
    # a clock ramping up: calls get faster, then steady at 0.01 s
    ramp = [0.5, 0.04, 0.03, 0.02, 0.015, 0.012] + [0.01] * 10_000
    result = timing.measure(
        FakeBlock(ramp), budget=2.0, target_block_seconds=0.001, settle_max_seconds=1.0
    )
    assert result.warmup_stable is True
    assert result.warmup_calls >= 9  # through the ramp and three steady calls
    assert result.as_dict()["warmup_stable"] is True
    assert result.cold_start_seconds == 0.5


def test_warmup_settling_is_capped_and_recorded_when_it_never_settles() -> None:
    jitter = [0.5] + [0.01, 0.02] * 10_000
    result = timing.measure(
        FakeBlock(jitter), budget=2.0, target_block_seconds=0.001, settle_max_seconds=0.3
    )
    assert result.warmup_stable is False
    assert result.warmup_seconds - result.cold_start_seconds == pytest.approx(0.3, abs=0.03)


def test_warmup_settling_off_by_default() -> None:
    result = timing.measure(FakeBlock([0.01]), budget=0.2, target_block_seconds=0.001)
    assert result.warmup_stable is None


def test_settled_tolerance() -> None:
    assert timing.settled([1.0, 1.04, 1.049])
    assert not timing.settled([1.0, 1.06, 1.0])
