"""FLOP and byte counts ("Work counted by formula") and the figure each result is shown as."""

from __future__ import annotations

import pytest

from gpu_tui.core.bench import formulas as f


def test_gemm_is_two_mnk() -> None:
    assert f.gemm_flop(2, 3, 4) == 48
    assert f.gemm_flop(8192, 8192, 8192) == 2 * 8192**3


def test_the_classic_linear_is_two_hundred_gigaflop() -> None:
    assert f.linear_flop(1000, 10_000, 10_000) == 2.0e11


def test_mlp_and_transformer_counts() -> None:
    assert f.mlp_flop(4096, 1) == 16 * 4096**2
    assert f.transformer_flop(d=4, seq=2, batch=3) == (24 * 16 + 4 * 2 * 4) * 2 * 3


@pytest.mark.parametrize(("kernel", "words"), [("copy", 2), ("scale", 2), ("add", 3), ("triad", 3)])
def test_stream_counts_reads_plus_writes(kernel: str, words: int) -> None:
    assert f.stream_bytes(kernel, 1000) == words * 1000


@pytest.mark.parametrize(
    ("gen", "lanes", "gbps"), [(3, 16, 15.75), (4, 16, 31.51), (5, 16, 63.02), (2, 16, None)]
)
def test_pcie_per_direction(gen: int, lanes: int, gbps: float | None) -> None:
    got = f.pcie_gbps(gen, lanes)
    assert got == gbps if gbps is None else got == pytest.approx(gbps, abs=0.01)


def record(benchmark: str, device: str = "cpu", **params: int) -> dict[str, object]:
    return {
        "benchmark": benchmark,
        "variant": "copy",
        "device": device,
        "dtype": "fp32",
        "params": params,
    }


def test_gemm_figure_uses_gflops_on_cpu_and_tflops_on_gpu() -> None:
    cpu = f.figure(record("gemm", m=1000, n=1000, k=1000), 0.01)
    assert (cpu.value, cpu.unit, cpu.peak_kind) == (pytest.approx(200.0), "GFLOP/s", "fp32")
    gpu = f.figure(record("gemm", "cuda:0", m=1000, n=1000, k=1000), 0.01)
    assert (gpu.value, gpu.unit) == (pytest.approx(0.2), "TFLOP/s")


def test_bandwidth_transfer_launch_reduction_figures() -> None:
    copy = f.figure(record("bandwidth", array_bytes=10**9), 0.1)
    assert (copy.value, copy.unit, copy.peak_kind) == (pytest.approx(20.0), "GB/s", "memory")
    h2d = f.figure(record("transfer", "cuda:0", bytes=10**9), 0.5)
    assert (h2d.value, h2d.peak_kind) == (pytest.approx(2.0), "pcie")
    graph = f.figure(record("launch", "cuda:0", kernels=100), 1e-4)
    assert graph.value == pytest.approx(1.0)  # µs per kernel
    total = f.figure(record("reduction", n=10_000), 2e-6)
    assert (total.value, total.unit) == (pytest.approx(2.0), "us")
    assert total.throughput == pytest.approx(40.0)  # GB/s of float64 read


def test_model_figures_carry_throughput() -> None:
    mlp = f.figure(record("mlp", d=1024, batch=64), 0.01)
    assert mlp.throughput == pytest.approx(6400.0)
    assert mlp.throughput_unit == "samples/s"
    layer = f.figure(record("transformer", d=512, seq=256, batch=4, heads=8), 0.1)
    assert layer.throughput == pytest.approx(10240.0)


def test_a_zero_time_is_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        f.figure(record("gemm", m=1, n=1, k=1), 0.0)
