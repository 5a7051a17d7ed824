"""This machine's readings as Prometheus metric families, under dcgm-exporter's names and units.

Pure data in, pure data out (no HTTP, no prometheus_client): ``gpu-tui export`` hands these
families to its collector at each scrape, and tests read them directly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.model import Inventory
from gpu_tui.core.devices.nvml_util import _REASONS
from gpu_tui.core.fleet import dcgm_names
from gpu_tui.core.monitor.samples import Activity, GpuSample, MigSample, RemappedRows, Sample

_BIT_OF_WORD = {word: bit for bit, word in _REASONS}
_PEAK_PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "fp8")


@dataclass(frozen=True)
class GpuIdentity:
    """What labels a GPU's series (read once NVML answers, then fixed)."""

    index: int
    uuid: str
    pci_bus_id: str
    device: str
    model: str
    driver: str
    simulated: bool = False
    peak_tflops: dict[str, float] = field(default_factory=dict)
    peak_memory_bandwidth_bytes_per_second: float | None = None

    def labels(self, hostname: str) -> dict[str, str]:
        """dcgm-exporter's label set for this GPU on ``hostname``."""
        return {
            dcgm_names.LABEL_GPU: str(self.index),
            dcgm_names.LABEL_UUID: self.uuid,
            dcgm_names.LABEL_PCI: self.pci_bus_id,
            dcgm_names.LABEL_DEVICE: self.device,
            dcgm_names.LABEL_MODEL: self.model,
            dcgm_names.LABEL_HOSTNAME: hostname,
            dcgm_names.LABEL_DRIVER: self.driver,
        }


@dataclass
class Family:
    """One metric: name, help, type (``gauge`` or ``counter``) and its samples (labels, value).
    A counter keeps DCGM's name, which has no ``_total``: dashboards built for dcgm-exporter
    query it by that name."""

    name: str
    help: str
    type: str = "gauge"
    samples: list[tuple[dict[str, str], float]] = field(default_factory=list)


def _text(value: object) -> str:
    return "" if isinstance(value, Unknown) or value is None else str(value)


def identities(inventory: Inventory) -> tuple[GpuIdentity, ...]:
    """One identity per accelerator, in the sampler's slot order (real GPUs, then simulated)."""
    driver = (
        _text(inventory.backends["nvml"].details.get("driver_version", ""))
        if ("nvml" in inventory.backends)
        else ""
    )
    out = []
    for slot, gpu in enumerate(inventory.accelerators):
        peaks = {
            name: float(value)
            for name in _PEAK_PRECISIONS
            if not isinstance(value := getattr(gpu.peaks, f"{name}_tflops"), Unknown)
        }
        bandwidth = gpu.peaks.memory_bandwidth_gb_per_second
        out.append(
            GpuIdentity(
                index=slot,
                uuid=_text(gpu.uuid),
                pci_bus_id=_text(gpu.pci_bus_id),
                device=f"simulated{slot}" if gpu.simulated else f"nvidia{gpu.index}",
                model=gpu.name,
                driver="" if gpu.simulated else driver,
                simulated=gpu.simulated,
                peak_tflops=peaks,
                peak_memory_bandwidth_bytes_per_second=(
                    None if isinstance(bandwidth, Unknown) else float(bandwidth) * 1e9
                ),
            )
        )
    return tuple(out)


def reasons_mask(words: tuple[str, ...]) -> int:
    """NVML's clock-event bitmask back from the plain words the sampler keeps."""
    mask = 0
    for word in words:
        if word.startswith("other (0x") and word.endswith(")"):
            mask |= int(word[len("other (0x") : -1], 16)
        else:
            mask |= _BIT_OF_WORD.get(word, 0)
    if mask & 0xC0:
        mask |= 0x8  # NVML sets "hardware slowdown" with its specific causes
    return mask


def _number(value: object) -> float | None:
    if isinstance(value, Unknown) or value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def _ratio(percent: object) -> float | None:
    value = _number(percent)
    return None if value is None else value / 100


