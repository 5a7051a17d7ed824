"""A detected accelerator for Guide tests: every reading unknown unless the test sets it."""

from __future__ import annotations

from dataclasses import MISSING, fields, replace

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.model import Accelerator, unknown_peaks


def make_device(
    *, memory: int | None, bandwidth_gbps: float | None, simulated: bool = False
) -> Accelerator:
    """An "NVIDIA H200" found by NVML with only memory and bandwidth known."""
    missing = Unknown("not read in this test")
    peaks = unknown_peaks("test")
    if bandwidth_gbps is not None:
        peaks = replace(
            peaks,
            memory_bandwidth_gb_per_second=bandwidth_gbps,
            basis={"memory_bandwidth_gb_per_second": "3201 MHz × 6144 bit × 2 / 8"},
        )
    # Fields with defaults (lost, MIG instances) keep them; every reading is unknown by default.
    required = (f for f in fields(Accelerator) if f.default is MISSING)
    values: dict[str, object] = {f.name: missing for f in required if f.default_factory is MISSING}
    values.update(
        index=0,
        name="NVIDIA H200",
        vendor="NVIDIA",
        backend="nvml",
        simulated=simulated,
        memory_total_bytes=missing if memory is None else memory,
        peaks=peaks,
        datasheet=None,
    )
    return Accelerator(**values)  # type: ignore[arg-type]
