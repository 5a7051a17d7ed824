"""A fleet at one instant: nodes, their GPUs, the totals, and the GPUs idle while allocated.

Built from the answers to ``queries`` (no I/O here); values in SI units, unknown is ``None``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpu_tui.core.devices.nvml_util import throttle_words
from gpu_tui.core.fleet import labels as naming
from gpu_tui.core.fleet.dcgm_names import LABEL_MIG_INSTANCE, LABEL_MIG_PROFILE, MIB
from gpu_tui.core.fleet.labels import NO_WORKLOAD, Workload, node_name
from gpu_tui.core.fleet.prom_api import Series
from gpu_tui.core.fleet.queries import INSTANCE_FIELDS

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
CHECK_STALE_SECONDS = 24 * 3600.0
"""A node's last ``gpu-tui check`` older than a day no longer vouches for it."""


@dataclass
class MigInstance:
    """One MIG instance of a GPU: its profile, its own memory and the workload holding it."""

    instance_id: str
    profile: str = ""
    memory_used_bytes: int | None = None
    memory_total_bytes: int | None = None
    namespace: str = ""
    pod: str = ""
    container: str = ""


@dataclass
class FleetGpu:
    """One GPU's latest readings (``None`` when its exporter does not report the field). A MIG
    GPU's memory is the sum of its instances' (``mig_instances``), each with its workload."""

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
    mig_instances: list[MigInstance] = field(default_factory=list)

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

    @property
    def pods(self) -> list[str]:
        """``namespace/pod`` of each workload holding the GPU: its own, then its MIG
        instances' (each once)."""
        found = [f"{self.namespace}/{self.pod}"] if self.pod else []
        for instance in self.mig_instances:
            name = f"{instance.namespace}/{instance.pod}"
            if instance.pod and name not in found:
                found.append(name)
        return found


@dataclass
class FleetNode:
    """A node: its GPUs, whether its exporter's target is up, and when it was last scraped."""

    name: str
    instances: list[str] = field(default_factory=list)
    up: bool | None = None
    """False: Prometheus's last scrape of it failed; None: no target found for it."""
    last_scrape_time: float | None = None
    gpus: list[FleetGpu] = field(default_factory=list)
    check_status: int | None = None
    """The last ``gpu-tui check``'s verdict (0 healthy, 1 failed, 2 could not check); None
    where no check was exported."""
    check_time: float | None = None

    def check_problem(self, now: float) -> str:
        """What is wrong with this node's last check, in words (empty when nothing is)."""
        if self.check_status is None:
            return ""
        if self.check_status == 1:
            return "check failed"
        if self.check_status == 2:
            return "check could not run"
        if self.check_time is not None and now - self.check_time > CHECK_STALE_SECONDS:
            return "check stale"
        return ""


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
TargetKey = tuple[str, str]
"""(``instance``, ``job``): one scrape target."""
_INSTANCES = "mig_instances"
"""In a GPU's attributes: its MIG instances' attributes by instance id, until ``_gpu`` makes
them ``MigInstance`` objects."""


def gpu_key(labels: dict[str, str]) -> GpuKey:
    return (node_name(labels), labels.get("gpu", "?"))


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
_LABELS = (("instance", "instance"), ("model", "modelName"), ("job", "job"))


def _fill(table: dict[GpuKey, dict[str, Any]], name: str, answer: list[Series]) -> None:
    """Put one field's answer into ``table`` (GPU → attributes); blank readings are left out.

    A thousand nodes answer some 90,000 series a refresh: the loop is kept tight (one lookup
    of the GPU, one comparison for a usable value)."""
    attribute, convert = _FIELDS[name]
    by_instance = name in INSTANCE_FIELDS
    for series in answer:
        labels = series.labels
        key = (  # gpu_key, inlined: this loop runs once per series of every answer
            labels.get("Hostname") or labels.get("hostname") or labels.get("instance") or "?",
            labels.get("gpu", "?"),
        )
        attributes = table.get(key)
        if attributes is None:
            attributes = table[key] = {"instance": labels.get("instance", "")}
        value = series.value
        if abs(value) < 1e15:  # False for NaN and Inf too
            kept = value if convert is None else convert(value)
            instance = labels.get(LABEL_MIG_INSTANCE) if by_instance else None
            if instance:
                attributes.setdefault(_INSTANCES, {}).setdefault(instance, {})[attribute] = kept
            else:
                attributes[attribute] = kept


