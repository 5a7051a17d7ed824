"""One tick of live readings (CPU, memory, each GPU): made by the sampler, shown by Monitor."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_tui.core.fields import Maybe


@dataclass(frozen=True)
class CpuSample:
    """CPU load at one instant."""

    percent: float
    per_core_percent: tuple[float, ...]
    frequency_mhz: Maybe[float]
    load_average: Maybe[tuple[float, float, float]]
    temperature_c: Maybe[float]


@dataclass(frozen=True)
class MemorySample:
    """System memory and swap at one instant, in bytes."""

    total_bytes: int
    used_bytes: int
    available_bytes: int
    swap_total_bytes: int
    swap_used_bytes: int


@dataclass(frozen=True)
class GpuProcess:
    """A process using a GPU. ``command`` and ``user`` are unknown when we may not see them."""

    pid: int
    kind: str
    """``compute`` or ``graphics``."""
    used_memory_bytes: Maybe[int]
    sm_percent: Maybe[float]
    user: Maybe[str]
    command: Maybe[str]


@dataclass(frozen=True)
class GpuSample:
    """One GPU's live readings. ``lost`` means the GPU stopped answering (shown as lost)."""

    index: int
    utilization_percent: Maybe[float]
    memory_utilization_percent: Maybe[float]
    memory_used_bytes: Maybe[int]
    memory_total_bytes: Maybe[int]
    temperature_c: Maybe[float]
    temperature_slowdown_c: Maybe[float]
    power_watts: Maybe[float]
    power_limit_watts: Maybe[float]
    sm_clock_mhz: Maybe[float]
    sm_clock_max_mhz: Maybe[float]
    memory_clock_mhz: Maybe[float]
    memory_clock_max_mhz: Maybe[float]
    fan_percent: Maybe[float]
    pcie_rx_bytes_per_second: Maybe[float]
    pcie_tx_bytes_per_second: Maybe[float]
    encoder_percent: Maybe[float]
    decoder_percent: Maybe[float]
    ecc_errors_uncorrected: Maybe[int]
    throttle_reasons: Maybe[tuple[str, ...]]
    """Plain words, e.g. ``("power cap", "thermal slowdown")``; empty when running free."""
    processes: Maybe[tuple[GpuProcess, ...]]
    lost: bool = False
    stale: bool = False
    """True when this reading was not refreshed in time (a hung driver call); values are old."""
    simulated: bool = False


@dataclass(frozen=True)
class Sample:
    """Everything read in one tick."""

    timestamp: float
    cpu: CpuSample
    memory: MemorySample
    gpus: tuple[GpuSample, ...] = field(default_factory=tuple)
