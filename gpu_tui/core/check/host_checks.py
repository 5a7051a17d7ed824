"""The host's side of a GPU server's health: driver against the CUDA torch was built for, and
the CPU's frequency governor, turbo and the clock its cores hold under load (a CPU held at or
below its base clock feeds GPUs slower)."""

from __future__ import annotations

from pathlib import Path

from gpu_tui.core.check.findings import FAIL, OK, SKIP, WARN, Finding
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.model import CpuInfo, Inventory

CPU_SYSFS = Path("/sys/devices/system/cpu")
SLOW_CLOCK = 0.85
"""Cores busy below this share of the clock the CPU reports are held back (heat, power, host)."""


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:2] if part.isdigit())


def driver_and_torch(inventory: Inventory, torch_cuda: str | Unknown | None) -> Finding:
    """``torch_cuda``: ``torch.version.cuda`` (None for a CPU build; Unknown without torch)."""
    nvml = inventory.backends.get("nvml")
    details = nvml.details if nvml is not None and nvml.available else {}
    driver = str(details.get("driver_version", "") or "")
    supports = str(details.get("cuda_driver_version", "") or "")
    reading = f"driver {driver}, CUDA {supports}" if driver else "no NVIDIA driver"
    if isinstance(torch_cuda, Unknown):
        return Finding("driver", OK if driver else SKIP, reading + "; torch not installed")
    if torch_cuda is None:
        verdict = WARN if driver else OK
        return Finding(
            "driver",
            verdict,
            reading + "; torch is a CPU build",
            why="benchmarks and your jobs cannot use the GPU with it" if driver else "",
            fix="install a CUDA build of torch (https://pytorch.org/get-started/locally/)",
        )
    reading += f"; torch built for CUDA {torch_cuda}"
    if driver and supports and _version(torch_cuda) > _version(supports):
        return Finding(
            "driver",
            FAIL,
            reading,
            expected=f"torch for CUDA {supports} or older, or a newer driver",
            why="the driver is older than the CUDA torch needs: torch cannot use the GPU",
            fix="install a torch built for this driver's CUDA, or update the driver",
        )
    return Finding("driver", OK, reading)


def cpu_governor(root: Path = CPU_SYSFS) -> Finding:
    governors = [
        path.read_text().strip() for path in sorted(root.glob("cpu[0-9]*/cpufreq/scaling_governor"))
    ]
    if not governors:
        return Finding(
            "cpu-governor",
            SKIP,
            "not visible",
            why="no cpufreq here (a VM or container hides it)",
        )
    slow = [g for g in governors if g != "performance"]
    if slow:
        return Finding(
            "cpu-governor",
            WARN,
            f"{slow[0]} on {len(slow)} of {len(governors)} cores",
            expected="performance",
            why="cores wake slowly from low clocks: data loading and kernel launches lag",
            fix="cpupower frequency-set -g performance (as root)",
        )
    return Finding("cpu-governor", OK, f"performance on {len(governors)} cores")


def cpu_clock(cpu: CpuInfo) -> Finding:
    """The clock the cores hold with all of them busy, against the one the CPU reports."""
    measured, reported = cpu.sustained_mhz, cpu.current_mhz
    if isinstance(measured, Unknown):
        return Finding("cpu-clock", SKIP, "not measured", why=measured.reason)
    reading = f"{measured / 1000:.2f} GHz with every core busy"
    if isinstance(reported, Unknown):
        return Finding("cpu-clock", OK, reading)
    reading += f" (the CPU reports {reported / 1000:.2f} GHz)"
    if measured < SLOW_CLOCK * reported:
        return Finding(
            "cpu-clock",
            WARN,
            reading,
            expected=f"at least {SLOW_CLOCK * reported / 1000:.2f} GHz",
            why="the cores run below their reported clock under load: a thermal or power "
            "limit, or (in a VM) a host that lends these cores to others",
            fix="check cooling and the BIOS power profile; on a VM, ask for dedicated cores",
        )
    return Finding("cpu-clock", OK, reading)


def cpu_turbo(root: Path = CPU_SYSFS) -> Finding:
    no_turbo = root / "intel_pstate" / "no_turbo"
    boost = root / "cpufreq" / "boost"
    if no_turbo.exists():
        off = no_turbo.read_text().strip() == "1"
    elif boost.exists():
        off = boost.read_text().strip() == "0"
    else:
        return Finding("cpu-turbo", SKIP, "not visible", why="no turbo control here (a VM?)")
    if off:
        return Finding(
            "cpu-turbo",
            WARN,
            "off",
            expected="on",
            why="the cores stay at their base clock",
            fix="enable turbo/boost in the BIOS, or write 0 to intel_pstate/no_turbo",
        )
    return Finding("cpu-turbo", OK, "on")
