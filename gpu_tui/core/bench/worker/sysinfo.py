"""What the worker can see of its machine: environment record, free memory, foreign CPU load."""

from __future__ import annotations

import os
import platform
import re
import sys
import time
from typing import Any

from .cpu_best import numpy_record


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def cpu_model() -> str:
    text = _read("/proc/cpuinfo") or ""
    found = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    return found.group(1).strip() if found else (platform.processor() or platform.machine())


def last_level_cache_bytes() -> int | None:
    """Size of the largest CPU cache level seen by cpu0 (sysfs), or None."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    best: int | None = None
    for entry in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        size = (_read(os.path.join(base, entry, "size")) or "").strip()
        found = re.fullmatch(r"(\d+)([KMG]?)", size)
        if found:
            scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[found.group(2)]
            best = max(best or 0, int(found.group(1)) * scale)
    return best


def available_memory_bytes() -> int | None:
    found = re.search(r"^MemAvailable:\s*(\d+) kB", _read("/proc/meminfo") or "", re.MULTILINE)
    return int(found.group(1)) * 1024 if found else None


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def busy_seconds(stat_text: str | None, ticks_per_second: int) -> float | None:
    """CPU seconds all processes spent busy, from /proc/stat's first line (user … steal: steal
    is time the hypervisor gave to other guests, which slows us just the same)."""
    if not stat_text or not stat_text.startswith("cpu "):
        return None
    fields = [int(x) for x in stat_text.split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    # guest time is already counted in user, so sum only the first eight fields
    return (sum(fields[:8]) - idle) / ticks_per_second


def _busy_seconds() -> float | None:
    return busy_seconds(_read("/proc/stat"), os.sysconf("SC_CLK_TCK"))


class LoadProbe:
    """Foreign CPU load over an interval: busy CPU time of everyone minus this process's."""

    def __init__(self) -> None:
        self._start: tuple[float, float, float | None] | None = None

    def start(self) -> None:
        own = os.times()
        self._start = (time.monotonic(), own.user + own.system, _busy_seconds())

    def foreign_vcpus(self) -> float | None:
        """Average number of CPUs other processes kept busy since ``start``; None if unknown."""
        busy = _busy_seconds()
        if self._start is None or busy is None or self._start[2] is None:
            return None
        wall = time.monotonic() - self._start[0]
        if wall < 0.05:  # /proc/stat counts in 10 ms ticks: too short to say anything
            return None
        own = os.times()
        mine = own.user + own.system - self._start[1]
        return max(0.0, (busy - self._start[2] - mine) / wall)


def _flag(owner: Any, name: str) -> Any:
    # torch >= 2.9 raises when the legacy flag (allow_tf32) is read after the new API was used
    try:
        return getattr(owner, name, None)
    except RuntimeError:
        return None


def precision_flags(torch: Any) -> dict[str, Any]:
    """The switches that change what "fp32" means on a GPU, as they are now ("fp32 precision
    set and recorded" in the bench package docstring, bench/__init__.py)."""
    matmul = torch.backends.cuda.matmul
    flags: dict[str, Any] = {
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "cuda_matmul_fp32_precision": _flag(matmul, "fp32_precision"),
        "cudnn_fp32_precision": _flag(torch.backends.cudnn, "fp32_precision"),
    }
    if flags["cuda_matmul_fp32_precision"] is None:  # torch < 2.9: only the legacy flags exist
        flags["cuda_matmul_allow_tf32"] = _flag(matmul, "allow_tf32")
        flags["cudnn_allow_tf32"] = _flag(torch.backends.cudnn, "allow_tf32")
    for name in (
        "allow_fp16_reduced_precision_reduction",
        "allow_bf16_reduced_precision_reduction",
    ):
        flags[f"cuda_matmul_{name}"] = _flag(matmul, name)
    return flags


def blas_backend(torch: Any) -> str | None:
    found = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
    return found.group(1) if found else None


def device_record(torch: Any, device: str) -> dict[str, Any]:
    """Identity and the counts/clocks that peaks are computed from (gpu-tui does the maths)."""
    if device == "cpu":
        return {
            "device": "cpu",
            "name": cpu_model(),
            "threads": torch.get_num_threads(),
            "usable_cpus": usable_cpus(),
            "last_level_cache_bytes": last_level_cache_bytes(),
            "memory_available_bytes": available_memory_bytes(),
        }
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(device)
        free, total = torch.cuda.mem_get_info(device)

        def mhz(name: str) -> float | None:
            khz = getattr(props, name, 0) or 0  # CUDA 13 deprecates these: 0 means unknown
            return khz / 1000.0 if khz else None

        return {
            "device": device,
            "name": props.name,
            "vendor": "AMD" if getattr(torch.version, "hip", None) else "NVIDIA",
            "uuid": str(getattr(props, "uuid", "")) or None,
            "pci_bus_id": _pci_bus_id(props),
            "compute_capability": f"{props.major}.{props.minor}",
            "gcn_arch": getattr(props, "gcnArchName", None) or None,
            "sm_count": props.multi_processor_count,
            "max_sm_clock_mhz": mhz("clock_rate"),
            "max_memory_clock_mhz": mhz("memory_clock_rate"),
            "memory_bus_width_bits": getattr(props, "memory_bus_width", 0) or None,
            "l2_cache_bytes": getattr(props, "L2_cache_size", 0) or None,
            "memory_total_bytes": total,
            "memory_free_bytes": free,
        }
    return {"device": device, "name": device}


def _pci_bus_id(props: Any) -> str | None:
    """``domain:bus:device.0`` as NVML writes it, so the caller can find this GPU in NVML."""
    bus, slot = getattr(props, "pci_bus_id", None), getattr(props, "pci_device_id", None)
    if bus is None or slot is None:
        return None
    return f"{int(getattr(props, 'pci_domain_id', 0) or 0):08x}:{int(bus):02x}:{int(slot):02x}.0"


def environment(torch: Any, devices: list[str]) -> dict[str, Any]:
    """One record per run ("One environment record per run", bench/__init__.py): software,
    threads, BLAS, precision flags, each device."""
    cuda = torch.cuda.is_available()
    return {
        "python": sys.version.split()[0],
        "python_executable": sys.executable,
        "platform": platform.platform(),
        "torch_version": torch.__version__,
        "cuda_runtime_version": getattr(torch.version, "cuda", None),
        "hip_version": getattr(torch.version, "hip", None),
        "cudnn_version": torch.backends.cudnn.version() if cuda else None,
        "cuda_device_count": torch.cuda.device_count() if cuda else 0,
        # how cuda:N maps to physical GPUs when UUIDs are missing (the caller matches NVML)
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "cuda_device_order": os.environ.get("CUDA_DEVICE_ORDER"),
        "cpu_model": cpu_model(),
        "cpu_threads": torch.get_num_threads(),
        "cpu_interop_threads": torch.get_num_interop_threads(),
        "blas": blas_backend(torch),
        **numpy_record(),  # numpy's BLAS may differ from torch's: "CPU best" names both
        "precision_flags": precision_flags(torch),
        "devices": [device_record(torch, d) for d in devices],
    }