def _gpu_values(gpu: GpuSample) -> dict[str, float | None]:
    used = _number(gpu.memory_used_bytes)
    total = _number(gpu.memory_total_bytes)
    # Unknown on a driver without the _v2 memory call, which counts the reserve in used.
    reserved = _number(gpu.memory_reserved_bytes)
    free = None if used is None or total is None else total - used - (reserved or 0)
    reasons, rows, activity = gpu.throttle_reasons, gpu.remapped_rows, gpu.activity
    values: dict[str, float | None] = {
        dcgm_names.GPU_UTIL: _number(gpu.utilization_percent),
        dcgm_names.MEM_COPY_UTIL: _number(gpu.memory_utilization_percent),
        dcgm_names.ENC_UTIL: _number(gpu.encoder_percent),
        dcgm_names.DEC_UTIL: _number(gpu.decoder_percent),
        dcgm_names.FB_USED: None if used is None else round(used / dcgm_names.MIB),
        dcgm_names.FB_FREE: None if free is None else round(free / dcgm_names.MIB),
        dcgm_names.FB_RESERVED: None if reserved is None else round(reserved / dcgm_names.MIB),
        dcgm_names.GPU_TEMP: _number(gpu.temperature_c),
        dcgm_names.MEMORY_TEMP: _number(gpu.memory_temperature_c),
        dcgm_names.SLOWDOWN_TEMP: _number(gpu.temperature_slowdown_c),
        dcgm_names.POWER_USAGE: _number(gpu.power_watts),
        dcgm_names.TOTAL_ENERGY: _number(gpu.energy_millijoules),
        dcgm_names.ENFORCED_POWER_LIMIT: _number(gpu.power_limit_watts),
        dcgm_names.SM_CLOCK: _number(gpu.sm_clock_mhz),
        dcgm_names.MEM_CLOCK: _number(gpu.memory_clock_mhz),
        dcgm_names.MAX_SM_CLOCK: _number(gpu.max_sm_clock_mhz),
        dcgm_names.MAX_MEM_CLOCK: _number(gpu.max_memory_clock_mhz),
        dcgm_names.CLOCKS_EVENT_REASONS: (
            None if isinstance(reasons, Unknown) else float(reasons_mask(reasons))
        ),
        dcgm_names.XID_ERRORS: _number(gpu.last_xid),
        dcgm_names.PCIE_REPLAY: _number(gpu.pcie_replay_count),
        dcgm_names.PCIE_TX: _number(gpu.pcie_tx_bytes_per_second),
        dcgm_names.PCIE_RX: _number(gpu.pcie_rx_bytes_per_second),
        dcgm_names.NVLINK_TX: _number(gpu.nvlink_tx_bytes_per_second),
        dcgm_names.NVLINK_RX: _number(gpu.nvlink_rx_bytes_per_second),
        dcgm_names.ECC_SBE_VOLATILE: _number(gpu.ecc_errors_corrected),
        dcgm_names.ECC_DBE_VOLATILE: _number(gpu.ecc_errors_uncorrected),
    }
    if isinstance(rows, RemappedRows):
        values[dcgm_names.CORRECTABLE_REMAPPED_ROWS] = float(rows.correctable)
        values[dcgm_names.UNCORRECTABLE_REMAPPED_ROWS] = float(rows.uncorrectable)
        values[dcgm_names.ROW_REMAP_PENDING] = float(rows.pending)
        values[dcgm_names.ROW_REMAP_FAILURE] = float(rows.failed)
    if isinstance(activity, Activity):
        values.update(
            {
                dcgm_names.PROF_GR_ENGINE_ACTIVE: _ratio(activity.graphics_engine_percent),
                dcgm_names.PROF_SM_ACTIVE: _ratio(activity.sm_active_percent),
                dcgm_names.PROF_SM_OCCUPANCY: _ratio(activity.sm_occupancy_percent),
                dcgm_names.PROF_PIPE_TENSOR_ACTIVE: _ratio(activity.tensor_percent),
                dcgm_names.PROF_DRAM_ACTIVE: _ratio(activity.dram_percent),
                dcgm_names.PROF_PIPE_FP64_ACTIVE: _ratio(activity.fp64_percent),
                dcgm_names.PROF_PIPE_FP32_ACTIVE: _ratio(activity.fp32_percent),
                dcgm_names.PROF_PIPE_FP16_ACTIVE: _ratio(activity.fp16_percent),
            }
        )
    return values


