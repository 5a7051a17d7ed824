"""Will it fit: weights and KV cache against device memory, devices needed, the decode ceiling.

Units: every size is counted in bytes and shown in the size unit (``gpu_tui.core.units``: GiB
by default, GB with ``--size-unit decimal``). A capacity keeps its own unit where the app says how
it was read: a published "80 GB" is 80 GiB (``published_memory_bytes``), and a driver's reading
is quoted in the MiB it reports.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Protocol

from gpu_tui.core.devices.cpu_names import short_cpu_name
from gpu_tui.core.devices.fields import value_or_none
from gpu_tui.core.devices.model import Accelerator, Inventory
from gpu_tui.core.devices.sources import Source
from gpu_tui.core.errors import UsageError
from gpu_tui.core.guide.shapes import ModelShape, ShapeChoice, check_params, choose_shape
from gpu_tui.core.limits import Limit
from gpu_tui.core.units import format_gigabytes, format_percent, gigabyte_meaning, size_unit

# Bytes per parameter (and per cached K/V element). int4 packs two values per byte; the
# per-group scales that real int4 formats add (a few %) are left out.
DTYPE_BYTES: dict[str, float] = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int4": 0.5}

GIB = 2**30
"""What a memory maker's "GB" is (see ``published_memory_bytes``)."""

DEFAULT_CONTEXT = 4096
DEFAULT_BATCH = 1
MAX_CONTEXT = 10_000_000
MAX_BATCH = 100_000
# Context 0 is allowed: "do the weights alone fit?" is a real question. At the far corner
# (100T parameters in fp32, 10M tokens × 100,000 sequences) the total is about 1e18 bytes:
# far from any float limit, and still exact enough to count devices.
CONTEXT = Limit("context", 0, MAX_CONTEXT, "tokens", whole=True)
BATCH = Limit("batch", 1, MAX_BATCH, "sequences", whole=True)

_INFERENCE = "https://jax-ml.github.io/scaling-book/inference/"
_BOOK = "How to Scale Your Model (jax-ml/scaling-book), All About Transformer Inference"
SOURCE_WEIGHTS = Source(
    _INFERENCE,
    "we get 8.5e9 + 4.2e9 + 0.3e9 = 13e9 total parameters ... During inference, we store one "
    "copy of our parameters, let's say in bfloat16. That uses 26GB",
    _BOOK,
)
SOURCE_KV = Source(
    _INFERENCE,
    "KV cache size = 2 · bytes per float · H · K · L · T, where H is the dimension of each head, "
    "K is the number of KV heads, L is the number of layers",
    _BOOK,
)
SOURCE_DECODE = Source(
    _INFERENCE + "#theoretical-estimates-for-llm-latency-and-throughput",
    "Theoretical Min Step Time = (Batch Size × KV Cache Size + Parameter Size) / "
    "Total Memory Bandwidth",
    f"{_BOOK}: theoretical estimates for LLM latency and throughput",
)
SOURCE_FLOPS = Source(
    _INFERENCE + "#theoretical-estimates-for-llm-latency-and-throughput",
    "Theoretical Step Time (General) = Batch Size × KV Cache Size / Total Memory Bandwidth + "
    "max(2 × Batch Size × Parameter Count / Total FLOPs/s, Parameter Size / Total Memory "
    "Bandwidth)",
    f"{_BOOK}: theoretical estimates for LLM latency and throughput",
)
SOURCE_MOE = Source(
    "https://jax-ml.github.io/scaling-book/transformers/",
    "an MoE is just a normal dense model with E MLP blocks per layer, instead of just one. "
    "Each token activates k of these experts",
    "How to Scale Your Model (jax-ml/scaling-book), All the Transformer Math You Need to Know",
)
SOURCE_MEMORY_UNIT = Source(
    "https://www.jedec.org/standards-documents/dictionary/terms/"
    "giga-g-prefix-units-semiconductor-storage-capacity",
    "giga (G) (as a prefix to units of semiconductor storage capacity): A multiplier equal to "
    "1 073 741 824 (2^30 or K^3)",
    "JEDEC Dictionary: giga (G)",
)
SOURCE_DRIVER_MEMORY = Source(
    "https://docs.nvidia.com/deploy/nvml-api/structs.html",
    "nvmlMemory_t: total — Total physical device memory (in bytes)",
    "NVML API Reference: nvmlMemory_t",
)


