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
from gpu_tui.core.fleet import dcgm_names as m
from gpu_tui.core.monitor.samples import GpuSample, Sample

_BIT_OF_WORD = {word: bit for bit, word in _REASONS}
_PEAK_PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "fp8")


@dataclass(frozen=True)
class GpuIdentity:
    """What labels a GPU's series: fixed for the life of the exporter."""

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
            m.LABEL_GPU: str(self.index),
            m.LABEL_UUID: self.uuid,
            m.LABEL_PCI: self.pci_bus_id,
            m.LABEL_DEVICE: self.device,
            m.LABEL_MODEL: self.model,
            m.LABEL_HOSTNAME: hostname,
            m.LABEL_DRIVER: self.driver,
        }


@dataclass
class Family:
    """One metric: name, help, type (``gauge``) and its samples (labels, value)."""

    name: str
    help: str
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
        bandwidth = gpu.peaks.memory_bandwidth_gbps
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


def _gpu_values(gpu: GpuSample) -> dict[str, float | None]:
    used = _number(gpu.memory_used_bytes)
    total = _number(gpu.memory_total_bytes)
    # Unknown on a driver without the _v2 memory call, which counts the reserve in used.
    reserved = _number(gpu.memory_reserved_bytes)
    free = None if used is None or total is None else total - used - (reserved or 0)
    reasons = gpu.throttle_reasons
    return {
        m.GPU_UTIL: _number(gpu.utilization_percent),
        m.MEM_COPY_UTIL: _number(gpu.memory_utilization_percent),
        m.ENC_UTIL: _number(gpu.encoder_percent),
        m.DEC_UTIL: _number(gpu.decoder_percent),
        m.FB_USED: None if used is None else round(used / m.MIB),
        m.FB_FREE: None if free is None else round(free / m.MIB),
        m.FB_RESERVED: None if reserved is None else round(reserved / m.MIB),
        m.GPU_TEMP: _number(gpu.temperature_c),
        m.POWER_USAGE: _number(gpu.power_watts),
        m.SM_CLOCK: _number(gpu.sm_clock_mhz),
        m.MEM_CLOCK: _number(gpu.memory_clock_mhz),
        m.CLOCKS_EVENT_REASONS: (
            None if isinstance(reasons, Unknown) else float(reasons_mask(reasons))
        ),
        m.POWER_LIMIT: _number(gpu.power_limit_watts),
        m.SLOWDOWN_TEMP: _number(gpu.temperature_slowdown_c),
        m.SM_CLOCK_MAX: _number(gpu.sm_clock_max_mhz),
        m.MEM_CLOCK_MAX: _number(gpu.memory_clock_max_mhz),
        m.ECC_UNCORRECTED: _number(gpu.ecc_errors_uncorrected),
    }


HELP = {
    m.GPU_UTIL: "GPU utilization (in %).",
    m.MEM_COPY_UTIL: "Memory utilization (in %).",
    m.ENC_UTIL: "Encoder utilization (in %).",
    m.DEC_UTIL: "Decoder utilization (in %).",
    m.FB_USED: "Framebuffer memory used (in MiB).",
    m.FB_FREE: "Framebuffer memory free (in MiB).",
    m.FB_RESERVED: "Framebuffer memory reserved (in MiB).",
    m.GPU_TEMP: "GPU temperature (in C).",
    m.POWER_USAGE: "Power draw (in W).",
    m.SM_CLOCK: "SM clock frequency (in MHz).",
    m.MEM_CLOCK: "Memory clock frequency (in MHz).",
    m.CLOCKS_EVENT_REASONS: "Current clock event reasons (NVML bitmask).",
    m.POWER_LIMIT: "Enforced power limit (in W), read by gpu-tui.",
    m.SLOWDOWN_TEMP: "Temperature at which the GPU slows down (in C), read by gpu-tui.",
    m.SM_CLOCK_MAX: "Maximum SM clock (in MHz), read by gpu-tui.",
    m.MEM_CLOCK_MAX: "Maximum memory clock (in MHz), read by gpu-tui.",
    m.ECC_UNCORRECTED: "Uncorrected ECC errors since the driver loaded, read by gpu-tui.",
    m.PEAK_TFLOPS: "Theoretical dense peak (in TFLOP/s) by precision, computed by gpu-tui.",
    m.PEAK_MEMORY_BANDWIDTH: "Theoretical memory bandwidth (in bytes/s), computed by gpu-tui.",
    m.SIMULATED: "1 for gpu-tui's SIMULATED demo accelerator: its readings are made up.",
}


def families(sample: Sample | None, gpus: tuple[GpuIdentity, ...], hostname: str) -> list[Family]:
    """Every family for one scrape. A reading that is unknown (or a GPU that is lost or whose
    reading is stale) is left out, as dcgm-exporter leaves out a field it cannot read: an
    absent series is honest, a made-up one is not."""
    out = {name: Family(name, text) for name, text in HELP.items()}
    readings = sample.gpus if sample is not None else ()
    for slot, identity in enumerate(gpus):
        labels = identity.labels(hostname)
        out[m.SIMULATED].samples.append((labels, 1.0 if identity.simulated else 0.0))
        for precision, tflops in identity.peak_tflops.items():
            out[m.PEAK_TFLOPS].samples.append(({**labels, "precision": precision}, tflops))
        bandwidth = identity.peak_memory_bandwidth_bytes_per_second
        if bandwidth is not None:
            out[m.PEAK_MEMORY_BANDWIDTH].samples.append((labels, bandwidth))
        if slot >= len(readings) or readings[slot].lost or readings[slot].stale:
            continue
        for name, value in _gpu_values(readings[slot]).items():
            if value is not None:
                out[name].samples.append((labels, value))
    return list(out.values())
