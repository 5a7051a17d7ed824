"""The inventory as a spec sheet: sections of labelled rows, ready for the Specs pane or `info`."""

from __future__ import annotations

import re

from gpu_tui.core.comm.topology_sheet import topology_section
from gpu_tui.core.devices.cpu_names import short_cpu_name
from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.model import (
    Accelerator,
    BackendStatus,
    CpuInfo,
    Inventory,
    MemoryInfo,
    Peaks,
)
from gpu_tui.core.devices.spec_rows import SpecRow, SpecSection
from gpu_tui.core.units import (
    format_bandwidth,
    format_bytes,
    format_flops,
    format_mhz,
    format_temperature,
)

SIMULATED_TAG = "SIMULATED"


def row(
    key: str, label: str, value: Maybe[object], render: str | None = None, note: str = ""
) -> SpecRow:
    """A row for a reading: its rendering, or ``unknown`` with the reason as the note."""
    if isinstance(value, Unknown):
        return SpecRow(key, label, "unknown", value.reason, unknown=True)
    return SpecRow(key, label, render if render is not None else str(value), note)


_BACKENDS = {"nvml": "NVML, NVIDIA's driver library"}


def _read_through(gpu: Accelerator) -> str:
    """Where the GPU's readings come from, for the note under its name."""
    if gpu.simulated:
        return f"{SIMULATED_TAG}: modelled by gpu-tui --demo, not read from a GPU"
    return f"read through {_BACKENDS.get(gpu.backend, gpu.backend)}"


_ACRONYMS = {"cuda": "CUDA", "nvml": "NVML"}


def _detail_label(key: str) -> str:
    """``cuda_driver_version`` → ``CUDA driver version`` (acronyms stay capitals)."""
    words = key.split("_")
    first = _ACRONYMS.get(words[0], words[0].capitalize())
    return " ".join([first, *(_ACRONYMS.get(word, word) for word in words[1:])])


def cpu_section(cpu: CpuInfo) -> SpecSection:
    """The CPU's rows."""
    cores = f"{cpu.physical_cores} physical / {cpu.logical_cores} logical"
    if isinstance(cpu.physical_cores, Unknown):
        cores = f"{cpu.logical_cores} logical"
    caches = " · ".join(f"{level} {format_bytes(size)}" for level, size in cpu.cache_bytes.items())
    clock = row("cpu.clock", "Clock now", cpu.current_mhz, _mhz(cpu.current_mhz))
    rows = [
        SpecRow("cpu.model", "Model", cpu.model),
        row("cpu.model", "Vendor", cpu.vendor),
        row("cpu.microarchitecture", "Core design", cpu.microarchitecture),
        SpecRow("cpu.model", "Architecture", cpu.architecture),
        SpecRow("cpu.cores", "Cores", cores),
        row("cpu.cores", "Sockets", cpu.sockets),
        row("cpu.numa", "NUMA nodes", cpu.numa_nodes),
        clock,
        row("cpu.clock", "Max clock", cpu.max_mhz, _mhz(cpu.max_mhz)),
        row(
            "cpu.clock",
            "Clock, all busy",
            cpu.sustained_mhz,
            _mhz(cpu.sustained_mhz),
            note="measured: every core busy",
        ),
        SpecRow(
            "cpu.caches",
            "Caches",
            caches or "unknown",
            "" if caches else "not in sysfs",
            not caches,
        ),
        SpecRow("cpu.simd", "AI instructions", simd_summary(cpu.simd), " ".join(cpu.simd)),
        row(
            "cpu.peak",
            "FP32 peak",
            cpu.peak.gflops,
            _flops_g(cpu.peak.gflops),
            note=cpu.peak.basis,
        ),
    ]
    return SpecSection(f"CPU · {cpu.model}", tuple(rows), label=short_cpu_name(cpu.model))


def simd_summary(flags: tuple[str, ...]) -> str:
    """Group SIMD flags the way people talk about them: ``AMX · AVX-512 +BF16 +VNNI · AVX2``."""
    have = set(flags)
    parts = []
    if "amx_tile" in have:
        parts.append("AMX")
    if "avx512f" in have:
        extras = [name for flag, name in AVX512_EXTRAS if flag in have]
        parts.append(" +".join(["AVX-512", *extras]))
    if "avx2" in have:
        parts.append("AVX2+FMA" if "fma" in have else "AVX2")
    elif "avx" in have:
        parts.append("AVX")
    if "asimd" in have:
        parts.append("NEON")
    if "sve" in have:
        parts.append("SVE2" if "sve2" in have else "SVE")
    parts.extend(name for flag, name in ARM_EXTRAS if flag in have)
    return " · ".join(parts) or "none found"


