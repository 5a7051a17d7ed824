"""The CPU: model, cores, clocks, caches, AI-relevant SIMD features and the fp32 peak.

On Linux everything comes from ``/proc/cpuinfo`` and ``/sys`` (parsed from text so recorded
inputs from other machines can be tested); elsewhere from py-cpuinfo, which is slower but portable.
"""

from __future__ import annotations

import os
import platform
import re
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from gpu_tui.core.devices import peaks
from gpu_tui.core.devices.cpu_clock import sustained_clock_mhz
from gpu_tui.core.devices.cpu_names import arm_core_name, arm_vendor, microarchitecture
from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.model import CpuInfo

# Flags that matter for AI work, in the order we show them.
X86_AI_FLAGS = (
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx_vnni",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
    "amx_fp16",
)
ARM_AI_FLAGS = ("asimd", "asimdhp", "asimddp", "fphp", "bf16", "i8mm", "sve", "sve2", "sme")


@dataclass(frozen=True)
class CpuSources:
    """Raw inputs for :func:`build_cpu_info`; recorded copies of these make the test fixtures."""

    cpuinfo: str
    machine: str
    sys_root: Path | None = None
    """A directory holding ``devices/system/...`` (normally ``/sys``), or None."""
    logical_cores: int | None = None
    physical_cores: int | None = None
    current_mhz: float | None = None
    max_mhz: float | None = None
    sustained_mhz: float | None = None
    """The clock measured with every core busy (``cpu_clock``), or None."""
    extra: dict[str, str] = field(default_factory=dict)


def parse_cpuinfo(text: str) -> list[dict[str, str]]:
    """Split ``/proc/cpuinfo`` into one dict per block (processors; trailing globals on Arm)."""
    blocks: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if current:
                blocks.append(current)
                current = {}
            continue
        key, sep, value = line.partition(":")
        if sep:
            current[key.strip()] = value.strip()
    if current:
        blocks.append(current)
    return blocks


def _int(text: str | None, base: int = 10) -> int | None:
    try:
        return int(text, base) if text is not None else None
    except ValueError:
        return None


def _size_bytes(text: str) -> int | None:
    """``32K`` / ``1024 KB`` / ``32768K`` → bytes."""
    match = re.fullmatch(r"\s*(\d+)\s*([KMG]?)B?\s*", text, flags=re.IGNORECASE)
    if not match:
        return None
    scale = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[match.group(2).upper()]
    return int(match.group(1)) * scale


def read_caches(sys_root: Path) -> dict[str, int]:
    """Total cache per level (``L1d``, ``L1i``, ``L2``, ``L3``) across the machine, from sysfs.

    Each physical cache is counted once: caches shared by several CPUs list the same
    ``shared_cpu_list``, so (level, type, shared_cpu_list) identifies one instance.
    """
    seen: set[tuple[str, str, str]] = set()
    totals: dict[str, int] = {}
    for index in sorted((sys_root / "devices/system/cpu").glob("cpu[0-9]*/cache/index[0-9]*")):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            size = _size_bytes((index / "size").read_text())
            shared = (index / "shared_cpu_list").read_text().strip()
        except OSError:
            continue
        if size is None or (level, kind, shared) in seen:
            continue
        seen.add((level, kind, shared))
        name = f"L{level}" + {"Data": "d", "Instruction": "i"}.get(kind, "")
        totals[name] = totals.get(name, 0) + size
    return dict(sorted(totals.items()))


def count_numa_nodes(sys_root: Path) -> Maybe[int]:
    """How many NUMA nodes the kernel reports."""
    nodes = list((sys_root / "devices/system/node").glob("node[0-9]*"))
    return len(nodes) if nodes else Unknown("the kernel exposes no NUMA information")


def _first(blocks: list[dict[str, str]], key: str) -> str | None:
    return next((block[key] for block in blocks if key in block), None)


