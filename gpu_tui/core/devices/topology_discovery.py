"""Discovering the topology: read how the GPUs are connected, through this process's NVML.

Kept apart from ``topology`` (the data and the pure readers) so that the inventory model can
name ``Topology`` without depending on NVML loading, which itself reports through the model.
"""

from __future__ import annotations

from types import ModuleType

from gpu_tui.core.devices.nvml_guard import GATE, NotAnsweringError
from gpu_tui.core.devices.nvml_process import open_nvml
from gpu_tui.core.devices.topology import Topology, read_topology


def discover_topology(nvml: ModuleType | None = None) -> Topology | None:
    """The topology; None when NVML or two GPUs are not there. Bounded like every NVML read
    (``nvml_guard``): a driver that hangs gives None."""

    def job() -> Topology | None:
        module, _ = open_nvml(nvml)
        return None if module is None else read_topology(module)

    try:
        return GATE.run(job)
    except NotAnsweringError:
        return None
