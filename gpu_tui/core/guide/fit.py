"""Will it fit: weight and KV-cache memory against device VRAM, devices needed, decode bound."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Protocol

from gpu_tui.core.devices.model import Accelerator
from gpu_tui.core.errors import UsageError
from gpu_tui.core.fields import value_or_none
from gpu_tui.core.guide.shapes import ModelShape, ShapeChoice, check_params, choose_shape
from gpu_tui.core.limits import Limit

# Bytes per parameter (and per cached K/V element). int4 packs two values per byte; the
# per-group scales that real int4 formats add (a few %) are left out, as the reference does.
DTYPE_BYTES: dict[str, float] = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int4": 0.5}

DEFAULT_CONTEXT = 4096
DEFAULT_BATCH = 1
MAX_CONTEXT = 10_000_000
MAX_BATCH = 100_000
# Context 0 is allowed: "do the weights alone fit?" is a real question. At the far corner
# (100T parameters in fp32, 10M tokens × 100,000 sequences) the total is about 1e18 bytes:
# far from any float limit, and still exact enough to count devices.
CONTEXT = Limit("context", 0, MAX_CONTEXT, "tokens", whole=True)
BATCH = Limit("batch", 1, MAX_BATCH, "sequences", whole=True)

SOURCE_WEIGHTS = (
    "weights = parameters × bytes per parameter (BF16 = 2 B): "
    "docs.coreweave.com/platform/instances/selecting-an-instance"
)
SOURCE_KV = (
    "KV bytes = 2 × bytes × layers × kv_heads × head_dim × context × batch: "
    "docs.rs/crate/kv-cache-size/latest/source/README.md"
)
SOURCE_DECODE = (
    "decode tokens/s ≤ bandwidth ÷ weight bytes (every weight is read once per step): "
    "jax-ml/scaling-book roofline.md"
)
CAPACITY_NOTE = (
    "Published capacities are taken as 10^9 bytes (drivers often report a little more) and "
    "nothing is reserved for activations, the CUDA context or fragmentation: treat a fit "
    "within a few % as too tight."
)


class CatalogRow(Protocol):
    """The fields of a catalog entry this module reads (``gpu_tui.core.catalog.CatalogEntry``)."""

    @property
    def name(self) -> str: ...
    @property
    def memory_gb(self) -> float | None: ...
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


@dataclass(frozen=True)
class Placement:
    """How a model sits on one kind of device."""

    target: Target
    devices_needed: int | None
    """Smallest count whose summed memory holds the total; ``None`` when capacity is unknown."""
    decode_tokens_per_second_max: float | None
    """devices × bandwidth ÷ weight bytes: ideal tensor parallelism, per sequence; a ceiling."""
    fraction_of_one: float | None
    """Total ÷ one device's memory: 1.003 says "just too big", which a count alone hides."""

    @property
    def fits_on_one(self) -> bool:
        """True when a single device holds weights and KV cache."""
        return self.devices_needed == 1


@dataclass(frozen=True)
class FitResult:
    """The memory arithmetic for one model, and where it fits."""

    params: float
    dtype: str
    kv_dtype: str
    context: int
    batch: int
    weight_bytes: float
    kv_cache_bytes: float
    kv_bytes_per_token: float
    shape: ShapeChoice
    placements: tuple[Placement, ...]

    @property
    def total_bytes(self) -> float:
        """Weights plus KV cache (activations and framework overhead not included)."""
        return self.weight_bytes + self.kv_cache_bytes


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


def kv_cache_bytes(shape: ModelShape, context: int, batch: int, kv_dtype: str) -> float:
    """2 (K and V) × bytes × layers × kv_heads × head_dim × context × batch."""
    per_token = 2 * DTYPE_BYTES[check_dtype(kv_dtype)] * shape.layers * shape.kv_heads
    return per_token * shape.head_dim * context * batch


def devices_needed(total_bytes: float, memory_bytes: float | None) -> int | None:
    """Smallest device count whose combined memory holds ``total_bytes``."""
    if memory_bytes is None or memory_bytes <= 0:
        return None
    return max(1, math.ceil(total_bytes / memory_bytes))


def place(target: Target, total: float, weights: float) -> Placement:
    """Where one model lands on one kind of device."""
    count = devices_needed(total, target.memory_bytes)
    bandwidth = target.bandwidth_bytes_per_second
    decode = None
    if count is not None and bandwidth is not None and weights > 0:
        decode = count * bandwidth / weights
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

    ``shape`` names the model (from ``parse_params``); otherwise ``choose_shape`` picks the
    known model of that size or applies its documented rule. Raises ``UsageError`` on bad input.
    """
    dtype = check_dtype(dtype)
    kv_dtype = default_kv_dtype(dtype) if kv_dtype is None else check_dtype(kv_dtype)
    context = int(CONTEXT.check(context))
    batch = int(BATCH.check(batch))
    check_params(params)
    choice = choose_shape(params, shape)
    weights = weight_bytes(params, dtype)
    kv = kv_cache_bytes(choice.shape, context, batch, kv_dtype)
    per_token = kv_cache_bytes(choice.shape, 1, 1, kv_dtype)
    placements = tuple(place(t, weights + kv, weights) for t in targets)
    return FitResult(params, dtype, kv_dtype, context, batch, weights, kv, per_token, choice,
                     placements)  # fmt: skip


def with_targets(result: FitResult, targets: Iterable[Target]) -> FitResult:
    """The same arithmetic placed on other devices (the pane calls this when devices change)."""
    placements = tuple(place(t, result.total_bytes, result.weight_bytes) for t in targets)
    return replace(result, placements=placements)


def catalog_targets(entries: Iterable[CatalogRow] | None = None) -> tuple[Target, ...]:
    """Targets for catalog entries (default: the reference catalog plus the guide's extras)."""
    if entries is None:
        from gpu_tui.core.guide.extra_catalog import all_entries

        entries = all_entries()
    return tuple(
        Target(
            name=e.name,
            memory_bytes=None if e.memory_gb is None else e.memory_gb * 1e9,
            bandwidth_bytes_per_second=None
            if e.bandwidth_tbps is None
            else e.bandwidth_tbps * 1e12,
            source=e.source,
        )
        for e in entries
    )


def local_target(
    name: str, memory_bytes: int | None, bandwidth_gb_per_second: float | None, basis: str
) -> Target:
    """A device on this machine: capacity as the driver reports it, bandwidth from its peaks."""
    bandwidth = None if bandwidth_gb_per_second is None else bandwidth_gb_per_second * 1e9
    return Target(name, memory_bytes, bandwidth, basis, local=True)


def accelerator_target(device: Accelerator) -> Target:
    """A detected accelerator as a target (labelled SIMULATED in ``--demo``).

    Bandwidth comes from the device's computed peak, else its datasheet, else stays unknown.
    """
    name = f"{device.name} (SIMULATED)" if device.simulated else device.name
    memory = value_or_none(device.memory_total_bytes)
    bandwidth = value_or_none(device.peaks.memory_bandwidth_gbps)
    basis = f"this machine: memory as reported by {device.backend}"
    if bandwidth is not None:
        how = (v for k, v in device.peaks.basis.items() if "bandwidth" in k)
        basis += f"; bandwidth: {next(how, 'computed peak')}"
    elif device.datasheet is not None and device.datasheet.memory_bandwidth_gbps is not None:
        bandwidth = device.datasheet.memory_bandwidth_gbps
        basis += f"; bandwidth from the datasheet ({device.datasheet.source})"
    return local_target(name, memory, bandwidth, basis)