def units_note() -> str:
    """What the sizes are in (the unit shown), and how a published capacity reads in it."""
    if size_unit() == "decimal":
        return (
            "Sizes are in GB = 10⁹ bytes. Memory makers' GB are binary (JEDEC: 2³⁰ bytes), so a "
            'published "80 GB" of HBM or GDDR is 80 GiB = 85.9 GB; this machine\'s devices show '
            "the bytes their driver reports."
        )
    return (
        f'Sizes are in {gigabyte_meaning()}. Memory makers\' "GB" are binary too (JEDEC), so a '
        'published "80 GB" of HBM or GDDR reads 80.0 GiB here; this machine\'s devices show the '
        "bytes their driver reports."
    )


CAPACITY_NOTE = (
    "Nothing is reserved for activations, the CUDA context or fragmentation: treat a fit "
    "within a few % as too tight."
)
DECODE_NOTE = (
    "decode ≤ devices × bandwidth ÷ bytes read per step (the weights read + every sequence's "
    "KV cache at the full context), per sequence, ideal tensor parallelism; communication "
    "makes it lower."
)
MOE_NOTE = (
    "MoE: all experts stay in memory; a step reads the active parameters plus, at most, the "
    "experts the other sequences were routed to (batch × active experts, at most all of "
    "them) — exact for batch 1 and once every expert is read, a little high in between, "
    "which makes the ceiling a little low there."
)


class CatalogRow(Protocol):
    """The fields of a catalog entry this module reads
    (``gpu_tui.core.devices.catalog.CatalogEntry``)."""

    @property
    def name(self) -> str: ...
    @property
    def memory_gib(self) -> float | None: ...
    @property
    def bandwidth_tbps(self) -> float | None: ...
    @property
    def source(self) -> str: ...


@dataclass(frozen=True)
class Target:
    """A device a model could run on: its capacity and bandwidth, and where they come from."""

    name: str
    memory_bytes: float | None
    bandwidth_bytes_per_second: float | None
    source: str
    local: bool = False
    """True for a device found on this machine (the pane highlights it)."""
    memory_basis: str = ""
    """How ``memory_bytes`` was read, e.g. ``published "80 GB" = 80 GiB``."""
    ram: bool = False
    """True for this machine's system memory (a CPU can run a model too)."""


@dataclass(frozen=True)
class Placement:
    """How a model sits on one kind of device."""

    target: Target
    devices_needed: int | None
    """Smallest count whose summed memory holds the total; ``None`` when capacity is unknown."""
    decode_tokens_per_second_max: float | None
    """devices × bandwidth ÷ bytes read per step: per sequence, a ceiling."""
    fraction_of_one: float | None
    """Total ÷ one device's memory: 1.003 says "just too big", which a count alone hides."""

    @property
    def fits_on_one(self) -> bool:
        """True when a single device holds weights and KV cache."""
        return self.devices_needed == 1


