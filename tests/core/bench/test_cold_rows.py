"""Cold-cache GEMM rows ("Hot or cold caches, said which"): flush sizing, the plan, flushes
outside the events, labels."""

from __future__ import annotations

import time
from typing import Any

import pytest

from gpu_tui.core.bench import report, suites
from gpu_tui.core.bench.peak import PeakTable
from gpu_tui.core.bench.results import from_worker
from gpu_tui.core.bench.worker import timing
from gpu_tui.core.bench.worker.compute import flush_bytes
from gpu_tui.ui.bench import plot_data
from tests.fakes.scripted_worker import gemm_result

MIB = 1 << 20


@pytest.mark.parametrize(
    ("l2", "arch", "expected"),
    [
        (None, None, 256_000_000),  # unknown cache: do_bench's 256 MB
        (50 * MIB, None, 256_000_000),  # H100: 2 x 50 MiB < 256 MB
        (60 * MIB, None, 256_000_000),  # H200
        (200 * MIB, None, 400 * MIB),  # a bigger L2 sets the size
        (4 * MIB, "gfx942:sramecc+:xnack-", 512 * MIB),  # MI300X: 2 x its 256 MB Infinity Cache
        (4 * MIB, "gfx90a", 256_000_000),  # MI250X has no Infinity Cache
    ],
)
def test_the_flush_buffer_is_the_larger_of_256_mb_and_twice_the_last_cache(
    l2: int | None, arch: str | None, expected: int
) -> None:
    assert flush_bytes(l2, arch) == expected


def test_quick_pairs_one_cold_gpu_gemm_with_its_hot_row_and_leaves_the_cpu_alone() -> None:
    gemm = next(s for s in suites.build_plan("quick")["benchmarks"] if s["name"] == "gemm")
    assert gemm["gpu"]["cold"] == {"bf16": [4096]}
    assert 4096 in gemm["gpu"]["dtypes"]["bf16"]  # the hot twin to compare with
    assert "cold" not in gemm["cpu"]
    hot_points = sum(len(sizes) for sizes in gemm["gpu"]["dtypes"].values())
    assert suites.measurement_points(gemm, "gpu") == hot_points + 1
    assert suites.measurement_points(gemm, "cpu") == 6 + 4  # 6 torch rows, 4 numpy fp32 rows


class FakeEvent:
    def __init__(self, log: list[str], name: str) -> None:
        self.log, self.name = log, name

    def record(self) -> None:
        self.log.append(f"record {self.name}")

    def synchronize(self) -> None:
        self.log.append(f"sync {self.name}")

    def elapsed_time(self, end: FakeEvent) -> float:
        return 2.0  # ms


class FakeCuda:
    def __init__(self, log: list[str]) -> None:
        self.names = iter(("start", "end"))
        self.log = log

    def Event(self, enable_timing: bool) -> FakeEvent:
        return FakeEvent(self.log, next(self.names))


class FakeTorch:
    def __init__(self, log: list[str]) -> None:
        self.cuda = FakeCuda(log)


class Flush:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def zero_(self) -> None:
        self.log.append("flush")


def test_each_cold_call_is_flushed_first_outside_its_events() -> None:
    log: list[str] = []
    block = timing.cold_event_block(FakeTorch(log), lambda: log.append("gemm"), Flush(log))
    assert block(2) == pytest.approx(0.004)  # two calls of 2 ms each, flushes not counted
    call = ["flush", "record start", "gemm", "record end", "sync end"]
    assert log == call + call


def test_measure_reports_when_and_how_long_the_timed_part_ran() -> None:
    before = time.monotonic()
    measured = timing.measure(lambda n: 0.001 * n, budget=0.01, target_block_seconds=0.001)
    assert before <= measured.timed_end <= time.monotonic()
    assert measured.as_dict()["timed_wall_seconds"] == measured.timed_wall_seconds >= 0


def results() -> list[Any]:
    rows = [
        gemm_result("cuda:0", 1024, 1e-5),
        gemm_result("cuda:0", 4096, 2e-4),
        gemm_result("cuda:0", 4096, 4e-4, variant="mm-cold"),
    ]
    return [from_worker(row, PeakTable({})) for row in rows]


def test_cold_rows_are_labelled_and_never_merged_with_their_hot_twin() -> None:
    hot_1024, hot, cold = results()
    assert (hot.cache, cold.cache) == ("hot", "cold")
    assert hot.key != cold.key
    spec = plot_data.build("gemm", [hot_1024, hot, cold])
    lines = {s.label: dict(zip(s.xs, s.ys, strict=True)) for s in spec.series}
    assert set(lines) == {"cuda:0 bf16", "cuda:0 bf16 cold"}
    assert lines["cuda:0 bf16"][4096] == pytest.approx(hot.value * 1e3)  # GFLOP/s axis
    assert lines["cuda:0 bf16 cold"][4096] == pytest.approx(cold.value * 1e3)
    assert "gemm mm-cold" in report.table([hot, cold])
