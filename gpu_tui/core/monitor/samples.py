"""One tick of live readings (CPU, memory, each GPU): made by the sampler, shown by Monitor."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.monitor.host_processes import Parent


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


NOT_READ = Unknown("not read by this source")


@dataclass(frozen=True)
class GpuProcess:
    """A process using a GPU: what the driver says of it (its GPU memory, its share of the
    SMs' time) joined with what the host says (user, command line, CPU, resident memory, start
    time). Each is unknown, with a reason, when we may not see it."""

    pid: int
    kind: str
    """``compute``, ``graphics`` or ``compute+graphics``."""
    used_memory_bytes: Maybe[int]
    sm_percent: Maybe[float]
    """The share of the sample period in which one of its kernels ran on the SMs (NVML)."""
    user: Maybe[str]
    command: Maybe[str]
    """The whole command line, arguments joined by spaces."""
    cpu_percent: Maybe[float] = NOT_READ
    """Host CPU time since the last reading over the wall time (100 = one core busy)."""
    host_memory_bytes: Maybe[int] = NOT_READ
    """Resident set size on the host."""
    started: Maybe[float] = NOT_READ
    """When the process started, in seconds since the epoch (the elapsed time is from it)."""
    parents: tuple[Parent, ...] = ()
    """Its ancestors on the host below init, outermost first (the Monitor's tree view)."""


@dataclass(frozen=True)
class MigSample:
    """One MIG instance of a GPU, read through its own handle: a MIG-enabled GPU's memory and
    process calls do not see inside its instances (and in a container may be refused)."""

    name: Maybe[str]
    """What the driver calls it, e.g. ``NVIDIA A100 80GB PCIe MIG 3g.40gb``."""
    gpu_instance_id: Maybe[int]
    memory_used_bytes: Maybe[int]
    memory_total_bytes: Maybe[int]
    processes: Maybe[tuple[GpuProcess, ...]]

    @property
    def profile(self) -> str:
        """The instance's profile, e.g. ``3g.40gb`` (its name's last word)."""
        return self.name.rsplit(" ", 1)[-1] if isinstance(self.name, str) else "?"


@dataclass(frozen=True)
class RemappedRows:
    """HBM rows the GPU replaced with spares (A100 and newer): counts since manufacture, a remap
    that waits for the next GPU reset, and whether a remap failed (the GPU needs service)."""

    correctable: int
    uncorrectable: int
    pending: bool
    failed: bool


@dataclass(frozen=True)
class Activity:
    """What GPU-Util hides, over the last tick (NVML's GPM, Hopper and newer), each 0 to 100 %.

    GPU-Util says a kernel ran at some point of the sample period; these say how much of the
    chip it kept busy: a GPU "100 % busy" may have its tensor cores 12 % active."""

    graphics_engine_percent: Maybe[float]
    """Time any compute or graphics work was active (DCGM's GR_ENGINE_ACTIVE)."""
    sm_active_percent: Maybe[float]
    """The share of SMs busy."""
    sm_occupancy_percent: Maybe[float]
    """Resident warps over the most the SMs can hold."""
    tensor_percent: Maybe[float]
    """Time the tensor cores were busy (any precision)."""
    dram_percent: Maybe[float]
    """Memory bandwidth used over the GPU's most."""
    fp64_percent: Maybe[float]
    fp32_percent: Maybe[float]
    fp16_percent: Maybe[float]
    """Non-tensor pipes' busy time."""


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
    max_sm_clock_mhz: Maybe[float]
    memory_clock_mhz: Maybe[float]
    max_memory_clock_mhz: Maybe[float]
    fan_percent: Maybe[float]
    pcie_rx_bytes_per_second: Maybe[float]
    pcie_tx_bytes_per_second: Maybe[float]
    encoder_percent: Maybe[float]
    decoder_percent: Maybe[float]
    ecc_errors_uncorrected: Maybe[int]
    throttle_reasons: Maybe[tuple[str, ...]]
    """Plain words, e.g. ``("power cap", "software thermal slowdown")``; empty when running free."""
    processes: Maybe[tuple[GpuProcess, ...]]
    memory_reserved_bytes: Maybe[int] = NOT_READ
    """What the driver keeps for itself, outside ``memory_used_bytes`` (nvidia-smi's
    *Reserved*)."""
    lost: bool = False
    not_in_job: bool = False
    """NVML counts this GPU but this process may not open it (a Slurm cgroup, a container):
    nothing is read, and it is not lost."""
    stale: bool = False
    """True when this reading was not refreshed in time (a hung driver call); values are old."""
    simulated: bool = False
    mig_instances: tuple[MigSample, ...] = ()
    """Each MIG instance's memory and processes (none when MIG is off)."""
    memory_temperature_c: Maybe[float] = NOT_READ
    """HBM temperature (data-centre GPUs; GDDR boards report none)."""
    energy_millijoules: Maybe[int] = NOT_READ
    """Energy used since the driver loaded (Volta and newer)."""
    ecc_errors_corrected: Maybe[int] = NOT_READ
    """Single-bit errors ECC corrected since the driver loaded."""
    pcie_replay_count: Maybe[int] = NOT_READ
    """PCIe packets the link had to send again since the driver loaded: a bad riser or slot."""
    remapped_rows: Maybe[RemappedRows] = NOT_READ
    last_xid: Maybe[int] = NOT_READ
    """The last XID (driver error code) seen since gpu-tui started watching; 0 for none."""
    nvlink_rx_bytes_per_second: Maybe[float] = NOT_READ
    nvlink_tx_bytes_per_second: Maybe[float] = NOT_READ
    """NVLink data over every link, since the previous reading."""
    activity: Maybe[Activity] = NOT_READ


@dataclass(frozen=True)
class Sample:
    """Everything read in one tick."""

    timestamp: float
    cpu: CpuSample
    memory: MemorySample
    gpus: tuple[GpuSample, ...] = field(default_factory=tuple)