def _mig_values(mig: MigSample) -> dict[str, float | None]:
    used, total = _number(mig.memory_used_bytes), _number(mig.memory_total_bytes)
    return {
        dcgm_names.FB_USED: None if used is None else round(used / dcgm_names.MIB),
        dcgm_names.FB_FREE: (
            None if used is None or total is None else round((total - used) / dcgm_names.MIB)
        ),
    }


HELP = {
    # dcgm-exporter's own words (etc/default-counters.csv), where it has the field.
    dcgm_names.GPU_UTIL: "GPU utilization (in %).",
    dcgm_names.MEM_COPY_UTIL: "Memory utilization (in %).",
    dcgm_names.ENC_UTIL: "Encoder utilization (in %).",
    dcgm_names.DEC_UTIL: "Decoder utilization (in %).",
    dcgm_names.FB_USED: "Framebuffer memory used (in MiB).",
    dcgm_names.FB_FREE: "Framebuffer memory free (in MiB).",
    dcgm_names.FB_RESERVED: "Framebuffer memory reserved (in MiB).",
    dcgm_names.GPU_TEMP: "GPU temperature (in C).",
    dcgm_names.MEMORY_TEMP: "Memory temperature (in C).",
    dcgm_names.SLOWDOWN_TEMP: "Slowdown temperature for the device (in C).",
    dcgm_names.POWER_USAGE: "Power draw (in W).",
    dcgm_names.TOTAL_ENERGY: "Total energy consumption since boot (in mJ).",
    dcgm_names.ENFORCED_POWER_LIMIT: "Effective power limit that the driver enforces (in W).",
    dcgm_names.SM_CLOCK: "SM clock frequency (in MHz).",
    dcgm_names.MEM_CLOCK: "Memory clock frequency (in MHz).",
    dcgm_names.MAX_SM_CLOCK: "Maximum supported SM clock for the device (in MHz).",
    dcgm_names.MAX_MEM_CLOCK: "Maximum supported memory clock for the device (in MHz).",
    dcgm_names.CLOCKS_EVENT_REASONS: "Current clock event reasons (NVML bitmask).",
    dcgm_names.XID_ERRORS: "Value of the last XID error encountered.",
    dcgm_names.PCIE_REPLAY: "Total number of PCIe retries.",
    dcgm_names.PCIE_TX: (
        "The rate of data transmitted over the PCIe bus - including both protocol headers "
        "and data payloads - in bytes per second."
    ),
    dcgm_names.PCIE_RX: (
        "The rate of data received over the PCIe bus - including both protocol headers and "
        "data payloads - in bytes per second."
    ),
    dcgm_names.NVLINK_TX: "The rate of data transmitted over NVLink, all links (in B/s).",
    dcgm_names.NVLINK_RX: "The rate of data received over NVLink, all links (in B/s).",
    dcgm_names.ECC_SBE_VOLATILE: "Total number of single-bit volatile ECC errors.",
    dcgm_names.ECC_DBE_VOLATILE: "Total number of double-bit volatile ECC errors.",
    dcgm_names.CORRECTABLE_REMAPPED_ROWS: "Number of remapped rows for correctable errors",
    dcgm_names.UNCORRECTABLE_REMAPPED_ROWS: "Number of remapped rows for uncorrectable errors",
    dcgm_names.ROW_REMAP_FAILURE: "Whether remapping of rows has failed",
    dcgm_names.ROW_REMAP_PENDING: "Whether a row remap is pending (takes effect at GPU reset)",
    dcgm_names.PROF_GR_ENGINE_ACTIVE: "Ratio of time the graphics engine is active.",
    dcgm_names.PROF_SM_ACTIVE: "The ratio of cycles an SM has at least 1 warp assigned.",
    dcgm_names.PROF_SM_OCCUPANCY: "The ratio of number of warps resident on an SM.",
    dcgm_names.PROF_PIPE_TENSOR_ACTIVE: "Ratio of cycles the tensor (HMMA) pipe is active.",
    dcgm_names.PROF_DRAM_ACTIVE: (
        "Ratio of cycles the device memory interface is active sending or receiving data."
    ),
    dcgm_names.PROF_PIPE_FP64_ACTIVE: "Ratio of cycles the fp64 pipes are active.",
    dcgm_names.PROF_PIPE_FP32_ACTIVE: "Ratio of cycles the fp32 pipes are active.",
    dcgm_names.PROF_PIPE_FP16_ACTIVE: "Ratio of cycles the fp16 pipes are active.",
    # gpu-tui's own.
    dcgm_names.PEAK_TFLOPS: (
        "Theoretical dense peak (in TFLOP/s) by precision, computed by gpu-tui."
    ),
    dcgm_names.PEAK_MEMORY_BANDWIDTH: (
        "Theoretical memory bandwidth (in bytes/s), computed by gpu-tui."
    ),
    dcgm_names.SIMULATED: "1 for gpu-tui's SIMULATED demo accelerator: its readings are made up.",
}
COUNTERS = frozenset(
    {
        dcgm_names.TOTAL_ENERGY,
        dcgm_names.PCIE_REPLAY,
        dcgm_names.ECC_SBE_VOLATILE,
        dcgm_names.ECC_DBE_VOLATILE,
        dcgm_names.CORRECTABLE_REMAPPED_ROWS,
        dcgm_names.UNCORRECTABLE_REMAPPED_ROWS,
    }
)
"""Typed ``counter``, as dcgm-exporter types them."""


