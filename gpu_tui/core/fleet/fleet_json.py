"""A fleet snapshot as JSON (``gpu-tui fleet --json``), schema_version 2.

Units are in the field names (``_bytes``, ``_watts``, ``_c`` degrees Celsius, ``_mhz``,
``_percent``, ``_seconds``; times are Unix seconds); a field the exporter does not report is
``null``. ``nodes[].up`` is false when Prometheus's last scrape of the node's exporter failed
(its GPUs are then absent: their readings are no longer current), null when no target was found.
A MIG GPU lists its instances (``mig_instances``), each with its memory and workload; the GPU's
memory is theirs summed.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from gpu_tui.core.fleet import model
from gpu_tui.core.fleet.model import FleetGpu, FleetNode, FleetSnapshot, MigInstance

SCHEMA_VERSION = 2


def _age(now: float, then: float | None) -> float | None:
    return None if then is None else round(max(now - then, 0.0), 3)


def _workload_labels(namespace: str, pod: str, container: str) -> dict[str, str]:
    return {
        key: value
        for key, value in (("namespace", namespace), ("pod", pod), ("container", container))
        if value
    }


def mig_json(instance: MigInstance) -> dict[str, Any]:
    return {
        "instance_id": instance.instance_id,
        "profile": instance.profile or None,
        "memory_used_bytes": instance.memory_used_bytes,
        "memory_total_bytes": instance.memory_total_bytes,
        "labels": _workload_labels(instance.namespace, instance.pod, instance.container),
    }


def gpu_json(gpu: FleetGpu, now: float) -> dict[str, Any]:
    return {
        "gpu": gpu.gpu,
        "model": gpu.model or None,
        "uuid": gpu.uuid or None,
        "simulated": gpu.simulated,
        "utilization_percent": gpu.utilization_percent,
        "memory_used_bytes": gpu.memory_used_bytes,
        "memory_total_bytes": gpu.memory_total_bytes,
        "temperature_c": gpu.temperature_c,
        "temperature_slowdown_c": gpu.temperature_slowdown_c,
        "power_watts": gpu.power_watts,
        "power_limit_watts": gpu.power_limit_watts,
        "sm_clock_mhz": gpu.sm_clock_mhz,
        "clock_event_reasons": gpu.clock_event_reasons,
        "throttle_reasons": None if gpu.throttle_reasons is None else list(gpu.throttle_reasons),
        "xid_last": gpu.xid_last,
        "busy": gpu.busy,
        "hot": gpu.hot,
        "throttled": gpu.throttled,
        "erroring": gpu.erroring,
        "sample_age_seconds": _age(now, gpu.sample_time),
        "labels": {
            **{
                key: value for key, value in (("job", gpu.job), ("instance", gpu.instance)) if value
            },
            **_workload_labels(gpu.namespace, gpu.pod, gpu.container),
        },
        "mig_instances": [mig_json(instance) for instance in gpu.mig_instances],
    }


def node_json(node: FleetNode, now: float) -> dict[str, Any]:
    return {
        "node": node.name,
        "up": node.up,
        "instances": node.instances,
        "last_scrape_age_seconds": _age(now, node.last_scrape_time),
        "check": None
        if node.check_status is None
        else {
            "status": node.check_status,
            "age_seconds": _age(now, node.check_time),
            "problem": node.check_problem(now) or None,
        },
        "gpus": [gpu_json(gpu, now) for gpu in node.gpus],
    }


def snapshot_json(snapshot: FleetSnapshot) -> dict[str, Any]:
    """The whole document."""
    return {
        "schema_version": SCHEMA_VERSION,
        "prometheus": snapshot.prometheus,
        "timestamp": snapshot.time,
        "selector": snapshot.selector or None,
        "query_seconds": round(snapshot.query_seconds, 3),
        "thresholds": {
            "busy_utilization_percent": model.BUSY_PERCENT,
            "hot_margin_below_slowdown_c": model.HOT_MARGIN_C,
            "hot_c_without_slowdown": model.HOT_C,
            "throttle_reasons_mask": model.THROTTLE_MASK,
            "idle_window": snapshot.idle_window,
            "idle_max_utilization_percent": model.IDLE_MAX_UTIL,
            "idle_min_memory_used_bytes": int(model.IDLE_MIN_USED_MIB * 1024 * 1024),
        },
        "totals": asdict(snapshot.totals),
        "nodes": [node_json(node, snapshot.time) for node in snapshot.nodes],
        "idle_while_allocated": [asdict(gpu) for gpu in snapshot.idle_while_allocated],
    }