def build_cpu_info(sources: CpuSources) -> CpuInfo:
    """Turn raw inputs into a :class:`CpuInfo`; pure, so recorded inputs can be tested."""
    blocks = parse_cpuinfo(sources.cpuinfo)
    processors = [block for block in blocks if "processor" in block]
    flags = frozenset((_first(blocks, "flags") or _first(blocks, "Features") or "").split())
    is_arm = sources.machine.lower() in ("aarch64", "arm64") or "CPU implementer" in (
        processors[0] if processors else {}
    )
    logical = sources.logical_cores or len(processors) or 1
    family = _int(_first(blocks, "cpu family"))
    model_number = _int(_first(blocks, "model"))
    sockets = len({b["physical id"] for b in processors if "physical id" in b}) or None

    implementer = _int(_first(blocks, "CPU implementer"), 16)
    part = _int(_first(blocks, "CPU part"), 16)
    if is_arm:
        vendor: Maybe[str] = arm_vendor(implementer) or Unknown("unknown Arm implementer")
        core_name = arm_core_name(implementer, part)
        model = _first(blocks, "model name") or core_name or "Arm CPU"
        uarch: Maybe[str] = core_name or Unknown("Arm core part not in our table")
        simd = tuple(flag for flag in ARM_AI_FLAGS if flag in flags)
    else:
        vendor = _first(blocks, "vendor_id") or Unknown("not reported by /proc/cpuinfo")
        model = _first(blocks, "model name") or "unknown CPU"
        uarch = microarchitecture(_first(blocks, "vendor_id"), family, model_number) or Unknown(
            "family/model not in our table"
        )
        simd = tuple(flag for flag in X86_AI_FLAGS if flag in flags)

    physical: Maybe[int] = (
        sources.physical_cores
        or _physical_from_cpuinfo(processors)
        or Unknown("core topology not reported")
    )
    nominal = _float(_first(blocks, "cpu MHz"))
    current: Maybe[float] = sources.current_mhz or nominal or Unknown("no clock reported")
    max_mhz: Maybe[float] = sources.max_mhz or Unknown(
        "no cpufreq driver exposes the boost clock, as is usual in a VM"
    )
    peak_cores = physical if isinstance(physical, int) else logical
    sustained: Maybe[float] = sources.sustained_mhz or Unknown(
        "not measured (this architecture, or no executable memory allowed)"
    )
    if isinstance(sustained, float):
        clock: Maybe[float] = sustained
        clock_label = "measured with every core busy"
    elif isinstance(max_mhz, float):
        clock = max_mhz
        clock_label = "max boost clock"
    else:
        clock = current
        clock_label = "reported clock; no boost clock exposed, so the real peak is likely higher"
    flop_rate = peaks.cpu_flops_per_cycle(
        vendor=vendor if isinstance(vendor, str) else "",
        family=family,
        model=model_number,
        flags=flags,
        arm_core=(implementer, part) if is_arm and implementer and part is not None else None,
    )
    return CpuInfo(
        model=model,
        vendor=vendor,
        architecture=sources.machine,
        microarchitecture=uarch,
        physical_cores=physical,
        logical_cores=logical,
        sockets=sockets or Unknown("socket ids not reported"),
        max_mhz=max_mhz,
        current_mhz=current,
        sustained_mhz=sustained,
        cache_bytes=read_caches(sources.sys_root) if sources.sys_root else {},
        simd=simd,
        numa_nodes=count_numa_nodes(sources.sys_root)
        if sources.sys_root
        else Unknown("no /sys on this system"),
        peak=peaks.cpu_fp32_peak(
            cores=peak_cores, clock_mhz=clock, clock_label=clock_label, flops_per_cycle=flop_rate
        ),
    )


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def _physical_from_cpuinfo(processors: list[dict[str, str]]) -> int | None:
    """Physical cores: ``cpu cores`` per socket × sockets seen, or distinct (socket, core) ids.

    None when the kernel reports neither (Arm). ``cpu cores`` also works on a recorded copy
    that keeps only a few processor blocks.
    """
    pairs = {(b.get("physical id"), b.get("core id")) for b in processors if "core id" in b}
    per_socket = {
        b["physical id"]: _int(b.get("cpu cores")) for b in processors if "physical id" in b
    }
    from_counts = sum(count for count in per_socket.values() if count)
    return max(len(pairs), from_counts) or None


def live_sources() -> CpuSources:
    """Read this machine's inputs (Linux: /proc and /sys; elsewhere: py-cpuinfo)."""
    machine = platform.machine()
    frequency = psutil.cpu_freq()
    current = frequency.current if frequency and frequency.current > 0 else None
    maximum = frequency.max if frequency and frequency.max > 0 else None
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
        sys_root: Path | None = Path("/sys")
    except OSError:
        cpuinfo = _cpuinfo_from_py_cpuinfo()
        sys_root = None
    physical = psutil.cpu_count(logical=False)
    return CpuSources(
        cpuinfo=cpuinfo,
        machine=machine,
        sys_root=sys_root,
        logical_cores=os.cpu_count(),
        physical_cores=physical,
        current_mhz=current,
        max_mhz=maximum,
        sustained_mhz=sustained_clock_mhz(physical or os.cpu_count() or 1),
    )


def _cpuinfo_from_py_cpuinfo() -> str:
    """Off Linux, let py-cpuinfo (sysctl, registry, cpuid) fill a /proc/cpuinfo-shaped text."""
    import cpuinfo  # slow (≈1 s): imported only where /proc/cpuinfo does not exist

    info = cpuinfo.get_cpu_info()
    lines = [
        "processor\t: 0",
        f"vendor_id\t: {info.get('vendor_id_raw', '')}",
        f"model name\t: {info.get('brand_raw', 'unknown CPU')}",
        f"cpu family\t: {info.get('family', '')}",
        f"model\t\t: {info.get('model', '')}",
        f"flags\t\t: {' '.join(info.get('flags', []))}",
    ]
    return "\n".join(lines) + "\n"


def read_cpu() -> CpuInfo:
    """The CPU of this machine."""
    return build_cpu_info(live_sources())