def families(sample: Sample | None, gpus: tuple[GpuIdentity, ...], hostname: str) -> list[Family]:
    """Every family for one scrape. A reading that is unknown (or a GPU that is lost or whose
    reading is stale) is left out, as dcgm-exporter leaves out a field it cannot read: an
    absent series is honest, a made-up one is not."""
    out = {
        name: Family(name, text, "counter" if name in COUNTERS else "gauge")
        for name, text in HELP.items()
    }
    readings = sample.gpus if sample is not None else ()
    for slot, identity in enumerate(gpus):
        labels = identity.labels(hostname)
        out[dcgm_names.SIMULATED].samples.append((labels, 1.0 if identity.simulated else 0.0))
        for precision, tflops in identity.peak_tflops.items():
            out[dcgm_names.PEAK_TFLOPS].samples.append(({**labels, "precision": precision}, tflops))
        bandwidth = identity.peak_memory_bandwidth_bytes_per_second
        if bandwidth is not None:
            out[dcgm_names.PEAK_MEMORY_BANDWIDTH].samples.append((labels, bandwidth))
        if slot >= len(readings) or readings[slot].lost or readings[slot].stale:
            continue
        for name, value in _gpu_values(readings[slot]).items():
            if value is not None:
                out[name].samples.append((labels, value))
        for mig in readings[slot].mig_instances:
            # dcgm-exporter's MIG series: the GPU's labels, then the instance's profile and id.
            mig_labels = {
                **labels,
                dcgm_names.LABEL_MIG_PROFILE: mig.profile,
                dcgm_names.LABEL_MIG_INSTANCE: _text(mig.gpu_instance_id),
            }
            for name, value in _mig_values(mig).items():
                if value is not None:
                    out[name].samples.append((mig_labels, value))
    return list(out.values())
