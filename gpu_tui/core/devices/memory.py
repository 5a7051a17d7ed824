"""System memory and swap, from psutil."""

from __future__ import annotations

import psutil

from gpu_tui.core.devices.model import MemoryInfo


def read_memory() -> MemoryInfo:
    """Total and available memory, and swap, in bytes."""
    virtual = psutil.virtual_memory()
    swap = psutil.swap_memory()
    return MemoryInfo(
        total_bytes=int(virtual.total),
        available_bytes=int(virtual.available),
        swap_total_bytes=int(swap.total),
        swap_used_bytes=int(swap.used),
    )
