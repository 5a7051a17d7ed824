"""A plausible GpuSample (an H100 under load) for sampler, history and watch tests to vary."""

from __future__ import annotations

import dataclasses
from typing import Any

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.monitor.samples import Activity, GpuSample, RemappedRows

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
        max_sm_clock_mhz=1980.0,
        memory_clock_mhz=2619.0,
        max_memory_clock_mhz=2619.0,
        fan_percent=NOT_SUPPORTED,
        pcie_rx_bytes_per_second=1e9,
        pcie_tx_bytes_per_second=2e8,
        encoder_percent=0.0,
        decoder_percent=0.0,
        ecc_errors_uncorrected=0,
        throttle_reasons=(),
        processes=(),
        memory_reserved_bytes=531 << 20,
        memory_temperature_c=54.0,
        energy_millijoules=3_600_000_000,
        ecc_errors_corrected=0,
        pcie_replay_count=0,
        remapped_rows=RemappedRows(0, 0, pending=False, failed=False),
        last_xid=0,
        nvlink_rx_bytes_per_second=12e9,
        nvlink_tx_bytes_per_second=11e9,
        activity=Activity(
            graphics_engine_percent=50.0,
            sm_active_percent=38.0,
            sm_occupancy_percent=21.0,
            tensor_percent=12.0,
            dram_percent=30.0,
            fp64_percent=0.0,
            fp32_percent=4.0,
            fp16_percent=1.0,
        ),
    )
    return dataclasses.replace(base, **changes)
