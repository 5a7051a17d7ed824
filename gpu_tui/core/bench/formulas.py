"""Work counted explicitly: FLOP and bytes per call, and the figure each result shows.

**Work counted by formula** — a rate is the work one call does, counted here from its
parameters (2·m·n·k FLOP for a GEMM, the arrays STREAM reads and writes, ...), divided by
the median time per call, so every figure can be checked by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

GB = 1e9  # decimal, as bandwidth figures are quoted
STREAM_WORDS = {"copy": 2, "scale": 2, "add": 3, "triad": 3}
"""Arrays touched per element (reads + writes), as STREAM counts them."""


def gemm_flop(m: int, n: int, k: int) -> float:
    return 2.0 * m * n * k


def linear_flop(batch: int, in_features: int, out_features: int) -> float:
    return 2.0 * batch * in_features * out_features


def mlp_flop(d: int, batch: int) -> float:
    """Linear(d,4d) + Linear(4d,d): 2·d·4d multiply-adds twice = 16·d² FLOP per sample."""
    return 16.0 * d * d * batch


def transformer_flop(d: int, seq: int, batch: int) -> float:
    """Per token 24·d² (12·d² weights × 2) + 4·S·d (QKᵀ and AV); cf. Kaplan et al. 2020."""
    return (24.0 * d * d + 4.0 * seq * d) * seq * batch


def stream_bytes(kernel: str, array_bytes: int) -> float:
    return float(STREAM_WORDS[kernel] * array_bytes)


def pcie_gbps(generation: int, lanes: int) -> float | None:
    """Theoretical one-direction PCIe bandwidth: lanes × GT/s × 128/130 / 8 (Gen3+)."""
    rate = {3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}.get(generation)
    return None if rate is None else lanes * rate * 128 / 130 / 8


@dataclass(frozen=True)
class Figure:
    """The number a result is shown as, and what peak it is compared with."""

    value: float
    unit: str
    peak_kind: str | None
    """``fp32``/``tf32``/``fp16``/``bf16``/``fp8`` compute, ``memory``, ``pcie``, or None."""
    throughput: float | None = None
    throughput_unit: str | None = None


def flop_rate(flop: float, seconds: float, device: str) -> tuple[float, str]:
    """GFLOP/s on a CPU, TFLOP/s on an accelerator: the scale people quote for each."""
    if device == "cpu":
        return flop / seconds / 1e9, "GFLOP/s"
    return flop / seconds / 1e12, "TFLOP/s"


def figure(record: dict[str, Any], seconds: float) -> Figure:
    """The figure for one worker result (``benchmark``, ``variant``, ``device``, ``dtype``,
    ``params``) whose median time per call is ``seconds``."""
    name, variant, p = record["benchmark"], record.get("variant"), record.get("params") or {}
    device, dtype = record["device"], record.get("dtype")
    if seconds <= 0:
        raise ValueError(f"a time per call must be positive, got {seconds}")
    if name == "gemm":
        return Figure(*flop_rate(gemm_flop(p["m"], p["n"], p["k"]), seconds, device), dtype)
    if name == "linear":
        flop = linear_flop(p["batch"], p["in_features"], p["out_features"])
        return Figure(*flop_rate(flop, seconds, device), dtype, p["batch"] / seconds, "samples/s")
    if name == "mlp":
        flop = mlp_flop(p["d"], p["batch"])
        return Figure(*flop_rate(flop, seconds, device), dtype, p["batch"] / seconds, "samples/s")
    if name == "transformer":
        flop = transformer_flop(p["d"], p["seq"], p["batch"])
        tokens = p["seq"] * p["batch"] / seconds
        return Figure(*flop_rate(flop, seconds, device), dtype, tokens, "tokens/s")
    if name == "bandwidth":
        return Figure(stream_bytes(str(variant), p["array_bytes"]) / seconds / GB, "GB/s", "memory")
    if name == "transfer":
        return Figure(p["bytes"] / seconds / GB, "GB/s", "pcie")
    if name == "launch":
        return Figure(seconds / p.get("kernels", 1) * 1e6, "us", None)
    if name == "reduction":
        return Figure(seconds * 1e6, "us", None, p["n"] * 8 / seconds / GB, "GB/s")
    if name == "crossover":
        return Figure(
            seconds * 1e6, "us", None, gemm_flop(p["n"], p["n"], p["n"]) / seconds / 1e9, "GFLOP/s"
        )
    if name == "comm":  # bus bandwidth as nccl-tests defines it; algbw as the throughput
        return comm_figure(str(variant), p, seconds)
    if name == "copies":  # GPU-to-GPU and host↔GPU copies: GB/s, or µs for the 4-byte ones
        return copy_figure(str(variant), p, seconds)
    return Figure(seconds, "s", None)


def comm_figure(operation: str, params: dict[str, Any], seconds: float) -> Figure:
    """A collective's busbw (compared with the link's peak) and algbw, in GB/s."""
    from gpu_tui.core.comm.bandwidth import algbw_gbps, busbw_gbps

    size, ranks = params["bytes"], params["ranks"]
    return Figure(
        busbw_gbps(operation, size, seconds, ranks),
        "GB/s",
        "link",
        algbw_gbps(size, seconds),
        "GB/s algbw",
    )


def copy_figure(path: str, params: dict[str, Any], seconds: float) -> Figure:
    """A bandwidth copy's GB/s (compared with its link); a latency copy's µs per copy."""
    size = float(params["bytes"])
    gbps = size / seconds / GB
    if params.get("role") == "latency":
        return Figure(seconds * 1e6, "us", None, gbps, "GB/s")
    return Figure(gbps, "GB/s", peak_kind(path, str(params["src"]), str(params["dst"])))


def peak_kind(path: str, src: str, dst: str) -> str:
    """The peak a copy is compared with: one per path and pair (``PeakTable`` key)."""
    return f"link {path} {src}>{dst}"