AVX512_EXTRAS = (("avx512_fp16", "FP16"), ("avx512_bf16", "BF16"), ("avx512_vnni", "VNNI"))
ARM_EXTRAS = (("bf16", "BF16"), ("i8mm", "I8MM"), ("sme", "SME"))


def memory_section(memory: MemoryInfo) -> SpecSection:
    """System memory rows."""
    return SpecSection(
        "Memory",
        (
            SpecRow("memory.total", "Total", format_bytes(memory.total_bytes)),
            SpecRow("memory.total", "Available", format_bytes(memory.available_bytes)),
            SpecRow(
                "memory.swap",
                "Swap",
                f"{format_bytes(memory.swap_used_bytes)} used"
                f" of {format_bytes(memory.swap_total_bytes)}",
            ),
        ),
    )


def accelerator_section(gpu: Accelerator) -> SpecSection:
    """One accelerator's rows, peaks beside the datasheet where the catalog knows the product."""
    title = f"GPU {gpu.index} · {gpu.name}"
    if gpu.simulated and SIMULATED_TAG not in gpu.name:
        title = f"{title} · {SIMULATED_TAG}"
    label = f"GPU {gpu.index} · " + re.sub(r"^NVIDIA |\s*\(SIMULATED[^)]*\)", "", gpu.name)
    if gpu.lost:
        lost = SpecRow("gpu.name", "State", "LOST", "the GPU stopped answering the driver")
        return SpecSection(title, (lost,), problem=True, label=label)
    sheet = gpu.datasheet
    peaks = gpu.peaks
    rows = [
        SpecRow("gpu.name", "Name", gpu.name, _read_through(gpu)),
        row("gpu.architecture", "Architecture", gpu.architecture),
        row("gpu.compute_capability", "Compute capability", gpu.compute_capability),
        row("gpu.cores", "SMs", gpu.sm_count),
        row("gpu.cores", "CUDA cores", gpu.cuda_cores, _thousands(gpu.cuda_cores)),
        row("gpu.memory_total", "Memory", gpu.memory_total_bytes, _bytes(gpu.memory_total_bytes)),
        row(
            "gpu.memory_bus",
            "Memory bus",
            gpu.memory_bus_width_bits,
            f"{gpu.memory_bus_width_bits}-bit",
        ),
        row("gpu.clocks", "Max SM clock", gpu.max_sm_clock_mhz, _mhz(gpu.max_sm_clock_mhz)),
        row(
            "gpu.clocks",
            "Max memory clock",
            gpu.max_memory_clock_mhz,
            _mhz(gpu.max_memory_clock_mhz),
        ),
        *_peak_clock(peaks, "FP32"),
        _peak("gpu.peak_fp32", "FP32 peak", peaks, "fp32", sheet.fp32_tflops if sheet else None),
        *_peak_clock(peaks, "Tensor"),
        _peak("gpu.peak_tf32", "TF32 peak (dense)", peaks, "tf32", None),
        _peak(
            "gpu.peak_bf16",
            "BF16 peak (dense)",
            peaks,
            "bf16",
            sheet.bf16_tflops if sheet else None,
        ),
        _peak("gpu.peak_bf16", "FP16 peak (dense)", peaks, "fp16", None),
        _peak(
            "gpu.peak_fp8", "FP8 peak (dense)", peaks, "fp8", sheet.fp8_tflops if sheet else None
        ),
        _bandwidth(
            peaks.memory_bandwidth_gb_per_second,
            sheet.memory_bandwidth_gb_per_second if sheet else None,
            peaks.basis.get("memory_bandwidth_gb_per_second", ""),
        ),
        row(
            "gpu.power",
            "Power limit",
            gpu.power_limit_watts,
            _watts(gpu.power_limit_watts),
            note=_default_power(gpu.power_limit_default_watts),
        ),
        row("gpu.pcie", "PCIe link", gpu.pcie_generation_current, _pcie(gpu)),
        row("gpu.nvlink", "NVLink", gpu.nvlink, _nvlink(gpu)),
        row("gpu.ecc", "ECC", gpu.ecc_enabled, _on_off(gpu.ecc_enabled)),
        row("gpu.mig", "MIG mode", gpu.mig_enabled, _on_off(gpu.mig_enabled)),
        row(
            "gpu.persistence",
            "Persistence mode",
            gpu.persistence_mode,
            _on_off(gpu.persistence_mode),
        ),
        row("gpu.compute_mode", "Compute mode", gpu.compute_mode),
        row(
            "gpu.temperature",
            "Slowdown temp",
            gpu.temperature_slowdown_c,
            format_temperature(gpu.temperature_slowdown_c),
        ),
        row(
            "gpu.temperature",
            "Shutdown temp",
            gpu.temperature_shutdown_c,
            format_temperature(gpu.temperature_shutdown_c),
        ),
        row("gpu.identity", "VBIOS", gpu.vbios_version),
        row("gpu.identity", "PCI bus id", gpu.pci_bus_id),
        row("gpu.identity", "UUID", gpu.uuid),
    ]
    if sheet:
        rows.append(SpecRow("gpu.name", "Datasheet", sheet.product, sheet.source))
    return SpecSection(title, tuple(rows), simulated=gpu.simulated, label=label)


