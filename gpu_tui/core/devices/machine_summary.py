"""This machine in a few short lines: the CPU, memory, GPUs grouped by model with their memory
and dense BF16 peak (no 2:4 sparsity) in all, how the GPUs are linked, and the driver. The Specs
pane shows it under its device list on a wide screen, where the list alone would leave the
column empty."""

from __future__ import annotations

from collections import Counter

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.model import Inventory
from gpu_tui.core.units import format_bytes, format_rounded


def machine_summary(inventory: Inventory) -> list[tuple[str, str]]:
    """(label, value) lines; a label left empty continues the line above."""
    cpu = inventory.cpu
    cores = cpu.logical_cores if isinstance(cpu.physical_cores, Unknown) else cpu.physical_cores
    lines = [
        ("CPU", cpu.model),
        ("", f"{cores} core{'s' if cores != 1 else ''}"),
        ("RAM", format_bytes(inventory.memory.total_bytes)),
    ]
    gpus = [gpu for gpu in inventory.accelerators if not gpu.lost]
    for name, count in Counter(gpu.name.removeprefix("NVIDIA ") for gpu in gpus).items():
        lines.append(("GPUs" if len(lines) == 3 else "", f"{count} × {name}"))
    memory = [gpu.memory_total_bytes for gpu in gpus]
    if len(gpus) > 1 and all(isinstance(size, int) for size in memory):
        lines.append(("", f"{format_bytes(sum(memory))} in all"))  # type: ignore[arg-type]
    bf16 = [gpu.peaks.bf16_tflops for gpu in gpus]
    if gpus and all(isinstance(peak, int | float) for peak in bf16):
        total = sum(bf16)  # type: ignore[arg-type]
        lines.append(("", f"{format_rounded(total)} TFLOP/s BF16"))
    lost = len(inventory.accelerators) - len(gpus)
    if lost:
        lines.append(("", f"{lost} lost (see its entry)"))
    links = _links(inventory)
    if links:
        lines.append(("Links", links))
    nvml = inventory.backends.get("nvml")
    if nvml is not None and "driver_version" in nvml.details:
        cuda = nvml.details.get("cuda_driver_version")
        lines.append(("Driver", nvml.details["driver_version"]))
        if cuda:
            lines.append(("", f"CUDA up to {cuda}"))
    return lines


def _links(inventory: Inventory) -> str:
    """How the GPUs reach each other, in words, for two or more."""
    topology = inventory.topology
    if topology is None or len(topology.gpus) < 2:
        return ""
    first = topology.gpus[0]
    if all(gpu.to_switch for gpu in topology.gpus):
        version = f" {first.nvlink_version}" if first.nvlink_version else ""
        return f"NVLink{version} via NVSwitch"
    if any(gpu.nvlink_active for gpu in topology.gpus):
        return "NVLink between some pairs"
    return "PCIe only, no NVLink"
