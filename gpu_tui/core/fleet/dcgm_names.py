"""Metric names, units and labels shared by ``gpu-tui export`` and the fleet queries.

GPU metrics carry NVIDIA dcgm-exporter's names and units, so dashboards built for it work
unchanged (https://github.com/NVIDIA/dcgm-exporter/blob/main/etc/default-counters.csv); what
DCGM has no field for is prefixed ``gpu_tui_``.
"""

from __future__ import annotations

# dcgm-exporter's own names (units as its counters file states them).
GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL"
"""GPU utilisation, %."""
MEM_COPY_UTIL = "DCGM_FI_DEV_MEM_COPY_UTIL"
"""Memory (copy engine) utilisation, %."""
ENC_UTIL = "DCGM_FI_DEV_ENC_UTIL"
DEC_UTIL = "DCGM_FI_DEV_DEC_UTIL"
FB_USED = "DCGM_FI_DEV_FB_USED"
"""Framebuffer memory used, MiB."""
FB_FREE = "DCGM_FI_DEV_FB_FREE"
"""Framebuffer memory free, MiB."""
FB_RESERVED = "DCGM_FI_DEV_FB_RESERVED"
"""Framebuffer memory the driver reserves, MiB: total = used + free + reserved."""
GPU_TEMP = "DCGM_FI_DEV_GPU_TEMP"
"""GPU temperature, °C."""
POWER_USAGE = "DCGM_FI_DEV_POWER_USAGE"
"""Power draw, W."""
SM_CLOCK = "DCGM_FI_DEV_SM_CLOCK"
"""SM clock, MHz."""
MEM_CLOCK = "DCGM_FI_DEV_MEM_CLOCK"
"""Memory clock, MHz."""
CLOCKS_EVENT_REASONS = "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"
"""Clock-event (throttle) reasons, NVML's bitmask; current DCGM's name."""
CLOCK_THROTTLE_REASONS = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"
"""The same bitmask under older DCGM's name (read, never written)."""
XID_ERRORS = "DCGM_FI_DEV_XID_ERRORS"
"""The value of the last XID error (0: none)."""
POWER_MGMT_LIMIT = "DCGM_FI_DEV_POWER_MGMT_LIMIT"
"""Power limit, W (not among dcgm-exporter's default counters; read when a site adds it)."""

# gpu-tui's own, for what dcgm-exporter's default counters lack.
POWER_LIMIT = "gpu_tui_power_limit_watts"
SLOWDOWN_TEMP = "gpu_tui_temperature_slowdown_celsius"
SM_CLOCK_MAX = "gpu_tui_sm_clock_max_mhz"
MEM_CLOCK_MAX = "gpu_tui_memory_clock_max_mhz"
ECC_UNCORRECTED = "gpu_tui_ecc_uncorrected_errors"
PEAK_TFLOPS = "gpu_tui_peak_dense_tflops"
"""Theoretical dense peak by ``precision`` label (fp32, tf32, fp16, bf16, fp8)."""
PEAK_MEMORY_BANDWIDTH = "gpu_tui_peak_memory_bandwidth_bytes_per_second"
SIMULATED = "gpu_tui_simulated"
"""1 on the ``--demo`` accelerator: its readings are made up, never a real GPU's."""

# Labels on every GPU series, as dcgm-exporter sets them.
LABEL_GPU = "gpu"
LABEL_UUID = "UUID"
LABEL_PCI = "pci_bus_id"
LABEL_DEVICE = "device"
LABEL_MODEL = "modelName"
LABEL_HOSTNAME = "Hostname"
LABEL_DRIVER = "DCGM_FI_DRIVER_VERSION"
GPU_LABELS = (
    LABEL_GPU,
    LABEL_UUID,
    LABEL_PCI,
    LABEL_DEVICE,
    LABEL_MODEL,
    LABEL_HOSTNAME,
    LABEL_DRIVER,
)
WORKLOAD_LABELS = ("namespace", "pod", "container")
"""Added by dcgm-exporter on Kubernetes (pod mapping); ``job`` and ``instance`` by Prometheus."""

MIB = 1024 * 1024
