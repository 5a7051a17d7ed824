"""The kitchen's "in real life" lines, computed: the same closed forms on sourced hardware figures.

The scenarios' words about real hardware are built here from ``figures``, so a number on screen
cannot drift from the figure and the formula behind it; the tests recompute each one by hand.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from gpu_tui.core.kitchen import figures
from gpu_tui.core.kitchen.model import ring_share
from gpu_tui.core.units import format_time_rough

VECTOR_ADD_BYTES = 12
"""``c = a + b`` in fp32 reads 4 + 4 bytes and writes 4 per element (one FLOP)."""
EXAMPLE_PARAMETERS = 10**9
"""The all-reduce example: a 1B-parameter model, small enough for plain data parallelism."""
EXAMPLE_GPUS = 2  # the slow-hallway scenario's two kitchens


# -- compute: the headline's comparison ---------------------------------------------------------


def fp32_flops(lanes: int, hz: Fraction) -> Fraction:
    """Peak FP32 FLOP/s: lanes × 2 (an FMA is two FLOPs) × clock."""
    return 2 * lanes * hz


def gpu_over_cpu(gpu: figures.Gpu, cpu: figures.Cpu, cores: int, hz: Fraction) -> Fraction:
    """How many times ``cores`` CPU cores at ``hz`` the GPU's FP32 peak is."""
    return fp32_flops(gpu.fp32_lanes, gpu.clock_hz) / fp32_flops(cores * cpu.fp32_fma_lanes, hz)


def one_core_ratio(
    gpu: figures.Gpu = figures.H100_SXM, cpu: figures.Cpu = figures.EPYC_9654
) -> Fraction:
    """The chef-vs-brigade headline in real figures: one core, at its top boost clock."""
    return gpu_over_cpu(gpu, cpu, 1, cpu.boost_hz)


def whole_cpu_ratios(
    gpu: figures.Gpu = figures.H100_SXM, cpu: figures.Cpu = figures.EPYC_9654
) -> tuple[Fraction, Fraction]:
    """Every core of the socket: (all at the top boost clock, all at the base clock).

    The first flatters the CPU (a full socket does not hold its one-core boost), the second is
    the clock it guarantees; the truth under an all-core vector load lies between them.
    """
    return (
        gpu_over_cpu(gpu, cpu, cpu.cores, cpu.boost_hz),
        gpu_over_cpu(gpu, cpu, cpu.cores, cpu.base_hz),
    )


# -- memory: where a vector add's crossover lies, caches included -------------------------------


@dataclass(frozen=True)
class Tier:
    """Data up to ``capacity_bytes`` (``None``: any amount) streams at ``bytes_per_s``."""

    capacity_bytes: int | None
    bytes_per_s: Fraction


def cpu_tiers(cpu: figures.Cpu = figures.EPYC_9654) -> tuple[Tier, ...]:
    """The whole socket's streaming rate by working-set size: each cache, then DRAM.

    A cache's rate is every core reading its share at the per-core rate, at the base clock. A
    working set that fits a level streams from it; a larger one comes from DRAM.
    """
    caches = tuple(
        Tier(c.capacity_bytes, cpu.cores * c.bytes_per_core_cycle * cpu.base_hz) for c in cpu.caches
    )
    return (*caches, Tier(None, cpu.dram_bytes_per_s))


def dram_only(cpu: figures.Cpu = figures.EPYC_9654) -> tuple[Tier, ...]:
    """The same CPU as if it had no cache: every working set streams from DRAM."""
    return (Tier(None, cpu.dram_bytes_per_s),)


def stream_seconds(nbytes: int, tiers: Sequence[Tier]) -> Fraction:
    """Time for the CPU to stream ``nbytes`` from the smallest tier that holds them."""
    for tier in tiers:
        if tier.capacity_bytes is None or nbytes <= tier.capacity_bytes:
            return nbytes / tier.bytes_per_s
    raise ValueError("the last tier must hold any amount (capacity None)")


def gpu_seconds_per_byte(
    gpu: figures.Gpu = figures.H100_SXM, *, end_to_end: bool = False
) -> Fraction:
    """A vector add's GPU cost per byte: its memory, plus the PCIe trip if the data starts on
    the host (inputs across, result back: every byte crosses once)."""
    cost = 1 / gpu.memory_bytes_per_s
    return cost + 1 / gpu.host_link_bytes_per_s if end_to_end else cost


def crossover_elements(
    tiers: Sequence[Tier],
    gpu_per_byte: Fraction,
    launch: Fraction,
    bytes_per_element: int = VECTOR_ADD_BYTES,
) -> int | None:
    """Fewest elements n with ``launch + n·b·g < cpu(n·b)``: the GPU's first win, or ``None``.

    Exact and closed-form, tier by tier: inside a tier of rate R the CPU takes n·b/R, so the GPU
    wins once n·b·(1/R − g) > launch, i.e. from ⌊launch / (b·(1/R − g))⌋ + 1; a tier no slower
    than the GPU (1/R ≤ g) never loses. The first tier whose range holds such an n answers.
    The CPU pays no start-up here (waking its threads costs microseconds too): leaving that out
    favours the GPU, so the crossover is, if anything, later still.
    """
    low = 1
    for tier in tiers:
        high = None if tier.capacity_bytes is None else tier.capacity_bytes // bytes_per_element
        if high is None or high >= low:
            gain = bytes_per_element * (1 / tier.bytes_per_s - gpu_per_byte)
            if gain > 0:
                n = max(low, math.floor(launch / gain) + 1)
                if high is None or n <= high:
                    return n
            if high is None:
                return None
            low = high + 1
    return None


