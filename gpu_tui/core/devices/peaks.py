"""Theoretical peaks from architecture tables and clocks: GPU and CPU FLOP/s, memory bandwidth."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_tui.core.devices.cpu_names import INTEL_MODELS
from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.model import CpuPeak, PeakClock, Peaks
from gpu_tui.core.devices.rated_clocks import RatedSku, find_rated
from gpu_tui.core.units import format_flops


@dataclass(frozen=True)
class _SmRates:
    """Dense FLOP per clock per SM (AMD: per CU). ``None`` = the unit cannot do it at all."""

    arch: str
    fp32: int
    fp16: int | None  # tensor, FP32 accumulate
    bf16: int | None
    tf32: int | None
    fp8: int | None
    missing: str = ""
    """Why a ``None`` rate is missing, in the user's words."""


# Keyed on (compute capability, SKU class): dense FLOP per clock per SM, chosen so that SMs ×
# rated clock × rate reproduces the vendor's figures (tests/reference/test_peak_reference.py
# checks Volta to Hopper against datasheets). GeForce parts run FP32 accumulate at half the
# professional rate (GA102/AD102 whitepapers: 3090 TF32 35.6, 4090 82.6), and PyTorch
# accumulates bf16 in FP32, so the GeForce row holds the half rate.
_PRO, _GEFORCE = "professional", "GeForce"
_GB20X_NOTE = "GeForce Blackwell FP32-accumulate tensor rates are not published"
_TABLE: dict[tuple[str, str], _SmRates] = {
    ("7.0", _PRO): _SmRates("Volta", 128, 1024, None, None, None, "Volta has no BF16/TF32/FP8"),
    ("7.5", _PRO): _SmRates("Turing", 128, 1024, None, None, None, "Turing has no BF16/TF32/FP8"),
    ("7.5", _GEFORCE): _SmRates(
        "Turing", 128, 512, None, None, None, "Turing has no BF16/TF32/FP8"
    ),
    ("8.0", _PRO): _SmRates("Ampere GA100", 128, 2048, 2048, 1024, None, "Ampere has no FP8"),
    ("8.6", _PRO): _SmRates("Ampere GA10x", 256, 1024, 1024, 512, None, "Ampere has no FP8"),
    ("8.6", _GEFORCE): _SmRates("Ampere GA10x", 256, 512, 512, 256, None, "Ampere has no FP8"),
    ("8.9", _PRO): _SmRates("Ada", 256, 1024, 1024, 512, 2048),
    ("8.9", _GEFORCE): _SmRates("Ada", 256, 512, 512, 256, 1024),
    ("9.0", _PRO): _SmRates("Hopper", 256, 4096, 4096, 2048, 8192),
    ("10.0", _PRO): _SmRates("Blackwell", 256, 8192, 8192, 4096, 16384),
    # GB20x GeForce: only FP16-accumulate tensor rates are published (1024 FP16, 2048 FP8); the
    # FP32-accumulate rate is expected to be half but is unsourced, so tensor rates stay unknown.
    ("12.0", _GEFORCE): _SmRates("Blackwell GB20x", 256, None, None, None, None, _GB20X_NOTE),
    ("gfx942", _PRO): _SmRates("CDNA3", 256, 2048, 2048, None, 4096, "TF32 not in our table"),
    ("gfx90a", _PRO): _SmRates("CDNA2", 128, 1024, 1024, None, None, "CDNA2 has no TF32/FP8"),
}


# The first CUDA compute capability whose Tensor Cores have the precision: BF16 came with
# Ampere (8.0), FP8 with Ada (8.9) and Hopper; Pascal, Volta and Turing have neither (the
# rates above say the same). AMD: CDNA2 (gfx90a) has no FP8, CDNA3 (gfx942) has.
_FIRST_CUDA = {"bf16": (8, 0), "fp8": (8, 9)}
_AMD_WITHOUT = {"gfx90a": frozenset({"fp8"})}


