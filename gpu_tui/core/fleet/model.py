"""A fleet at one instant: nodes, their GPUs, the totals, and the GPUs idle while allocated.

Built from the answers to ``queries`` (no I/O here); values in SI units, unknown is ``None``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpu_tui.core.devices.nvml_util import throttle_words
from gpu_tui.core.fleet.dcgm_names import MIB
from gpu_tui.core.fleet.prom_api import Series

BUSY_PERCENT = 5.0
"""At or above this utilisation a GPU counts as busy."""
HOT_MARGIN_C = 5.0
"""Hot: within this many °C of the GPU's slowdown temperature ..."""
HOT_C = 85.0
"""... or, when the exporter does not say its slowdown temperature, at or above this."""
THROTTLE_MASK = 0x4 | 0x8 | 0x20 | 0x40 | 0x80 | 0x200 | 0x400
"""Clock-event reasons that mean held back: power cap, hardware and thermal slowdowns, power
brake, board and reliability limits (not idle, application clocks, sync boost or display)."""
IDLE_MAX_UTIL = 1.0
IDLE_MIN_USED_MIB = 1024.0


@dataclass
class FleetGpu:
    """One GPU's latest readings (``None`` when its exporter does not report the field)."""

    node: str
    gpu: str
    model: str = ""
    uuid: str = ""
    job: str = ""
    instance: str = ""
    namespace: str = ""
    pod: str = ""
    container: str = ""
    simulated: bool = False
    utilization_percent: float | None = None
    memory_used_bytes: int | None = None
    memory_total_bytes: int | None = None
    temperature_c: float | None = None
    temperature_slowdown_c: float | None = None
    power_watts: float | None = None
    power_limit_watts: float | None = None
    sm_clock_mhz: float | None = None
    clock_event_reasons: int | None = None
    xid_last: int | None = None
    sample_time: float | None = None

    @property
    def busy(self) -> bool:
        return self.utilization_percent is not None and self.utilization_percent >= BUSY_PERCENT

    @property
    def hot(self) -> bool:
        if self.temperature_c is None:
            return False
        if self.temperature_slowdown_c is not None:
            return self.temperature_c >= self.temperature_slowdown_c - HOT_MARGIN_C
        return self.temperature_c >= HOT_C

    @property
    def throttled(self) -> bool:
        return bool((self.clock_event_reasons or 0) & THROTTLE_MASK)

    @property
    def throttle_reasons(self) -> tuple[str, ...] | None:
        if self.clock_event_reasons is None:
            return None
        held = self.clock_event_reasons & THROTTLE_MASK
        return throttle_words(held | (0x8 if held & 0xC0 else 0)) if held else ()

    @property
    def erroring(self) -> bool:
        return bool(self.xid_last)


@dataclass
class FleetNode:
    """A node: its GPUs, whether its exporter's target is up, and when it was last scraped."""

    name: str
    instances: list[str] = field(default_factory=list)
    up: bool | None = None
    """False: Prometheus's last scrape of it failed; None: no target found for it."""
    last_scrape_time: float | None = None
    gpus: list[FleetGpu] = field(default_factory=list)


@dataclass(frozen=True)
class IdleGpu:
    """A GPU holding memory with ~0 utilisation for the whole window."""

    node: str
    gpu: str
    max_utilization_percent: float
    job: str = ""
    namespace: str = ""
    pod: str = ""
    container: str = ""


@dataclass(frozen=True)
class Totals:
    nodes: int
    nodes_down: int
    gpus: int
    busy: int
    idle: int
    hot: int
    throttled: int
    erroring: int
    idle_while_allocated: int


@dataclass
class FleetSnapshot:
    """Everything one refresh learned."""

    prometheus: str
    time: float
    selector: str
    idle_window: str
    nodes: list[FleetNode]
    idle_while_allocated: list[IdleGpu]
    query_seconds: float = 0.0

    @property
    def totals(self) -> Totals:
        gpus = [gpu for node in self.nodes for gpu in node.gpus]
        return Totals(
            nodes=len(self.nodes),
            nodes_down=sum(1 for node in self.nodes if node.up is False),
            gpus=len(gpus),
            busy=sum(1 for gpu in gpus if gpu.busy),
            idle=sum(1 for gpu in gpus if gpu.utilization_percent is not None and not gpu.busy),
            hot=sum(1 for gpu in gpus if gpu.hot),
            throttled=sum(1 for gpu in gpus if gpu.throttled),
            erroring=sum(1 for gpu in gpus if gpu.erroring),
            idle_while_allocated=len(self.idle_while_allocated),
        )


GpuKey = tuple[str, str]
"""(node, ``gpu`` label): what names a GPU across the answers."""


def node_name(labels: dict[str, str]) -> str:
    """The node a series belongs to: dcgm-exporter's ``Hostname``, else the scrape target."""
    return labels.get("Hostname") or labels.get("instance") or "?"


def gpu_key(labels: dict[str, str]) -> GpuKey:
    return (labels.get("Hostname") or labels.get("instance") or "?", labels.get("gpu", "?"))


def _gpu_sort_key(gpu: FleetGpu) -> tuple[int, str]:
    return (int(gpu.gpu), "") if gpu.gpu.isdigit() else (1 << 30, gpu.gpu)


def _mib(value: float) -> int:
    return round(value * MIB)