@dataclass(frozen=True)
class FitResult:
    """The memory and decode arithmetic for one model, and where it fits."""

    params: float
    dtype: str
    kv_dtype: str
    context: int
    batch: int
    weight_bytes: float
    """All parameters: every expert of an MoE is held in memory."""
    params_read_per_step: float
    """Parameters a decode step reads: all of a dense model; an MoE's active ones plus the
    experts the rest of the batch touches (``MOE_NOTE``)."""
    experts_read: int
    """Routed experts read per MoE layer and step (0 for a dense model)."""
    kv_cache_bytes: float
    """Every sequence's cache at the full context."""
    kv_bytes_per_token: float
    """Cache for one token of one sequence (a sliding-window layer's share while within it)."""
    shape: ShapeChoice
    placements: tuple[Placement, ...]

    @property
    def total_bytes(self) -> float:
        """Weights plus KV cache (activations and framework overhead not included)."""
        return self.weight_bytes + self.kv_cache_bytes

    @property
    def active_params(self) -> float:
        """Parameters one token passes through (all of them for a dense model)."""
        shape = self.shape.shape
        return shape.active if shape.moe else self.params

    @property
    def weight_bytes_read_per_step(self) -> float:
        """Bytes of weights one decode step reads."""
        return self.params_read_per_step * DTYPE_BYTES[self.dtype]

    @property
    def bytes_read_per_step(self) -> float:
        """Weights read plus every sequence's KV cache: the decode ceiling's denominator."""
        return self.weight_bytes_read_per_step + self.kv_cache_bytes

    @property
    def flops_per_token(self) -> float:
        """≈ 2 × active parameters (a multiply and an add each; attention's own not counted)."""
        return 2 * self.active_params


def default_kv_dtype(dtype: str) -> str:
    """The KV-cache format that goes with a weight format.

    Weight-only int4 (GPTQ/AWQ-style) keeps activations and the KV cache in 16 bit, so int4
    weights get a bf16 cache; every other format caches in its own width.
    """
    return "bf16" if dtype == "int4" else dtype


def check_dtype(dtype: str) -> str:
    """The dtype, lower-cased, or ``UsageError``."""
    cleaned = dtype.strip().lower()
    if cleaned not in DTYPE_BYTES:
        raise UsageError(f"dtype must be one of {', '.join(DTYPE_BYTES)}, got {dtype!r}")
    return cleaned


def weight_bytes(params: float, dtype: str) -> float:
    """Bytes of the weights: parameters × bytes per parameter."""
    return params * DTYPE_BYTES[check_dtype(dtype)]


def kv_bytes_per_sequence(shape: ModelShape, context: int, kv_dtype: str) -> float:
    """One sequence's KV cache at ``context`` tokens.

    GQA: 2 (K and V) × bytes × kv_heads × head_dim per layer and cached token. MLA:
    (kv_lora_rank + rope_head_dim) × bytes per layer and token, one latent for K and V.
    A sliding-window layer caches at most its window of tokens.
    """
    width = DTYPE_BYTES[check_dtype(kv_dtype)]
    if shape.mla:
        return shape.layers * (shape.kv_lora_rank + shape.rope_head_dim) * width * context
    full_layers = shape.layers - shape.window_layers
    cached = full_layers * context + shape.window_layers * min(context, shape.window)
    return 2 * width * shape.kv_heads * shape.head_dim * cached


def kv_cache_bytes(shape: ModelShape, context: int, batch: int, kv_dtype: str) -> float:
    """Every sequence's KV cache: batch × one sequence's at ``context`` tokens."""
    return batch * kv_bytes_per_sequence(shape, context, kv_dtype)


def experts_read(shape: ModelShape, batch: int) -> int:
    """Routed experts a decode step reads per MoE layer, at most: batch × active, ≤ all."""
    return min(shape.experts, batch * shape.active_experts) if shape.moe else 0


def params_read_per_step(shape: ModelShape, params: float, batch: int) -> float:
    """Parameters one decode step reads for ``batch`` sequences.

    A dense model reads all of them, as the decode bound's "Parameter Size" counts them (the
    input embedding, of which a step reads only a row per sequence, included: a few % for a
    small model). An MoE reads its published active parameters, plus the routed experts other
    sequences add: (total − active) is the routed experts a token skips, so each extra expert
    read adds (total − active) ÷ (experts − active experts).
    """
    if not shape.moe:
        return params
    extra = experts_read(shape, batch) - shape.active_experts
    skipped = shape.experts - shape.active_experts
    return shape.active + (params - shape.active) * extra / skipped


def devices_needed(total_bytes: float, memory_bytes: float | None) -> int | None:
    """Smallest device count whose combined memory holds ``total_bytes``."""
    if memory_bytes is None or memory_bytes <= 0:
        return None
    return max(1, math.ceil(total_bytes / memory_bytes))