def backend_section(status: BackendStatus) -> SpecSection:
    """A discovery backend: fine, or what is wrong and how to fix it."""
    title = {"nvml": "NVIDIA driver (NVML)", "simulated": "Demo mode"}.get(status.name, status.name)
    label = title.removesuffix(" (NVML)")  # the device list's entry, in its narrow column
    rows = [
        SpecRow(
            f"backend.{status.name}",
            "Status",
            "available" if status.available else "not available",
            status.reason or "",
        )
    ]
    if status.fix:
        rows.append(SpecRow(f"backend.{status.name}", "Fix", status.fix))
    rows.extend(
        SpecRow(f"backend.{status.name}.{key}", _detail_label(key), value)
        for key, value in status.details.items()
    )
    return SpecSection(title, tuple(rows), label=label, problem=not status.available)


SEPARATOR = " · "


def wrap_value(value: str, width: int, *, split_words: bool = True) -> list[str]:
    """``value`` in lines of at most ``width``, broken after a `` · `` where it has them (so
    "L2 4.0 MiB" stays together), else between words; a word longer than a line is split, or
    with ``split_words=False`` (text that may run past the edge) kept whole on a line of its
    own, so a URL or a UUID is never cut."""
    width = max(width, 1)
    lines: list[str] = []
    line = ""
    parts = value.split(SEPARATOR)
    for at, part in enumerate(parts):
        piece = part + (SEPARATOR.rstrip() if at < len(parts) - 1 else "")
        joined = f"{line} {piece}" if line else piece
        if len(joined) <= width:
            line = joined
            continue
        if line:
            lines.append(line)
        line = ""
        for word in piece.split(" "):
            joined = f"{line} {word}" if line else word
            if len(joined) <= width:
                line = joined
                continue
            if line:
                lines.append(line)
            while split_words and len(word) > width:
                lines.append(word[:width])
                word = word[width:]
            line = word
    if line or not lines:
        lines.append(line)
    return lines


IDENTITY_KEYS = frozenset({"gpu.identity"})
"""Rows that tell one GPU of a model from another (PCI bus id, UUID, VBIOS): two GPUs that
differ only in these are the same hardware in another slot."""


def identity_differences(first: SpecSection, other: SpecSection) -> tuple[SpecRow, ...] | None:
    """The rows of GPU section ``other`` that differ from ``first``'s, when they are all identity
    rows and every other row reads the same; None when the two GPUs differ in more than where
    they sit (another model, another clock, another power limit, a lost GPU)."""
    if first.problem or other.problem or len(first.rows) != len(other.rows):
        return None
    differences = []
    for mine, theirs in zip(first.rows, other.rows, strict=True):
        if mine == theirs:
            continue
        if mine.key != theirs.key or mine.label != theirs.label or mine.key not in IDENTITY_KEYS:
            return None
        differences.append(theirs)
    return tuple(differences)


def spec_sheet(inventory: Inventory) -> tuple[SpecSection, ...]:
    """Every section, in the order the Specs pane and ``gpu-tui info`` show them."""
    sections = [cpu_section(inventory.cpu), memory_section(inventory.memory)]
    sections.extend(accelerator_section(gpu) for gpu in inventory.accelerators)
    sections.extend(topology_section(inventory.topology))
    sections.extend(backend_section(status) for status in inventory.backends.values())
    return tuple(sections)


