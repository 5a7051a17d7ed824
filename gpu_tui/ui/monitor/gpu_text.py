"""Plain-words pieces of a GPU card: its short name, throttle reasons, readings against limits."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from rich.style import Style
from rich.text import Text

from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.monitor.history import GpuHistory
from gpu_tui.core.monitor.samples import GpuSample
from gpu_tui.core.units import (
    format_gigabytes,
    format_reading,
    format_reading_percent,
    format_temperature,
    temperature_symbol,
)
from gpu_tui.ui.monitor.draw import rate
from gpu_tui.ui.monitor.history_cells import HistoryCells, graph_block


def short_name(name: str) -> str:
    """Drop what every card would repeat: the vendor, and the SIMULATED suffix (a badge says it)."""
    name = name.removeprefix("NVIDIA ")
    return name.split(" (SIMULATED")[0]


def throttle_text(reasons: Maybe[tuple[str, ...]]) -> str:
    """Why the clocks are held back, in plain words (empty while running free)."""
    if isinstance(reasons, Unknown) or not reasons:
        return ""
    return ", ".join(reasons)


SHORT_REASONS = {
    "software thermal slowdown": "thermal",
    "hardware thermal slowdown": "thermal",
    "power cap": "power",
    "hardware power brake": "power",
    "hardware slowdown": "hardware",
    "application clock setting": "set clocks",
    "display clock setting": "set clocks",
    "sync boost": "sync",
    "board limit": "board",
    "reliability limit": "reliability",
}
"""One word per kind of reason, for a line with no room for the whole of them."""


def short_throttle_text(reasons: Maybe[tuple[str, ...]]) -> str:
    """``throttle_text`` in a word per kind (``thermal, power``), for a one-line card."""
    if isinstance(reasons, Unknown) or not reasons:
        return ""
    words = dict.fromkeys(SHORT_REASONS.get(reason, reason) for reason in reasons)
    return ", ".join(words)


def against(
    value: Maybe[float] | Maybe[int],
    limit: Maybe[float] | Maybe[int],
    unit: str,
    number: Callable[[Maybe[float] | Maybe[int]], str] = format_reading,
) -> str:
    """``612/700 W``: a reading over its limit, each written by ``number``; ``612 W`` where the
    GPU reports no limit (a ``63/– °C`` reads as two temperatures)."""
    if isinstance(limit, Unknown) and not isinstance(value, Unknown):
        return f"{number(value)}{unit}"
    return f"{number(value)}/{number(limit)}{unit}"


def temperature_against(gpu: GpuSample, gap: str = " ") -> str:
    """``63/87 °C`` (or ``145/189 °F``): the temperature over the slowdown threshold."""
    number = partial(format_temperature, symbol=False)
    unit = gap + temperature_symbol()
    return against(gpu.temperature_c, gpu.temperature_slowdown_c, unit, number)


def readings(gpu: GpuSample) -> dict[str, str]:
    """Each reading as the card prints it, against its limit where the GPU reports one."""
    return {
        "util": format_reading_percent(gpu.utilization_percent, width=5),
        "mem": format_reading_percent(gpu.memory_utilization_percent, width=5),
        "vram": format_gigabytes(gpu.memory_used_bytes, symbol=False)
        + "/"
        + format_gigabytes(gpu.memory_total_bytes)
        + reserved_text(gpu.memory_reserved_bytes),
        "temp": temperature_against(gpu),
        "power": against(gpu.power_watts, gpu.power_limit_watts, " W"),
        "sm": f"{format_reading(gpu.sm_clock_mhz)}/{format_reading(gpu.max_sm_clock_mhz)} MHz",
        "mclk": f"{format_reading(gpu.memory_clock_mhz)}/"
        f"{format_reading(gpu.max_memory_clock_mhz)} MHz",
    }


def reserved_text(reserved: Maybe[int]) -> str:
    """What the driver keeps for itself, apart from *used* as nvidia-smi counts it (shown only
    when there is some: a driver without ``_v2`` memory counts it as used)."""
    if isinstance(reserved, Unknown) or reserved <= 0:
        return ""
    return f", {format_gigabytes(reserved, symbol=False)} driver-reserved"


def nvlink_text(gpu: GpuSample) -> str:
    """NVLink traffic (empty for a GPU without NVLink, or before its second reading)."""
    rx, tx = gpu.nvlink_rx_bytes_per_second, gpu.nvlink_tx_bytes_per_second
    if isinstance(rx, Unknown) or isinstance(tx, Unknown):
        return ""
    return f"NVLink ↓{rate(rx)}↑{rate(tx)} GB/s"


def links_text(gpu: GpuSample, *, video: bool = True, fan: bool = True) -> str:
    """PCIe and NVLink traffic, video engines and fan, on one line (the last two only where
    ``video`` and ``fan`` ask for them)."""
    nvlink = nvlink_text(gpu)
    return (
        f"PCIe ↓{rate(gpu.pcie_rx_bytes_per_second)} ↑{rate(gpu.pcie_tx_bytes_per_second)} GB/s"
        + (f" · {nvlink}" if nvlink else "")
        + (
            f" · ENC {format_reading_percent(gpu.encoder_percent)}"
            f" DEC {format_reading_percent(gpu.decoder_percent)}"
            if video
            else ""
        )
        + (f" · fan {format_reading_percent(gpu.fan_percent)}" if fan else "")
    )


def tensor_text(gpu: GpuSample) -> str:
    """Beside GPU-Util: how busy the tensor cores really were (empty without GPM)."""
    activity = gpu.activity
    if isinstance(activity, Unknown) or isinstance(activity.tensor_percent, Unknown):
        return ""
    return f"tensor {format_reading_percent(activity.tensor_percent)}"


def activity_text(gpu: GpuSample, width: int | None = None) -> str:
    """What the chip did since the last reading (GPM), or why it cannot be shown. ``width``:
    as many figures as fit it whole, the most telling first (never one cut in half)."""
    activity = gpu.activity
    if isinstance(activity, Unknown):
        return f"what GPU-Util hides: {activity.reason}"
    parts = (
        ("tensor cores", activity.tensor_percent),
        ("SMs", activity.sm_active_percent),
        ("occupancy", activity.sm_occupancy_percent),
        ("memory BW", activity.dram_percent),
        ("FP32", activity.fp32_percent),
        ("FP16", activity.fp16_percent),
        ("FP64", activity.fp64_percent),
    )
    if all(isinstance(value, Unknown) for _, value in parts):
        return f"what GPU-Util hides: {activity.tensor_percent.reason}"  # type: ignore[union-attr]
    figures = [f"{name} {format_reading_percent(value)}" for name, value in parts]
    shown = figures[:1]
    for figure in figures[1:]:
        if width is not None and len(" · ".join([*shown, figure])) > width:
            break
        shown.append(figure)
    return " · ".join(shown)


def state_words(gpu: GpuSample) -> str:
    """What a card's title says when the reading is not live (empty when it is)."""
    if gpu.lost:
        return "LOST"
    if gpu.not_in_job:
        return "not in this job"
    return "STALE: the driver is not answering, last values shown" if gpu.stale else ""


