"""Discovering the topology: open NVML, read how the GPUs are connected, close it again.

Kept apart from ``topology`` (the data and the pure readers) so that the inventory model can
name ``Topology`` without depending on NVML loading, which itself reports through the model.
"""

from __future__ import annotations

import contextlib
from types import ModuleType

from gpu_tui.core.devices.nvml_guard import GATE, NotAnsweringError
from gpu_tui.core.devices.nvml_util import load_nvml
from gpu_tui.core.devices.topology import Topology, read_topology


def discover_topology(nvml: ModuleType | None = None) -> Topology | None:
    """Open NVML, read the topology, close it; None when NVML or two GPUs are not there.
    Bounded like every NVML read (``nvml_guard``): a driver that hangs gives None."""

    def job() -> Topology | None:
        module, _ = load_nvml(nvml)
        if module is None:
            return None
        try:
            return read_topology(module)
        finally:
            with contextlib.suppress(Exception):
                module.nvmlShutdown()

    try:
        return GATE.run(job)
    except NotAnsweringError:
        return None
