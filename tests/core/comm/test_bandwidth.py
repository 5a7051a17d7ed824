"""Bus and algorithm bandwidth against hand-computed cases (nccl-tests' definitions)."""

from __future__ import annotations

import pytest

from gpu_tui.core.bench.formulas import figure
from gpu_tui.core.bench.peak import PeakTable
from gpu_tui.core.bench.results import from_worker
from gpu_tui.core.comm.bandwidth import (
    OPERATIONS,
    algbw_gbps,
    busbw_factor,
    busbw_gbps,
    elements,
)


@pytest.mark.parametrize(
    ("operation", "ranks", "factor"),
    [
        ("all_reduce", 2, 1.0),  # 2·1/2
        ("all_reduce", 4, 1.5),  # 2·3/4
        ("all_reduce", 8, 1.75),  # 2·7/8
        ("all_gather", 4, 0.75),
        ("reduce_scatter", 8, 0.875),
        ("all_to_all", 2, 0.5),
        ("broadcast", 8, 1.0),
        ("send_recv", 8, 1.0),
        ("all_reduce", 1, 0.0),
    ],
)
def test_factors(operation: str, ranks: int, factor: float) -> None:
    assert busbw_factor(operation, ranks) == pytest.approx(factor)


def test_every_operation_has_a_factor() -> None:
    assert all(busbw_factor(op, 4) > 0 for op in OPERATIONS)


def test_hand_computed_all_reduce() -> None:
    # 1 GB in 10 ms on 8 ranks: algbw 100 GB/s, busbw 100 × 2·7/8 = 175 GB/s
    assert algbw_gbps(1e9, 0.01) == pytest.approx(100.0)
    assert busbw_gbps("all_reduce", 1e9, 0.01, 8) == pytest.approx(175.0)


def test_hand_computed_all_gather() -> None:
    # 64 MiB (the whole gathered array) in 2 ms on 4 ranks: 33.554 GB/s algbw, × 3/4
    size = 64 * 2**20
    assert algbw_gbps(size, 0.002) == pytest.approx(33.554432)
    assert busbw_gbps("all_gather", size, 0.002, 4) == pytest.approx(25.165824)


def test_the_result_figure_is_busbw_with_algbw_beside_it() -> None:
    record = {
        "benchmark": "comm",
        "variant": "all_reduce",
        "device": "cpu",
        "dtype": "fp32",
        "params": {"bytes": 16 * 2**20, "ranks": 2},
    }
    shown = figure(record, 0.016)
    # a plain Gloo all-reduce: 16 MiB in 16 ms on 2 ranks ≈ 1.05 GB/s
    assert shown.value == pytest.approx(1.048576)
    assert shown.unit == "GB/s"
    assert shown.throughput == pytest.approx(1.048576)
    assert shown.peak_kind == "link"


def test_elements_split_evenly() -> None:
    assert elements("all_gather", 8, 4, 4) == 4  # at least one element per rank
    assert elements("all_to_all", 1000, 3, 4) == 249  # a multiple of the ranks
    assert elements("all_reduce", 8, 4, 4) == 2
    assert elements("broadcast", 1, 2, 4) == 1


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown operation"):
        busbw_factor("reduce", 2)
    with pytest.raises(ValueError, match="positive"):
        algbw_gbps(8, 0.0)
    with pytest.raises(ValueError, match="at least one rank"):
        busbw_factor("all_reduce", 0)


def test_a_collective_s_result_carries_both_bandwidths_in_bytes_per_second() -> None:
    """What a script reads from --json: nccl-tests' two figures, each under its own name."""
    message = {
        "benchmark": "comm",
        "variant": "all_reduce",
        "device": "cpu",
        "dtype": "fp32",
        "params": {"bytes": 1_000_000_000, "ranks": 8},
        "timing": {"median_seconds": 0.01, "p20_seconds": 0.01, "p80_seconds": 0.01, "repeats": 5},
    }
    result = from_worker(message, PeakTable({}))
    assert result.algorithm_bandwidth_bytes_per_second == pytest.approx(100e9)
    assert result.bus_bandwidth_bytes_per_second == pytest.approx(175e9)  # × 2·7/8
    assert result.value == pytest.approx(175.0)  # the same busbw, in GB/s
    gemm = from_worker(
        {**message, "benchmark": "gemm", "variant": "mm", "params": {"m": 8, "n": 8, "k": 8}},
        PeakTable({}),
    )
    assert gemm.bus_bandwidth_bytes_per_second is None
    assert gemm.algorithm_bandwidth_bytes_per_second is None