def vector_add_crossovers() -> tuple[int | None, int | None, int | None]:
    """(caches counted, DRAM only, data starting on the host) for an H100 against an EPYC 9654."""
    launch, gpu = figures.NULL_KERNEL_LAUNCH_SECONDS, gpu_seconds_per_byte()
    return (
        crossover_elements(cpu_tiers(), gpu, launch),
        crossover_elements(dram_only(), gpu, launch),
        crossover_elements(cpu_tiers(), gpu_seconds_per_byte(end_to_end=True), launch),
    )


# -- the hallway: what a data-parallel step sends -------------------------------------------------


def gradient_bytes(parameters: int, bytes_per_gradient: int) -> int:
    """The all-reduce payload S of one step: every gradient once."""
    return parameters * bytes_per_gradient


def ring_bytes_per_gpu(payload: int, gpus: int) -> Fraction:
    """What each GPU sends (and receives) in a ring all-reduce: 2(n−1)/n × S (nccl-tests)."""
    return ring_share(gpus) * payload


def ring_transfer_seconds(payload: int, gpus: int, link_bytes_per_s: Fraction) -> Fraction:
    """The bandwidth term of the all-reduce: 2(n−1)/n × S / B."""
    return ring_bytes_per_gpu(payload, gpus) / link_bytes_per_s


# -- the words ------------------------------------------------------------------------------------


def _times(value: Fraction) -> str:
    """565× / 5.9× — whole numbers once big, two figures below."""
    return f"{float(value):,.0f}×" if value >= 100 else f"{float(value):.2g}×"


def onions_comparison() -> str:
    """The onions' headline is one CPU core against a GPU; this is what a whole socket changes."""
    one = one_core_ratio()
    boost, base = whole_cpu_ratios()
    gpu, cpu = figures.H100_SXM, figures.EPYC_9654
    return (
        f"Real FP32 peaks: {gpu.name.split()[0]} = {_times(one)} one {cpu.name} core, only "
        f"{float(boost):.2g}–{_times(base)} all {cpu.cores} cores"
    )


def onions_real_life() -> str:
    """Where a real GPU starts beating a real server CPU at the onions' kind of work."""
    cached, dram, from_host = vector_add_crossovers()
    host = "never" if from_host is None else f"from {from_host:,}"
    gpu, cpu = figures.H100_SXM, figures.EPYC_9654
    l3 = cpu.caches[-1].capacity_bytes // figures.MIB
    launch = figures.NULL_KERNEL_LAUNCH_SECONDS * 10**6
    return (
        f"An {gpu.name.split()[0]} with the data on it "
        f"({float(gpu.memory_bytes_per_s / figures.TERA):g} TB/s, {launch} µs launch) beats a "
        f"{cpu.cores}-core {cpu.name} at a vector add only once the arrays outgrow its {l3} MiB "
        f"L3: from {cached:,} elements ({dram:,} with no cache); from host memory, {host}."
    )


def complex_real_life() -> str:
    """Why step-by-step work stays on the CPU: the launch it would pay per step."""
    launch = figures.NULL_KERNEL_LAUNCH_SECONDS * 10**6
    return (
        f"A bare kernel launch costs ~{launch} µs (more via PyTorch; CUDA graphs amortise it) "
        "and a GPU lane is slower than a CPU core: serial, branchy code stays on the CPU; "
        "offloading the rest gains only what Amdahl allows."
    )


def pantry_real_life() -> str:
    """A memory-bound job gains the memory ratio, not the lane count."""
    gpu, cpu = figures.H100_SXM, figures.EPYC_9654
    ratio = gpu.memory_bytes_per_s / cpu.dram_bytes_per_s
    return (
        f"A vector add moves {VECTOR_ADD_BYTES} bytes per FLOP, so it runs at memory speed: "
        f"{gpu.name} HBM {float(gpu.memory_bytes_per_s / figures.TERA):g} TB/s against {cpu.name} "
        f"DDR5 {float(cpu.dram_bytes_per_s / figures.TERA):.2g} TB/s, {_times(ratio)}, not the "
        f"{gpu.fp32_lanes:,} lanes' compute speed; kernel fusion cuts the trips."
    )


def hallway_real_life() -> str:
    """The bytes a data-parallel step sends, for the case named, and what they cost per link."""
    payload = gradient_bytes(EXAMPLE_PARAMETERS, figures.DDP_AMP_GRADIENT_BYTES)
    sent = ring_bytes_per_gpu(payload, EXAMPLE_GPUS)
    nvlink = ring_transfer_seconds(payload, EXAMPLE_GPUS, figures.H100_SXM.peer_link_bytes_per_s)
    ethernet = ring_transfer_seconds(payload, EXAMPLE_GPUS, figures.ETHERNET_100G_BYTES_PER_S)
    return (
        f"A data-parallel step all-reduces every gradient, {figures.DDP_AMP_GRADIENT_BYTES} B each "
        "with PyTorch DDP + AMP (fp32 weights); a ring sends 2(K-1)/K of it per GPU: "
        f"{EXAMPLE_PARAMETERS // 10**9}B parameters on {EXAMPLE_GPUS} GPUs send "
        f"{float(sent / figures.GIGA):g} GB each, {format_time_rough(nvlink)} over NVLink, "
        f"{format_time_rough(ethernet)} over 100 GbE."
    )