def lacks_precision(compute: str | None, precision: str) -> bool:
    """Whether an architecture cannot compute ``precision`` (``bf16``, ``fp8``) at all, from
    its CUDA compute capability (``"7.0"``) or AMD target (``"gfx90a"``). False where it can,
    and where gpu-tui does not know the architecture: then a missing figure is only unpublished.
    """
    if not compute:
        return False
    if compute.startswith("gfx"):
        return precision in _AMD_WITHOUT.get(compute, frozenset())
    major, dot, minor = compute.partition(".")
    if not (major.isdigit() and minor.isdigit() and dot) or precision not in _FIRST_CUDA:
        return False
    return (int(major), int(minor)) < _FIRST_CUDA[precision]


def sku_class(name: str) -> str:
    """``GeForce`` for consumer cards (half-rate FP32-accumulate tensor math), else professional."""
    return _GEFORCE if "geforce" in name.lower() else _PRO


def _tflops(sms: int, mhz: float, per_sm: int) -> float:
    return sms * mhz * per_sm / 1e6


def _ghz(mhz: float) -> str:
    """``1.98 GHz``, or three decimals where the third carries (``1.755 GHz``)."""
    text = f"{mhz / 1000:.3f}"
    return f"{text[:-1] if text.endswith('0') else text} GHz"


def gpu_peaks(
    *,
    vendor: str,
    name: str,
    compute_capability: Maybe[str],
    sm_count: Maybe[int],
    max_sm_clock_mhz: Maybe[int],
    max_memory_clock_mhz: Maybe[int],
    memory_bus_width_bits: Maybe[int],
    pci_device_id: Maybe[int] | None = None,
    power_limit_default_watts: Maybe[float] | None = None,
) -> Peaks:
    """Dense theoretical peaks (TFLOP/s) and memory bandwidth (GB/s), each with its arithmetic.

    Compute peaks use the vendor's rated clock where gpu-tui's table has the SKU (found by
    name, and by PCI device ID and default power limit where those tell SKUs apart); otherwise
    NVML's maximum SM clock, and the peak is then an upper bound. ``Peaks.clocks`` says which.
    """
    basis: dict[str, str] = {}
    clocks: dict[str, PeakClock] = {}
    bandwidth = _bandwidth(vendor, max_memory_clock_mhz, memory_bus_width_bits, basis)
    compute = _compute(
        name,
        compute_capability,
        sm_count,
        max_sm_clock_mhz,
        (pci_device_id, power_limit_default_watts),
        basis,
        clocks,
    )
    return Peaks(
        fp32_tflops=compute["fp32"],
        tf32_tflops=compute["tf32"],
        fp16_tflops=compute["fp16"],
        bf16_tflops=compute["bf16"],
        fp8_tflops=compute["fp8"],
        memory_bandwidth_gb_per_second=bandwidth,
        basis=basis,
        clocks=clocks,
    )


def _bandwidth(
    vendor: str, clock: Maybe[int], bus: Maybe[int], basis: dict[str, str]
) -> Maybe[float]:
    if "nvidia" not in vendor.lower():
        # The ×2 rule is checked against NVML's memory clocks only; other tools report HBM
        # clocks differently (MI300X: 1300 MHz × 8192 bit × 2 / 8 = 2.66 TB/s, datasheet 5.3).
        return Unknown(f"bandwidth formula checked for NVIDIA (NVML) clocks only, not {vendor}")
    if isinstance(clock, Unknown):
        return Unknown(f"memory clock unknown: {clock.reason}")
    if isinstance(bus, Unknown):
        return Unknown(f"memory bus width unknown: {bus.reason}")
    gbps = clock * bus * 2 / 8 / 1000
    basis["memory_bandwidth_gb_per_second"] = (
        f"{clock} MHz × {bus} bit × 2 (double data rate) ÷ 8 bit/B = {gbps:,.0f} GB/s"
    )
    return gbps


