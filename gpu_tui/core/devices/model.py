"""Plain frozen dataclasses that describe the hardware found on this machine."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.topology import Topology


@dataclass(frozen=True)
class CpuPeak:
    """Theoretical fp32 peak of the CPU, with the arithmetic that produced it."""

    gflops: Maybe[float]
    cores: int
    clock_mhz: Maybe[float]
    flops_per_cycle: Maybe[int]
    basis: str
    """Human-readable derivation, e.g. ``2 cores × 3.50 GHz × 32 FLOP/cycle (AVX-512 on Zen 4)``."""


@dataclass(frozen=True)
class CpuInfo:
    """What the CPU is and what it can do for AI work."""

    model: str
    vendor: Maybe[str]
    architecture: str
    microarchitecture: Maybe[str]
    physical_cores: Maybe[int]
    logical_cores: int
    sockets: Maybe[int]
    max_mhz: Maybe[float]
    current_mhz: Maybe[float]
    sustained_mhz: Maybe[float]
    """The clock the cores run at with every one of them busy, measured; the peak's clock."""
    cache_bytes: dict[str, int]
    """Per level, e.g. ``{"L1d": 65536, "L2": 2097152, "L3": 33554432}`` (total across cores)."""
    simd: tuple[str, ...]
    """AI-relevant SIMD features present, in a fixed order (``avx2``, ``fma``, ``avx512f`` …)."""
    numa_nodes: Maybe[int]
    peak: CpuPeak


@dataclass(frozen=True)
class MemoryInfo:
    """System memory, in bytes."""

    total_bytes: int
    available_bytes: int
    swap_total_bytes: int
    swap_used_bytes: int


@dataclass(frozen=True)
class PeakClock:
    """Which SM clock one compute peak was computed at, and on whose word.

    ``clock_basis`` is ``"rated"`` (the vendor's rated clock for this SKU, from gpu-tui's table),
    ``"nvml_max"`` (the maximum clock NVML reports: the SKU's rating is not in the table, so the
    peak is an upper bound) or ``"published"`` (the vendor's own figure, used as is because the
    part's firmware caps the rate below what SMs × clock would give).
    """

    clock_basis: str
    clock_mhz: float | None
    """The clock the peak was computed at; ``None`` for a published figure."""
    upper_bound: bool
    """True when the real peak may be lower (computed at NVML's maximum clock)."""
    rated_sku: str | None = None
    """The SKU of the table row that applied, e.g. ``H100 PCIe``."""
    source_url: str | None = None
    source_title: str | None = None
    source_primary: bool | None = None
    """False when only a secondary page states the figure (shown as weakly sourced)."""
    clock_note: str = ""
    """How the clock follows from the source, or why no rated clock applies."""


@dataclass(frozen=True)
class Peaks:
    """Theoretical dense peaks of an accelerator (TFLOP/s, fp32 accumulate) and memory bandwidth.

    Every figure is computed from the device's own counts and clocks; ``basis`` says how and
    ``clocks`` says which clock each compute peak used. Sparse (2:4) figures never appear here.
    """

    fp32_tflops: Maybe[float]
    tf32_tflops: Maybe[float]
    fp16_tflops: Maybe[float]
    bf16_tflops: Maybe[float]
    fp8_tflops: Maybe[float]
    memory_bandwidth_gb_per_second: Maybe[float]
    basis: dict[str, str] = field(default_factory=dict)
    clocks: dict[str, PeakClock] = field(default_factory=dict)
    """Keyed like ``basis`` (``"bf16_tflops"`` …), for the compute peaks that are known."""


@dataclass(frozen=True)
class Datasheet:
    """Vendor figures for a known product (dense), to show beside the computed peaks."""

    product: str
    fp32_tflops: float | None
    bf16_tflops: float | None
    fp8_tflops: float | None
    memory_bandwidth_gb_per_second: float | None
    source: str


@dataclass(frozen=True)
class NvLink:
    """NVLink links of one GPU."""

    active_links: int
    max_links: int


@dataclass(frozen=True)
class MigDevice:
    """One MIG instance carved out of a GPU (e.g. ``3g.40gb``)."""

    name: str
    uuid: Maybe[str]
    memory_total_bytes: Maybe[int]


@dataclass(frozen=True)
class Accelerator:
    """One GPU or other accelerator, whichever backend found it.

    Fields a backend cannot read are ``Unknown(reason)``; nothing is filled with a guess.
    """

    index: int
    name: str
    vendor: str
    backend: str
    """``nvml``, ``torch-cuda``, ``torch-rocm``, ``mps``, ``xpu`` or ``simulated``."""
    simulated: bool
    uuid: Maybe[str]
    pci_bus_id: Maybe[str]
    architecture: Maybe[str]
    compute_capability: Maybe[str]
    sm_count: Maybe[int]
    cuda_cores: Maybe[int]
    memory_total_bytes: Maybe[int]
    memory_bus_width_bits: Maybe[int]
    max_sm_clock_mhz: Maybe[int]
    max_memory_clock_mhz: Maybe[int]
    power_limit_default_watts: Maybe[float]
    power_limit_watts: Maybe[float]
    pcie_generation_current: Maybe[int]
    pcie_generation_max: Maybe[int]
    pcie_width_current: Maybe[int]
    pcie_width_max: Maybe[int]
    ecc_enabled: Maybe[bool]
    mig_enabled: Maybe[bool]
    persistence_mode: Maybe[bool]
    compute_mode: Maybe[str]
    temperature_slowdown_c: Maybe[int]
    temperature_shutdown_c: Maybe[int]
    temperature_max_operating_c: Maybe[int]
    vbios_version: Maybe[str]
    nvlink: Maybe[NvLink]
    peaks: Peaks
    datasheet: Datasheet | None
    lost: bool = False
    """True when the device stopped answering (``GpuIsLost``); the rest of the inventory stays."""
    mig_devices: tuple[MigDevice, ...] = ()
    """MIG instances when MIG mode is on (empty otherwise, or when they could not be listed)."""


@dataclass(frozen=True)
class BackendStatus:
    """Whether one discovery backend worked, and if not, what is wrong and how to fix it."""

    name: str
    available: bool
    reason: str | None = None
    fix: str | None = None
    details: dict[str, str] = field(default_factory=dict)
    """Backend-wide facts, e.g. ``{"driver_version": "570.86.15"}``."""


@dataclass(frozen=True)
class Inventory:
    """Everything discovered at start: CPU, memory, accelerators and how each backend fared."""

    cpu: CpuInfo
    memory: MemoryInfo
    accelerators: tuple[Accelerator, ...]
    backends: dict[str, BackendStatus]
    topology: Topology | None = None
    """How two GPUs or more are connected (NVLink, PCIe, NUMA), when NVML could say."""


def unknown_peaks(reason: str) -> Peaks:
    """Peaks for a device whose architecture we cannot place."""
    missing = Unknown(reason)
    return Peaks(missing, missing, missing, missing, missing, missing)