def place(target: Target, total: float, read_per_step: float) -> Placement:
    """Where one model lands on one kind of device, and its decode ceiling there."""
    count = devices_needed(total, target.memory_bytes)
    bandwidth = target.bandwidth_bytes_per_second
    decode = None
    if count is not None and bandwidth is not None and read_per_step > 0:
        decode = count * bandwidth / read_per_step
    fraction = None if count is None or target.memory_bytes is None else total / target.memory_bytes
    return Placement(target, count, decode, fraction)


def fit(
    params: float,
    dtype: str = "bf16",
    *,
    context: int = DEFAULT_CONTEXT,
    batch: int = DEFAULT_BATCH,
    kv_dtype: str | None = None,
    shape: ModelShape | None = None,
    targets: Iterable[Target] = (),
) -> FitResult:
    """Memory for ``params`` parameters in ``dtype`` with a KV cache, placed on ``targets``.

    ``shape`` names the model (from ``parse_params``); without one, the size gets an assumed
    shape (``choose_shape``). Raises ``UsageError`` on bad input.
    """
    dtype = check_dtype(dtype)
    kv_dtype = default_kv_dtype(dtype) if kv_dtype is None else check_dtype(kv_dtype)
    context = int(CONTEXT.check(context))
    batch = int(BATCH.check(batch))
    check_params(params)
    choice = choose_shape(params, shape)
    result = FitResult(
        params=params,
        dtype=dtype,
        kv_dtype=kv_dtype,
        context=context,
        batch=batch,
        weight_bytes=weight_bytes(params, dtype),
        params_read_per_step=params_read_per_step(choice.shape, params, batch),
        experts_read=experts_read(choice.shape, batch),
        kv_cache_bytes=kv_cache_bytes(choice.shape, context, batch, kv_dtype),
        kv_bytes_per_token=kv_bytes_per_sequence(choice.shape, 1, kv_dtype),
        shape=choice,
        placements=(),
    )
    return with_targets(result, targets)


def with_targets(result: FitResult, targets: Iterable[Target]) -> FitResult:
    """The same arithmetic placed on other devices (the pane calls this when devices change)."""
    total, read = result.total_bytes, result.bytes_read_per_step
    return replace(result, placements=tuple(place(t, total, read) for t in targets))


def published_memory_bytes(memory_gib: float) -> tuple[float, str]:
    """A catalog capacity (GiB, as the vendor means its "GB") in bytes, and how it was read.

    Memory makers' GB are binary (JEDEC), and so are accelerator makers': an "80 GB" H100
    reports more than 80 × 10⁹ bytes to its driver (NVML counts bytes). The catalog keeps each
    capacity in GiB as printed; here it becomes bytes, shown in GB (10⁹) like every size.
    """
    return memory_gib * GIB, f'published "{memory_gib:g} GB" = {memory_gib:g} GiB'


def catalog_targets(entries: Iterable[CatalogRow] | None = None) -> tuple[Target, ...]:
    """Targets for catalog entries (default: the reference catalog plus the guide's extras)."""
    if entries is None:
        from gpu_tui.core.guide.extra_catalog import all_entries

        entries = all_entries()
    targets = []
    for e in entries:
        memory, basis = (None, "") if e.memory_gib is None else published_memory_bytes(e.memory_gib)
        bandwidth = None if e.bandwidth_tbps is None else e.bandwidth_tbps * 1e12
        targets.append(Target(e.name, memory, bandwidth, e.source, memory_basis=basis))
    return tuple(targets)


def local_target(
    name: str, memory_bytes: int | None, bandwidth_gb_per_second: float | None, basis: str
) -> Target:
    """A device on this machine: capacity as the driver reports it, bandwidth from its peaks."""
    bandwidth = None if bandwidth_gb_per_second is None else bandwidth_gb_per_second * 1e9
    memory_basis = "" if memory_bytes is None else f"as reported: {memory_bytes / 2**20:,.0f} MiB"
    return Target(name, memory_bytes, bandwidth, basis, local=True, memory_basis=memory_basis)