def _compute(
    name: str,
    compute_capability: Maybe[str],
    sm_count: Maybe[int],
    clock: Maybe[int],
    sku_keys: tuple[Maybe[int] | None, Maybe[float] | None],
    basis: dict[str, str],
    clocks: dict[str, PeakClock],
) -> dict[str, Maybe[float]]:
    keys = ("fp32", "tf32", "fp16", "bf16", "fp8")
    if isinstance(compute_capability, Unknown):
        return dict.fromkeys(keys, Unknown(f"architecture unknown: {compute_capability.reason}"))
    sku = sku_class(name)
    rates = _TABLE.get((compute_capability, sku))
    if rates is None:
        return dict.fromkeys(
            keys,
            Unknown(f"{sku} parts of compute capability {compute_capability} are not in our table"),
        )
    if isinstance(sm_count, Unknown):
        return dict.fromkeys(keys, Unknown(f"SM count unknown: {sm_count.reason}"))
    device_id, default_watts = sku_keys
    rated = find_rated(
        name=name,
        sm_count=sm_count,
        pci_device_id=device_id,
        power_limit_default_watts=default_watts,
    )

    out: dict[str, Maybe[float]] = {}
    for key in keys:
        per_sm: int | None = getattr(rates, key)
        if per_sm is None:
            out[key] = Unknown(rates.missing or f"{rates.arch}: no {key} rate")
            continue
        unit = "FP32 lanes" if key == "fp32" else "tensor, FP32 accumulate"
        rate_text = f"{per_sm} FLOP/clk/SM ({rates.arch} {sku}, {unit})"
        if not isinstance(rated, Unknown) and key in rated.published_tflops:
            out[key] = _published(key, rated, sm_count, clock, per_sm, basis, clocks)
            continue
        chosen = _clock_for(key, rated, clock)
        if isinstance(chosen, Unknown):
            out[key] = chosen
            continue
        mhz, clock_text, peak_clock = chosen
        value = _tflops(sm_count, mhz, per_sm)
        arithmetic = f"{sm_count} SMs × {clock_text} × {rate_text} = {value:,.1f} TFLOP/s"
        basis[f"{key}_tflops"] = (
            f"upper bound: {arithmetic}" if peak_clock.upper_bound else arithmetic
        )
        clocks[f"{key}_tflops"] = peak_clock
        out[key] = value
    return out


def _clock_for(
    key: str, rated: RatedSku | Unknown, nvml_max: Maybe[int]
) -> tuple[int, str, PeakClock] | Unknown:
    """The clock one peak is computed at, how to say so, and the record of it for ``clocks``."""
    kind = "FP32" if key == "fp32" else "tensor"
    row = None if isinstance(rated, Unknown) else rated
    rated_mhz = None if row is None else row.fp32_mhz if key == "fp32" else row.tensor_mhz
    # A board whose maximum is below the rating cannot reach it: its own maximum bounds the peak.
    if row and rated_mhz and (isinstance(nvml_max, Unknown) or rated_mhz <= nvml_max):
        also = ""
        if not isinstance(nvml_max, Unknown) and nvml_max != rated_mhz:
            also = f"; NVML max {_ghz(nvml_max)}"
        text = f"{_ghz(rated_mhz)} (NVIDIA's rated {kind} clock for {row.sku}{also})"
        record = PeakClock(
            clock_basis="rated",
            clock_mhz=rated_mhz,
            upper_bound=False,
            rated_sku=row.sku,
            source_url=row.source.url,
            source_title=row.source.title,
            source_primary=row.source.primary,
            clock_note=row.note_for(key),
        )
        return rated_mhz, text, record
    if isinstance(nvml_max, Unknown):
        return Unknown(f"max SM clock unknown: {nvml_max.reason}")
    if isinstance(rated, Unknown):
        why = rated.reason
    elif rated_mhz is None:
        why = f"gpu-tui's table has no rated {kind} clock for {rated.sku}"
    else:
        why = f"NVIDIA rates {rated.sku} at {_ghz(rated_mhz)}, above this board's maximum"
    text = f"{_ghz(nvml_max)} (the maximum clock NVML reports; {why})"
    record = PeakClock(clock_basis="nvml_max", clock_mhz=nvml_max, upper_bound=True, clock_note=why)
    return nvml_max, text, record


