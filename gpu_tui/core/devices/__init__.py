"""What hardware is here: :func:`discover` returns the whole inventory, failing soft per backend.

The TUI calls :func:`discover_host` first (CPU and memory, a few milliseconds) so the first
screen shows the CPU at once, then :func:`with_accelerators` (NVML can take far longer).
"""

from __future__ import annotations

from types import ModuleType

from gpu_tui.core.devices.model import Accelerator, BackendStatus, Inventory

CHECKING = "checking the NVIDIA driver…"


def discover_host() -> Inventory:
    """CPU and memory only; accelerators not looked for yet (NVML shown as being checked)."""
    # Imported here, not at the top: devices.model is imported by catalog and peaks, which the
    # CPU and NVIDIA readers import in turn, and a package-level import would close that loop.
    from gpu_tui.core.devices.cpu import read_cpu
    from gpu_tui.core.devices.memory import read_memory

    pending = BackendStatus(name="nvml", available=False, reason=CHECKING)
    return Inventory(
        cpu=read_cpu(), memory=read_memory(), accelerators=(), backends={"nvml": pending}
    )


def with_accelerators(
    host: Inventory, *, demo: bool = False, nvml: ModuleType | None = None
) -> Inventory:
    """``host`` plus the accelerators NVML finds (and the SIMULATED one with ``demo``).

    ``nvml`` swaps in a test double for the ``pynvml`` module.
    """
    from gpu_tui.core.devices.nvidia import discover_nvidia

    gpus, nvml_status = discover_nvidia(nvml)
    accelerators: list[Accelerator] = list(gpus)
    backends = {"nvml": nvml_status}
    if demo:
        from gpu_tui.core.devices.simulated import simulated_accelerator

        accelerators.append(simulated_accelerator(index=len(accelerators)))
        backends["simulated"] = BackendStatus(
            name="simulated",
            available=True,
            reason="--demo: one SIMULATED accelerator added; its readings are synthetic",
        )
    topology = None
    if len(gpus) >= 2:  # how they are connected: NVLink, PCIe, NUMA (the same NVML session)
        from gpu_tui.core.devices.topology_discovery import discover_topology

        topology = discover_topology(nvml)
    return Inventory(
        cpu=host.cpu,
        memory=host.memory,
        accelerators=tuple(accelerators),
        backends=backends,
        topology=topology,
    )


def discover(*, demo: bool = False, nvml: ModuleType | None = None) -> Inventory:
    """Find the CPU, memory and accelerators (slow-ish: call it off the event loop)."""
    return with_accelerators(discover_host(), demo=demo, nvml=nvml)