def _peak(key: str, label: str, peaks: Peaks, kind: str, datasheet: float | None) -> SpecRow:
    computed: Maybe[float] = getattr(peaks, f"{kind}_tflops")
    basis = peaks.basis.get(f"{kind}_tflops", "")
    note = basis
    if datasheet is not None:
        note = (
            f"datasheet {format_flops(datasheet)} · {basis}"
            if basis
            else f"datasheet {format_flops(datasheet)}"
        )
    rendered = _tflops(computed)
    clock = peaks.clocks.get(f"{kind}_tflops")
    if rendered is not None and clock is not None and clock.upper_bound:
        # Computed at NVML's maximum clock: the vendor may rate the part lower.
        rendered = f"at most {rendered}"
    return row(key, label, computed, rendered, note=note)


_TENSOR_KEYS = ("bf16_tflops", "fp16_tflops", "tf32_tflops", "fp8_tflops")


def _peak_clock(peaks: Peaks, group: str) -> list[SpecRow]:
    """A row saying which clock the FP32 (or tensor) peaks used, on whose word; none if unknown."""
    keys = ("fp32_tflops",) if group == "FP32" else _TENSOR_KEYS
    clock = next((peaks.clocks[k] for k in keys if k in peaks.clocks), None)
    if clock is None:
        return []
    if clock.clock_basis == "published":
        value = "as published" + ("" if clock.source_primary else " (weak source)")
    else:
        ghz = f"{(clock.clock_mhz or 0) / 1000:.3f}".rstrip("0").rstrip(".")
        value = f"{ghz} GHz, " + ("NVIDIA-rated" if clock.clock_basis == "rated" else "NVML max")
    notes = []
    if clock.source_url:  # first, so a short explanation panel still shows where it is from
        weak = "" if clock.source_primary else " (secondary source)"
        title = clock.source_title or clock.source_url
        notes.append(f"{clock.rated_sku}: {title}{weak}, {clock.source_url}")
    notes.append(clock.clock_note)
    if clock.upper_bound:
        notes.append(
            "so each peak is an upper bound: the real one may be lower, and a % of it "
            "understates how close a run came"
        )
    label = f"{group} peak clock"
    return [SpecRow("gpu.peak_clock", label, value, " · ".join(n for n in notes if n))]


def _bandwidth(computed: Maybe[float], datasheet: float | None, basis: str) -> SpecRow:
    rendered = format_bandwidth(computed) if isinstance(computed, float) else None
    note = basis
    if datasheet is not None:
        note = (
            f"datasheet {format_bandwidth(datasheet)} · {basis}"
            if basis
            else f"datasheet {format_bandwidth(datasheet)}"
        )
    return row("gpu.peak_bandwidth", "Memory bandwidth", computed, rendered, note=note)


def _tflops(value: Maybe[float]) -> str | None:
    return format_flops(value) if isinstance(value, (int, float)) else None


def _flops_g(gflops: Maybe[float]) -> str | None:
    return format_flops(gflops / 1000) if isinstance(gflops, (int, float)) else None


def _mhz(value: Maybe[float] | Maybe[int]) -> str | None:
    return format_mhz(value) if isinstance(value, (int, float)) else None


def _bytes(value: Maybe[int]) -> str | None:
    return format_bytes(value) if isinstance(value, int) else None


def _thousands(value: Maybe[int]) -> str | None:
    return f"{value:,}" if isinstance(value, int) else None


def _watts(value: Maybe[float]) -> str | None:
    return f"{value:.0f} W" if isinstance(value, (int, float)) else None


def _default_power(value: Maybe[float]) -> str:
    return f"default {value:.0f} W" if isinstance(value, (int, float)) else ""


def _on_off(value: Maybe[bool]) -> str | None:
    return None if isinstance(value, Unknown) else ("on" if value else "off")


def _pcie(gpu: Accelerator) -> str:
    def link(gen: Maybe[int], width: Maybe[int]) -> str:
        if isinstance(gen, Unknown) or isinstance(width, Unknown):
            return "?"
        return f"Gen{gen} x{width}"

    now = link(gpu.pcie_generation_current, gpu.pcie_width_current)
    return f"{now} now · max {link(gpu.pcie_generation_max, gpu.pcie_width_max)}"


def _nvlink(gpu: Accelerator) -> str | None:
    link = gpu.nvlink
    if isinstance(link, Unknown):
        return None
    return f"{link.active_links} of {link.max_links} links active" if link.max_links else "none"
