"""The Fleet pane's view of one node, computed without a terminal: its title, and one row per GPU
with the current readings (the history graphs are drawn from ``history``)."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_tui.core.fleet.history import NodeHistory, gpu_order
from gpu_tui.core.fleet.model import FleetGpu, FleetNode
from gpu_tui.core.units import (
    format_age,
    format_gigabytes,
    format_reading_percent,
    format_temperature,
)

HEADERS = ("GPU", "Util", "History", "Memory", "Temp", "Power", "Flags", "Pod")
"""``History`` is the utilisation sparkline the pane draws; the other cells come from here."""


@dataclass(frozen=True)
class GpuRow:
    """One GPU of the node: its index, its readings now (``None`` when the last refresh had
    none, e.g. a GPU seen only in the history), and its flags."""

    gpu: str
    now: FleetGpu | None

    def cells(self) -> tuple[str, ...]:
        """Every cell but the sparkline, in ``HEADERS`` order without ``History``."""
        g = self.now
        if g is None:
            return (self.gpu, "?", "?", "?", "?", "no reading now", "")
        memory = (
            "?"
            if g.memory_used_bytes is None or not g.memory_total_bytes
            else f"{format_gigabytes(g.memory_used_bytes, '.0f', symbol=False)}/"
            f"{format_gigabytes(g.memory_total_bytes, '.0f', symbol=False)}G"
        )
        temp = format_temperature(g.temperature_c, symbol=False, unknown="?")
        if g.temperature_slowdown_c is not None:
            temp += "/" + format_temperature(g.temperature_slowdown_c, symbol=False)
        power = "?" if g.power_watts is None else f"{g.power_watts:.0f}"
        if g.power_limit_watts is not None:
            power += f"/{g.power_limit_watts:.0f}"
        return (
            self.gpu,
            "?" if g.utilization_percent is None else format_reading_percent(g.utilization_percent),
            memory,
            temp + "°" if g.temperature_c is not None else temp,
            power + "W" if g.power_watts is not None else power,
            self.flags,
            ", ".join(g.pods),
        )

    @property
    def flags(self) -> str:
        g = self.now
        if g is None:
            return ""
        words = []
        if g.hot:
            words.append("hot")
        if g.throttled:
            words.append("thr " + ",".join(g.throttle_reasons or ()))
        if g.erroring:
            words.append(f"xid{g.xid_last}")
        if g.simulated:
            words.append("SIM")
        return " ".join(words)

    @property
    def warn(self) -> bool:
        """Shown in the warning colour: hot, held back or with an XID."""
        return self.now is not None and (self.now.hot or self.now.throttled or self.now.erroring)


def gpu_rows(node: FleetNode | None, history: NodeHistory | None) -> list[GpuRow]:
    """Every GPU the node has now, and any the history holds that the last refresh did not
    (e.g. a node that went down: its GPUs' last minutes are still worth a look)."""
    now = {gpu.gpu: gpu for gpu in (node.gpus if node is not None else [])}
    names = set(now) | set(history.gpus if history is not None else ())
    return [GpuRow(name, now.get(name)) for name in sorted(names, key=gpu_order)]


def node_title(node: FleetNode, now: float) -> str:
    """``dgx-h03 · up, scraped 2s ago · 8 × H100 80GB HBM3 · 10.0.0.3:9400``"""
    state = {True: "up", False: "DOWN", None: "no target"}[node.up]
    scraped = None if node.last_scrape_time is None else max(now - node.last_scrape_time, 0)
    parts = [node.name, f"{state}, scraped {format_age(scraped)}"]
    models: dict[str, int] = {}
    for gpu in node.gpus:
        name = gpu.model.removeprefix("NVIDIA ") or "GPU"
        models[name] = models.get(name, 0) + 1
    if models:
        parts.append(", ".join(f"{count} × {model}" for model, count in models.items()))
    else:
        parts.append("no GPU series now")
    if node.instances:
        parts.append(" ".join(node.instances))
    return " · ".join(parts)
