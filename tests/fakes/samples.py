"""A plausible GpuSample (an H100 under load) for sampler, history and watch tests to vary."""

from __future__ import annotations

import dataclasses
from typing import Any

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.monitor.samples import GpuSample

NOT_SUPPORTED = Unknown("not supported by this GPU")


def gpu_sample(index: int = 0, **changes: Any) -> GpuSample:
    """An H100-like reading; ``changes`` replace any field."""
    base = GpuSample(
        index=index,
        utilization_percent=50.0,
        memory_utilization_percent=20.0,
        memory_used_bytes=8 << 30,
        memory_total_bytes=80 << 30,
        temperature_c=61.0,
        temperature_slowdown_c=87.0,
        power_watts=250.0,
        power_limit_watts=700.0,
        sm_clock_mhz=1755.0,
        sm_clock_max_mhz=1980.0,
        memory_clock_mhz=2619.0,
        memory_clock_max_mhz=2619.0,
        fan_percent=NOT_SUPPORTED,
        pcie_rx_bytes_per_second=1e9,
        pcie_tx_bytes_per_second=2e8,
        encoder_percent=0.0,
        decoder_percent=0.0,
        ecc_errors_uncorrected=0,
        throttle_reasons=(),
        processes=(),
        memory_reserved_bytes=531 << 20,
    )
    return dataclasses.replace(base, **changes)
