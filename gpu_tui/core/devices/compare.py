"""This machine's devices beside well-known AI accelerators, metric by metric (catalog figures)."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_tui.core.devices.catalog import CATALOG, CatalogEntry
from gpu_tui.core.devices.model import Accelerator, CpuInfo
from gpu_tui.core.units import gigabyte_symbol, gigabytes

# Chosen to span the field: last generation, today's workhorses, the newest, AMD, a desk card.
REFERENCE_PRODUCTS = (
    "NVIDIA B200 (HGX)",
    "NVIDIA H200 SXM",
    "NVIDIA H100 SXM",
    "AMD Instinct MI300X",
    "NVIDIA A100 80GB SXM",
    "NVIDIA RTX 4090",
    "NVIDIA L4",
)


@dataclass(frozen=True)
class Bar:
    """One device's value on one metric; ``this`` marks the device being compared."""

    label: str
    value: float | None
    this: bool = False


@dataclass(frozen=True)
class Comparison:
    """One metric across devices, largest first."""

    metric: str
    unit: str
    bars: tuple[Bar, ...]


def _references() -> list[CatalogEntry]:
    by_name = {entry.name: entry for entry in CATALOG}
    return [by_name[name] for name in REFERENCE_PRODUCTS if name in by_name]


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def _ranked(metric: str, unit: str, this: Bar, others: list[Bar]) -> Comparison:
    bars = sorted([this, *others], key=lambda bar: -(bar.value or 0.0))
    return Comparison(metric, unit, tuple(bars))


def compare_accelerator(gpu: Accelerator) -> tuple[Comparison, ...]:
    """Dense BF16 (and FP8 where this device has it), memory bandwidth and memory size: this
    device against the reference products. FP8 leaves out the products that have none."""
    refs = [entry for entry in _references() if entry.name != getattr(gpu.datasheet, "product", "")]
    label = f"▶ GPU {gpu.index} " + ("SIMULATED" if gpu.simulated else "(this one)")
    memory = _number(gpu.memory_total_bytes)
    fp8 = _number(gpu.peaks.fp8_tflops)
    fp8_ranked = (
        _ranked(
            "Dense FP8",
            "TFLOP/s",
            Bar(label, fp8, this=True),
            [Bar(e.name, e.fp8_tflops) for e in refs if e.fp8_tflops is not None],
        ),
    )
    return (
        _ranked(
            "Dense BF16",
            "TFLOP/s",
            Bar(label, _number(gpu.peaks.bf16_tflops), this=True),
            [Bar(e.name, e.bf16_tflops) for e in refs],
        ),
        *(fp8_ranked if fp8 is not None else ()),
        _ranked(
            "Memory bandwidth",
            "TB/s",
            Bar(label, _tb(gpu.peaks.memory_bandwidth_gb_per_second), this=True),
            [Bar(e.name, e.bandwidth_tbps) for e in refs],
        ),
        _ranked(
            "Memory",
            gigabyte_symbol(),
            Bar(label, gigabytes(memory) if memory is not None else None, this=True),
            [Bar(e.name, e.memory_shown()) for e in refs],
        ),
    )


def compare_cpu(cpu: CpuInfo) -> tuple[Comparison, ...]:
    """The CPU's fp32 peak against the GPUs' fp32 and dense BF16 — the chef against brigades."""
    refs = _references()
    gflops = _number(cpu.peak.gflops)
    this = Bar("▶ this CPU", gflops / 1000 if gflops is not None else None, this=True)
    return (
        _ranked("FP32 peak", "TFLOP/s", this, [Bar(e.name, e.fp32_tflops) for e in refs]),
        _ranked(
            "Dense BF16 (GPUs) vs FP32 (this CPU)",
            "TFLOP/s",
            this,
            [Bar(e.name, e.bf16_tflops) for e in refs],
        ),
    )


def _tb(gbps: object) -> float | None:
    value = _number(gbps)
    return value / 1000 if value is not None else None