_FIELDS: dict[str, tuple[str, Callable[[float], object] | None]] = {
    "utilization_percent": ("utilization_percent", None),
    "fb_used_mib": ("memory_used_bytes", _mib),
    "fb_total_mib": ("memory_total_bytes", _mib),
    "temperature_c": ("temperature_c", None),
    "temperature_slowdown_c": ("temperature_slowdown_c", None),
    "power_watts": ("power_watts", None),
    "power_limit_watts": ("power_limit_watts", None),
    "sm_clock_mhz": ("sm_clock_mhz", None),
    "clock_event_reasons": ("clock_event_reasons", int),
    "xid_last": ("xid_last", int),
    "simulated": ("simulated", lambda value: value > 0),
    "sample_time": ("sample_time", None),
}
"""Each field's answer: the FleetGpu attribute it sets, and how its value is turned into it."""
_LABELS = (
    ("instance", "instance"),
    ("model", "modelName"),
    ("uuid", "UUID"),
    ("job", "job"),
    ("namespace", "namespace"),
    ("pod", "pod"),
    ("container", "container"),
)


def _fill(table: dict[GpuKey, dict[str, Any]], name: str, answer: list[Series]) -> None:
    """Put one field's answer into ``table`` (GPU → attributes); blank readings are left out.

    A thousand nodes answer some 90,000 series a refresh: the loop is kept tight (one lookup
    of the GPU, one comparison for a usable value)."""
    attribute, convert = _FIELDS[name]
    for series in answer:
        labels = series.labels
        key = (labels.get("Hostname") or labels.get("instance") or "?", labels.get("gpu", "?"))
        attributes = table.get(key)
        if attributes is None:
            attributes = table[key] = {"instance": labels.get("instance", "")}
        value = series.value
        if abs(value) < 1e15:  # False for NaN and Inf too
            attributes[attribute] = value if convert is None else convert(value)


def static_attributes(
    labels: list[Series], fields: dict[str, list[Series]]
) -> dict[GpuKey, dict[str, Any]]:
    """What changes rarely about each GPU, from the labels' answer and the static fields'
    (``queries.STATIC_FIELDS``): FleetGpu keyword arguments by GPU. Where a GPU has several
    label sets (two pods, two jobs), the first non-empty value of each label is kept."""
    table: dict[GpuKey, dict[str, Any]] = {}
    for series in labels:
        attributes = table.setdefault(gpu_key(series.labels), {})
        for attribute, label in _LABELS:
            value = series.labels.get(label)
            if value and not attributes.get(attribute):
                attributes[attribute] = value
    for name, answer in fields.items():
        _fill(table, name, answer)
    return table


def build_snapshot(
    *,
    prometheus: str,
    at: float,
    selector: str,
    idle_window: str,
    fields: dict[str, list[Series]],
    static: dict[GpuKey, dict[str, Any]],
    targets: list[Series],
    scrapes: list[Series],
    idle: list[Series],
) -> FleetSnapshot:
    """Join the answers into nodes → GPUs (GPUs keyed by node and ``gpu`` label).

    ``fields`` are the readings of now; ``static`` may be older (see ``reader``), so a GPU it
    alone knows is kept only while its node is live (a reading now, or its target up): a node
    that went down keeps no GPUs, as its readings are no longer current."""
    readings: dict[GpuKey, dict[str, Any]] = {}
    for name, answer in fields.items():
        _fill(readings, name, answer)
    live = {key[0] for key in readings} | {node_name(t.labels) for t in targets if t.value == 1}
    gpus: dict[GpuKey, FleetGpu] = {}
    for key, attributes in readings.items():
        known = static.get(key)
        if known is not None:
            attributes.pop("instance", None)  # the labels' answer names it (readings may not)
            attributes = {**known, **attributes}
        gpus[key] = FleetGpu(key[0], key[1], **attributes)
    for key, known in static.items():
        if key not in gpus and key[0] in live:
            gpus[key] = FleetGpu(key[0], key[1], **known)

    nodes: dict[str, FleetNode] = {}
    for gpu in gpus.values():
        nodes.setdefault(gpu.node, FleetNode(gpu.node)).gpus.append(gpu)
    scrape_times = {
        (s.labels.get("instance", ""), s.labels.get("job", "")): s.value for s in scrapes
    }
    for series in targets:
        node = nodes.setdefault(node_name(series.labels), FleetNode(node_name(series.labels)))
        instance = series.labels.get("instance", "")
        if instance and instance not in node.instances:
            node.instances.append(instance)
        is_up = series.value == 1
        node.up = is_up if node.up is None else (node.up and is_up)
        stamp = scrape_times.get((instance, series.labels.get("job", "")))
        if stamp is not None and (node.last_scrape_time is None or stamp < node.last_scrape_time):
            node.last_scrape_time = stamp  # the stalest of its targets
    for node in nodes.values():
        node.gpus.sort(key=_gpu_sort_key)
    idle_gpus = sorted(
        (
            IdleGpu(
                node=node_name(s.labels),
                gpu=s.labels.get("gpu", "?"),
                max_utilization_percent=s.value,
                job=s.labels.get("job", ""),
                namespace=s.labels.get("namespace", ""),
                pod=s.labels.get("pod", ""),
                container=s.labels.get("container", ""),
            )
            for s in idle
            if gpu_key(s.labels) in gpus  # not a GPU that is gone, whose window still holds it
        ),
        key=lambda g: (g.node, int(g.gpu) if g.gpu.isdigit() else 1 << 30, g.gpu),
    )
    return FleetSnapshot(
        prometheus=prometheus,
        time=at,
        selector=selector,
        idle_window=idle_window,
        nodes=sorted(nodes.values(), key=lambda n: n.name),
        idle_while_allocated=idle_gpus,
    )