def accelerator_target(device: Accelerator) -> Target:
    """A detected accelerator as a target (labelled SIMULATED in ``--demo``).

    Bandwidth comes from the device's computed peak, else its datasheet, else stays unknown.
    """
    # A simulated device's own name may already say so ("... (SIMULATED #0)"): say it once.
    name = device.name
    if device.simulated and "(SIMULATED" not in name:
        name += " (SIMULATED)"
    memory = value_or_none(device.memory_total_bytes)
    bandwidth = value_or_none(device.peaks.memory_bandwidth_gb_per_second)
    basis = f"this machine: memory as reported by {device.backend}"
    if bandwidth is not None:
        how = (v for k, v in device.peaks.basis.items() if "bandwidth" in k)
        basis += f"; bandwidth: {next(how, 'computed peak')}"
    elif (
        device.datasheet is not None and device.datasheet.memory_bandwidth_gb_per_second is not None
    ):
        bandwidth = device.datasheet.memory_bandwidth_gb_per_second
        basis += f"; bandwidth from the datasheet ({device.datasheet.source})"
    return local_target(name, memory, bandwidth, basis)


def machine_targets(inventory: Inventory) -> tuple[Target, ...]:
    """This machine's accelerators (lost ones left out), then its system RAM."""
    gpus = tuple(accelerator_target(d) for d in inventory.accelerators if not d.lost)
    ram = replace(
        local_target(
            f"CPU: {short_cpu_name(inventory.cpu.model)} (RAM)",
            inventory.memory.total_bytes,
            None,
            "this machine: system RAM (psutil); gpu-tui computes no CPU memory bandwidth",
        ),
        ram=True,
    )
    return (*gpus, ram)


def grouped(placements: Iterable[Placement]) -> tuple[tuple[Placement, int], ...]:
    """Each placement once, with how many of this machine's devices it stands for: identical
    devices (same name, figures and their basis) land identically, so eight rows of them
    would only repeat the first. Order is kept: a group sits where its first device was."""
    counts: dict[Placement, int] = {}
    for p in placements:  # catalog names are unique: only a machine's devices ever merge
        counts[p] = counts.get(p, 0) + 1
    return tuple(counts.items())


def this_machine(result: FitResult) -> str:
    """One line: does the model fit on this machine's GPUs, or with none, in its RAM."""
    local = [p for p in result.placements if p.target.local]
    gpus = [p for p in local if not p.target.ram]
    if gpus:
        first = gpus[0]
        count = sum(1 for p in gpus if p.target.name == first.target.name)
        return _on_gpus(first, count)
    ram = next((p for p in local if p.target.ram), None)
    if ram is None or ram.target.memory_bytes is None or ram.devices_needed is None:
        return "On this machine: no GPU and no memory size found, so no answer."
    have = format_gigabytes(ram.target.memory_bytes, ",.1f")
    where = f"On this machine (no GPU found; {have} of RAM)"
    if ram.devices_needed > 1:
        need = format_gigabytes(result.total_bytes, ",.1f")
        return f"{where}: does not fit in RAM: needs {need}."
    return (
        f"{where}: fits in RAM ({format_percent(ram.fraction_of_one or 0, 0)} of it); "
        "no decode ceiling (gpu-tui computes no CPU memory bandwidth)."
    )


def _on_gpus(p: Placement, count: int) -> str:
    memory = p.target.memory_bytes
    each = "memory unknown" if memory is None else f"{format_gigabytes(memory, ',.1f')} each"
    where = f"On this machine ({count} × {p.target.name}, {each})"
    needed = p.devices_needed
    if needed is None:
        return f"{where}: its memory size is unknown, so no answer."
    if needed > count:
        return f"{where}: does not fit: needs {needed} GPUs."
    fits = "fits on one GPU" if needed == 1 else f"fits on {needed} of its {count} GPUs"
    rate = p.decode_tokens_per_second_max
    if rate is None:
        return f"{where}: {fits}; decode ceiling unknown (bandwidth not known)."
    return f"{where}: {fits}; decode ≤ {rate:,.1f} tok/s per sequence."