def _published(
    key: str,
    rated: RatedSku,
    sm_count: int,
    nvml_max: Maybe[int],
    per_sm: int,
    basis: dict[str, str],
    clocks: dict[str, PeakClock],
) -> float:
    """A rate the part's firmware caps: the vendor's figure, since no clock reproduces it."""
    value = rated.published_tflops[key]
    uncapped = (
        ""
        if isinstance(nvml_max, Unknown)
        else f"; {sm_count} SMs × {_ghz(nvml_max)} × {per_sm} FLOP/clk/SM would give "
        f"{_tflops(sm_count, nvml_max, per_sm):,.1f}"
    )
    weak = "" if rated.source.primary else " (secondary source)"
    basis[f"{key}_tflops"] = (
        f"{value:,.1f} TFLOP/s as published for {rated.sku}{weak}: its firmware caps the "
        f"tensor rate{uncapped}"
    )
    clocks[f"{key}_tflops"] = PeakClock(
        clock_basis="published",
        clock_mhz=None,
        upper_bound=False,
        rated_sku=rated.sku,
        source_url=rated.source.url,
        source_title=rated.source.title,
        source_primary=rated.source.primary,
        clock_note=rated.note_for(key),
    )
    return value


# ---------------------------------------------------------------------------------------------
# CPU

# Intel Xeon Scalable server cores (family 6): most SKUs have two AVX-512 FMA units. Some
# Silver/Bronze parts have one; flags cannot tell, so the label says so.
_INTEL_SERVER_AVX512 = {
    model: INTEL_MODELS[model] for model in (0x55, 0x6A, 0x6C, 0x8F, 0xCF, 0xAD)
}


# Arm cores by (implementer, part): FP32 FLOP/cycle = FMA pipes × lanes × 2. Sources: Arm's
# Neoverse N1/N2/V1/V2 software optimisation guides (FP/ASIMD pipe counts); AmpereOne: Ampere's
# product brief (two 128-bit SIMD units per core).
_ARM_FLOPS: dict[tuple[int, int], tuple[int, str]] = {
    (0x41, 0xD0C): (16, "Neoverse-N1: 2×128-bit FMA"),
    (0x41, 0xD49): (16, "Neoverse-N2: 2×128-bit FMA"),
    (0x41, 0xD40): (32, "Neoverse-V1: 4×128-bit FMA (or 2×256-bit SVE)"),
    (0x41, 0xD4F): (32, "Neoverse-V2: 4×128-bit FMA"),
    (0xC0, 0xAC3): (16, "AmpereOne: 2×128-bit FMA"),
    (0xC0, 0xAC4): (16, "AmpereOne A: 2×128-bit FMA"),
}


def cpu_flops_per_cycle(
    *,
    vendor: str,
    family: int | None,
    model: int | None,
    flags: frozenset[str],
    arm_core: tuple[int, int] | None = None,
) -> tuple[int, str] | Unknown:
    """FP32 FLOP per cycle per core and a short label, or ``Unknown`` for cores not in our table.

    ``arm_core`` is the (implementer, part) pair from /proc/cpuinfo on Arm.
    """
    if arm_core is not None:
        return _ARM_FLOPS.get(arm_core) or Unknown(
            f"FLOP/cycle for Arm core part {arm_core[1]:#x} is not in our table"
        )
    v = vendor.lower()
    if "amd" in v:
        return _amd_flops(family, model, flags)
    if "intel" in v:
        return _intel_flops(family, model, flags)
    return Unknown(f"FLOP/cycle for {vendor or 'this'} CPU cores is not in our table")


