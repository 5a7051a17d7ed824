"""Metric names, units and labels shared by ``gpu-tui export`` and the fleet queries.

GPU metrics carry NVIDIA dcgm-exporter's names and units, so dashboards built for it work
unchanged (https://github.com/NVIDIA/dcgm-exporter/blob/main/etc/default-counters.csv); what
DCGM has no field for is prefixed ``gpu_tui_``.
"""

from __future__ import annotations

# dcgm-exporter's own names (units as its counters file states them); a counter's name has no
# ``_total`` in DCGM, and keeps none here so that dashboards built for it work.
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
MEMORY_TEMP = "DCGM_FI_DEV_MEMORY_TEMP"
"""Memory (HBM) temperature, °C."""
SLOWDOWN_TEMP = "DCGM_FI_DEV_SLOWDOWN_TEMP"
"""Temperature at which the GPU slows its clocks, °C."""
POWER_USAGE = "DCGM_FI_DEV_POWER_USAGE"
"""Power draw, W."""
TOTAL_ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
"""Energy since the driver loaded, mJ (a counter)."""
ENFORCED_POWER_LIMIT = "DCGM_FI_DEV_ENFORCED_POWER_LIMIT"
"""The power limit the GPU holds to, W."""
POWER_MGMT_LIMIT = "DCGM_FI_DEV_POWER_MGMT_LIMIT"
"""The management power limit, W (read by the fleet where a site exports it instead)."""
SM_CLOCK = "DCGM_FI_DEV_SM_CLOCK"
"""SM clock, MHz."""
MEM_CLOCK = "DCGM_FI_DEV_MEM_CLOCK"
"""Memory clock, MHz."""
MAX_SM_CLOCK = "DCGM_FI_DEV_MAX_SM_CLOCK"
MAX_MEM_CLOCK = "DCGM_FI_DEV_MAX_MEM_CLOCK"
CLOCKS_EVENT_REASONS = "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"
"""Clock-event (throttle) reasons, NVML's bitmask; current DCGM's name."""
CLOCK_THROTTLE_REASONS = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"
"""The same bitmask under older DCGM's name (read, never written)."""
XID_ERRORS = "DCGM_FI_DEV_XID_ERRORS"
"""The value of the last XID error (0: none)."""
PCIE_REPLAY = "DCGM_FI_DEV_PCIE_REPLAY_COUNTER"
"""PCIe retries (a counter)."""
PCIE_TX = "DCGM_FI_PROF_PCIE_TX_BYTES"
PCIE_RX = "DCGM_FI_PROF_PCIE_RX_BYTES"
"""PCIe traffic, bytes/s."""
NVLINK_TX = "DCGM_FI_PROF_NVLINK_TX_BYTES"
NVLINK_RX = "DCGM_FI_PROF_NVLINK_RX_BYTES"
"""NVLink traffic over all links, bytes/s."""
ECC_SBE_VOLATILE = "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL"
ECC_DBE_VOLATILE = "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"
"""Corrected (single-bit) and uncorrected (double-bit) ECC errors since the driver loaded."""
CORRECTABLE_REMAPPED_ROWS = "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS"
UNCORRECTABLE_REMAPPED_ROWS = "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS"
ROW_REMAP_FAILURE = "DCGM_FI_DEV_ROW_REMAP_FAILURE"
ROW_REMAP_PENDING = "DCGM_FI_DEV_ROW_REMAP_PENDING"
"""1 while a remap waits for the next GPU reset."""
PROF_GR_ENGINE_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
PROF_SM_ACTIVE = "DCGM_FI_PROF_SM_ACTIVE"
PROF_SM_OCCUPANCY = "DCGM_FI_PROF_SM_OCCUPANCY"
PROF_PIPE_TENSOR_ACTIVE = "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"
PROF_DRAM_ACTIVE = "DCGM_FI_PROF_DRAM_ACTIVE"
PROF_PIPE_FP64_ACTIVE = "DCGM_FI_PROF_PIPE_FP64_ACTIVE"
PROF_PIPE_FP32_ACTIVE = "DCGM_FI_PROF_PIPE_FP32_ACTIVE"
PROF_PIPE_FP16_ACTIVE = "DCGM_FI_PROF_PIPE_FP16_ACTIVE"
"""Activity ratios (0 to 1) that DCGM profiles and NVML's GPM reads on Hopper and newer."""

# gpu-tui's own, for what DCGM has no field for.
PEAK_TFLOPS = "gpu_tui_peak_dense_tflops"
"""Theoretical dense peak by ``precision`` label (fp32, tf32, fp16, bf16, fp8)."""
PEAK_MEMORY_BANDWIDTH = "gpu_tui_peak_memory_bandwidth_bytes_per_second"
SIMULATED = "gpu_tui_simulated"
"""1 on the ``--demo`` accelerator: its readings are made up, never a real GPU's."""
BUILD_INFO = "gpu_tui_build_info"
"""1, labelled with the gpu-tui version serving the page."""
LAST_READING = "gpu_tui_exporter_last_reading_timestamp_seconds"
"""When the newest reading served was taken (seconds since the epoch)."""
LAST_READ_DURATION = "gpu_tui_exporter_last_read_duration_seconds"
"""How long the GPUs took to answer the newest reading."""
CHECK_TIMESTAMP = "gpu_tui_check_timestamp_seconds"
"""When this node's last ``gpu-tui check`` ran."""
CHECK_STATUS = "gpu_tui_check_status"
"""Its verdict: 0 healthy, 1 a check failed, 2 could not check."""
CHECK_FAILURES = "gpu_tui_check_failures"
"""Failed checks of one GPU (GPU labels) or of the host (``Hostname`` only) in it."""
READ_ERRORS = "gpu_tui_exporter_read_errors_total"
"""Readings the driver refused or did not answer in time, since the exporter started."""

# Labels on every GPU series, as dcgm-exporter sets them.
LABEL_GPU = "gpu"
LABEL_UUID = "UUID"
LABEL_PCI = "pci_bus_id"
LABEL_DEVICE = "device"
LABEL_MODEL = "modelName"
LABEL_HOSTNAME = "Hostname"
"""dcgm-exporter releases up to 4.5 (and gpu-tui export); its main branch writes ``hostname``."""
LABEL_HOSTNAME_LOWER = "hostname"
LABEL_DRIVER = "DCGM_FI_DRIVER_VERSION"
LABEL_MIG_PROFILE = "GPU_I_PROFILE"
LABEL_MIG_INSTANCE = "GPU_I_ID"
"""On a MIG instance's series: its profile (``3g.40gb``) and GPU instance id."""
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
