"""Plain-words pieces of a GPU card: its short name, throttle reasons, readings against limits."""

from __future__ import annotations

from gpu_tui.core.fields import Maybe, Unknown
from gpu_tui.core.samples import GpuSample
from gpu_tui.ui.monitor.draw import gib, number, rate


def short_name(name: str) -> str:
    """Drop what every card would repeat: the vendor, and the SIMULATED suffix (a badge says it)."""
    name = name.removeprefix("NVIDIA ")
    return name.split(" (SIMULATED")[0]


def throttle_text(reasons: Maybe[tuple[str, ...]]) -> str:
    """Why the clocks are held back, in plain words (empty while running free)."""
    if isinstance(reasons, Unknown) or not reasons:
        return ""
    return ", ".join(reasons)


def readings(gpu: GpuSample) -> dict[str, str]:
    """Each reading as the card prints it, against its limit where the GPU reports one."""
    return {
        "util": number(gpu.utilization_percent, "3.0f", "%"),
        "mem": number(gpu.memory_utilization_percent, "3.0f", "%"),
        "vram": f"{gib(gpu.memory_used_bytes)}/{gib(gpu.memory_total_bytes)} GiB",
        "temp": f"{number(gpu.temperature_c)}/{number(gpu.temperature_slowdown_c)} °C",
        "power": f"{number(gpu.power_watts)}/{number(gpu.power_limit_watts)} W",
        "sm": f"{number(gpu.sm_clock_mhz)}/{number(gpu.sm_clock_max_mhz)} MHz",
        "mclk": f"{number(gpu.memory_clock_mhz)}/{number(gpu.memory_clock_max_mhz)} MHz",
    }


def links_text(gpu: GpuSample) -> str:
    """PCIe traffic, video engines and fan, on one line."""
    return (
        f"PCIe ↓{rate(gpu.pcie_rx_bytes_per_second)} ↑{rate(gpu.pcie_tx_bytes_per_second)} GB/s"
        f" · ENC {number(gpu.encoder_percent, '.0f', '%')}"
        f" DEC {number(gpu.decoder_percent, '.0f', '%')}"
        f" · fan {number(gpu.fan_percent, '.0f', '%')}"
    )


def state_words(gpu: GpuSample) -> str:
    """What a card's frame says when the reading is not live (empty when it is)."""
    if gpu.lost:
        return "LOST"
    return "STALE — the driver has not answered; last values shown" if gpu.stale else ""
