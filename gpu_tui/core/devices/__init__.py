"""What hardware is here: :func:`discover` returns the whole inventory, failing soft per backend."""

from __future__ import annotations

from types import ModuleType

from gpu_tui.core.devices.model import Accelerator, BackendStatus, Inventory


def discover(*, demo: bool = False, nvml: ModuleType | None = None) -> Inventory:
    """Find the CPU, memory and accelerators.

    Slow-ish (NVML init can take ~100 ms, longer with many GPUs), so the TUI calls it from a
    thread. ``demo`` adds a SIMULATED accelerator; ``nvml`` swaps in a test double.
    """
    # Imported here, not at the top: devices.model is imported by catalog and peaks, which the
    # CPU and NVIDIA readers import in turn, and a package-level import would close that loop.
    from gpu_tui.core.devices.cpu import read_cpu
    from gpu_tui.core.devices.memory import read_memory
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
    return Inventory(
        cpu=read_cpu(),
        memory=read_memory(),
        accelerators=tuple(accelerators),
        backends=backends,
    )