def _amd_flops(
    family: int | None, model: int | None, flags: frozenset[str]
) -> tuple[int, str] | Unknown:
    if family == 0x1A and model is not None and (0x20 <= model <= 0x2F or 0x60 <= model <= 0x7F):
        # Mobile Zen 5 (Strix, Krackan) keeps 256-bit FMA pipes (chipsandcheese, "Zen 5's
        # AVX-512 implementation", 2024).
        return 32, "Zen 5 mobile: 2×256-bit FMA"
    if family == 0x1A:
        return 64, "Zen 5: 2×512-bit FMA (full-width AVX-512)"
    if family == 0x19 and "avx512f" in flags:
        return 32, "Zen 4: 2×256-bit FMA; AVX-512 runs as 2×256"
    if family == 0x19:
        return 32, "Zen 3: 2×256-bit FMA"
    if family == 0x17 and model is not None and model >= 0x30:
        return 32, "Zen 2: 2×256-bit FMA"
    if family == 0x17 and model is not None:
        # Zen/Zen+ split 256-bit AVX2 into two 128-bit halves: 2 × 4 lanes × 2 = 16. (The
        # reference groups Zen 1 with Zen 2–3 at 32; the 128-bit FMA pipes say otherwise.)
        return 16, "Zen/Zen+: 2×128-bit FMA"
    return Unknown(f"AMD family {family} model {model} is not in our FLOP/cycle table")


def _intel_flops(
    family: int | None, model: int | None, flags: frozenset[str]
) -> tuple[int, str] | Unknown:
    if family != 6:
        return Unknown(f"Intel family {family} is not in our FLOP/cycle table")
    if model in _INTEL_SERVER_AVX512 and "avx512f" in flags:
        return 64, f"{_INTEL_SERVER_AVX512[model]}: 2×512-bit FMA, 32 on SKUs with one unit"
    if "avx512f" in flags and "amx_tile" in flags:
        # AMX ships only on Xeons from Sapphire Rapids on, all with two 512-bit FMA units; VMs
        # often hide the real model number (a 2-vCPU VM here reports model 0xA7, a client
        # part) but pass the AMX flags through. Measured there: 336 GFLOP/s fp32 GEMM on 2
        # cores at 2.6 GHz, which only 64 FLOP/cycle allows.
        return 64, "Xeon with AMX (Sapphire Rapids or later): 2×512-bit FMA"
    if "avx512f" in flags:
        return 32, "AVX-512 client core: 1×512-bit FMA"
    if "fma" in flags and "avx2" in flags:
        return 32, "AVX2: 2×256-bit FMA"
    if "avx" in flags:
        return 16, "AVX: 256-bit add + 256-bit multiply"
    return Unknown("no AVX on this Intel core; not in our FLOP/cycle table")


def cpu_fp32_peak(
    *,
    cores: int,
    clock_mhz: Maybe[float],
    clock_label: str,
    flops_per_cycle: tuple[int, str] | Unknown,
) -> CpuPeak:
    """Cores × clock × FLOP/cycle, with the arithmetic spelled out in ``basis``."""
    clock_text = (
        f"{clock_mhz / 1000:.2f} GHz ({clock_label})"
        if not isinstance(clock_mhz, Unknown)
        else f"clock unknown ({clock_mhz.reason})"
    )
    if isinstance(flops_per_cycle, Unknown):
        rate_text = f"FLOP/cycle unknown ({flops_per_cycle.reason})"
        per_cycle: Maybe[int] = flops_per_cycle
    else:
        rate_text = f"{flops_per_cycle[0]} FLOP/cycle ({flops_per_cycle[1]})"
        per_cycle = flops_per_cycle[0]
    noun = "core" if cores == 1 else "cores"
    basis = f"{cores} {noun} × {clock_text} × {rate_text}"
    gflops: Maybe[float]
    if isinstance(clock_mhz, Unknown):
        gflops = Unknown(f"clock unknown: {clock_mhz.reason}")
    elif isinstance(per_cycle, Unknown):
        gflops = Unknown(per_cycle.reason)
    else:
        gflops = cores * clock_mhz / 1000 * per_cycle
        basis += f" = {format_flops(gflops / 1000)}"  # as the Specs and the Guide show it
    return CpuPeak(
        gflops=gflops, cores=cores, clock_mhz=clock_mhz, flops_per_cycle=per_cycle, basis=basis
    )