def graphed(spare: int) -> tuple[str, ...]:
    """The readings ``history_graphs`` draws as graphs in ``spare`` rows: utilisation from 4,
    power too from 8."""
    if spare < 4:
        return ()
    return ("utilization_percent",) if spare < 8 else ("utilization_percent", "power_watts")


def history_graphs(
    history: GpuHistory,
    gpu: GpuSample,
    size: tuple[int, int],
    style: Callable[[str], Style],
    cells: HistoryCells,
    window: int,
) -> list[Text]:
    """Rows a card has to spare (few GPUs, big screen) become utilisation and power history
    over the last ``window`` ms, one time axis under both: ``size`` is (width, spare rows)."""
    width, spare = size
    drawn = graphed(spare)
    if not drawn:
        return []
    both = len(drawn) == 2
    util_rows = (spare - 3) * 2 // 3 if both else spare - 2
    power = history.power_watts
    top = f"{power.high:.0f}" if power.high else "?"
    busy = "GPU busy, %"
    if isinstance(gpu.utilization_percent, Unknown):
        busy += f" — not reported: {gpu.utilization_percent.reason}"
    util = history.utilization_percent
    size = (width, util_rows)
    lines = graph_block(busy, util, size, ("100", "50", "0"), style, cells, window, axis=not both)
    if both:
        rows = spare - 3 - util_rows
        caption = f"power, W of {top}"
        lines += graph_block(caption, power, (width, rows), (top, "", "0"), style, cells, window)
    return lines