def static_attributes(
    labels: list[Series], fields: dict[str, list[Series]]
) -> dict[GpuKey, dict[str, Any]]:
    """What changes rarely about each GPU, from the labels' answer and the static fields'
    (``queries.STATIC_FIELDS``): FleetGpu keyword arguments by GPU, a MIG instance's under its
    GPU's. Where a GPU (or instance) has several label sets (two pods, two jobs), the first
    non-empty value of each label is kept, and of the workload labels the most telling set
    (``labels.workload``)."""
    table: dict[GpuKey, dict[str, Any]] = {}
    ranks: dict[tuple[GpuKey, str], int] = {}
    for series in labels:
        found = series.labels
        key = gpu_key(found)
        attributes = table.setdefault(key, {})
        for attribute, label in _LABELS:
            value = found.get(label)
            if value and not attributes.get(attribute):
                attributes[attribute] = value
        if not attributes.get("uuid"):
            attributes["uuid"] = naming.uuid(found)
        instance = found.get(LABEL_MIG_INSTANCE, "")
        holder = attributes
        if instance:
            holder = attributes.setdefault(_INSTANCES, {}).setdefault(instance, {})
            holder.setdefault("profile", found.get(LABEL_MIG_PROFILE, ""))
        workload, rank = naming.workload(found)
        if rank < ranks.get((key, instance), len(naming.WORKLOAD_NAMINGS)):
            ranks[key, instance] = rank
            _set_workload(holder, workload)
    for name, answer in fields.items():
        _fill(table, name, answer)
    return table


def _held(workload: Workload, target: Workload | None) -> Workload:
    """``workload``, or none where it is the scrape target's own (the exporter pod's)."""
    if target is not None and workload[:2] == target[:2]:
        return NO_WORKLOAD
    return workload


def _workload_of(attributes: dict[str, Any]) -> Workload:
    return (
        attributes.get("namespace", ""),
        attributes.get("pod", ""),
        attributes.get("container", ""),
    )


def _set_workload(attributes: dict[str, Any], workload: Workload) -> None:
    attributes["namespace"], attributes["pod"], attributes["container"] = workload


def _gpu(
    key: GpuKey, known: dict[str, Any] | None, now: dict[str, Any], own: dict[TargetKey, Workload]
) -> FleetGpu:
    """One GPU from what the slow answers know of it (``known``) and the readings of now: its
    MIG instances' attributes merged by instance, its memory theirs summed where they have
    some, and a workload that is its exporter pod's own left out."""
    attributes = {**(known or {}), **now}
    instances: dict[str, dict[str, Any]] = {}
    for source in (known or {}, now):
        for instance, values in source.get(_INSTANCES, {}).items():
            instances.setdefault(instance, {}).update(values)
    attributes.pop(_INSTANCES, None)
    target = own.get((attributes.get("instance", ""), attributes.get("job", "")))
    _set_workload(attributes, _held(_workload_of(attributes), target))
    mig = []
    for instance, values in sorted(instances.items(), key=lambda item: _instance_order(item[0])):
        values = {**values}
        _set_workload(values, _held(_workload_of(values), target))
        mig.append(MigInstance(instance, **values))
    for attribute in ("memory_used_bytes", "memory_total_bytes"):
        each = [getattr(m, attribute) for m in mig if getattr(m, attribute) is not None]
        if each:  # the instances' memory, never with the GPU's own series on top
            attributes[attribute] = sum(each)
    return FleetGpu(key[0], key[1], **attributes, mig_instances=mig)


def _instance_order(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (1 << 30, name)


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
    checks: tuple[list[Series], list[Series]] = ([], []),
) -> FleetSnapshot:
    """Join the answers into nodes → GPUs (GPUs keyed by node and ``gpu`` label).

    ``fields`` are the readings of now; ``static`` may be older (see ``reader``), so a GPU it
    alone knows is kept only while its node is live (a reading now, or its target up): a node
    that went down keeps no GPUs, as its readings are no longer current. ``targets`` carry each
    target's own labels (``up``'s), to tell the exporter pod's labels from a workload's."""
    readings: dict[GpuKey, dict[str, Any]] = {}
    for name, answer in fields.items():
        _fill(readings, name, answer)
    live = {key[0] for key in readings} | {node_name(t.labels) for t in targets if t.value == 1}
    own: dict[TargetKey, Workload] = {}
    for target in targets:
        workload = naming.target_workload(target.labels)
        if workload[1]:
            own[target.labels.get("instance", ""), target.labels.get("job", "")] = workload
    gpus: dict[GpuKey, FleetGpu] = {}
    for key, attributes in readings.items():
        known = static.get(key)
        if known is not None:
            attributes.pop("instance", None)  # the labels' answer names it (readings may not)
        gpus[key] = _gpu(key, known, attributes, own)
    for key, known in static.items():
        if key not in gpus and key[0] in live:
            gpus[key] = _gpu(key, known, {}, own)

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
    statuses, times = checks
    for series in statuses:
        if node_name(series.labels) in nodes:
            nodes[node_name(series.labels)].check_status = int(series.value)
    for series in times:
        if node_name(series.labels) in nodes:
            nodes[node_name(series.labels)].check_time = series.value
    for node in nodes.values():
        node.gpus.sort(key=_gpu_sort_key)
    idle_gpus = sorted(
        (
            _idle(s, own)
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


def _idle(series: Series, own: dict[TargetKey, Workload]) -> IdleGpu:
    labels = series.labels
    job = labels.get("job", "")
    target = own.get((labels.get("instance", ""), job))
    namespace, pod, container = _held(naming.workload(labels)[0], target)
    return IdleGpu(
        node=node_name(labels),
        gpu=labels.get("gpu", "?"),
        max_utilization_percent=series.value,
        job=job,
        namespace=namespace,
        pod=pod,
        container=container,
    )
