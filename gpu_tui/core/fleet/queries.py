"""The PromQL gpu-tui asks a fleet: every aggregation is done by the server, one query per field.

Each per-GPU query is ``max by (Hostname, instance, gpu) (...)``, so the answer carries three
labels per GPU whatever the exporter adds, and a GPU exported twice (two pods sharing it) is one.
"""

from __future__ import annotations

import re

from gpu_tui.core.errors import UsageError
from gpu_tui.core.fleet import dcgm_names as m

GPU_KEY = ("Hostname", "instance", "gpu")
LABEL_KEYS = (*GPU_KEY, "job", m.LABEL_MODEL, m.LABEL_UUID, *m.WORKLOAD_LABELS)
DOWN_LOOKBACK = "1h"
"""How far back a target that is down now is remembered (its node is shown down, not dropped)."""

_MATCHER = re.compile(r'\s*[A-Za-z_][A-Za-z0-9_]*\s*(=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"\s*')


def check_selector(text: str | None) -> str:
    """``--match``: label matchers as in PromQL (``Hostname=~"gpu-.*",job="dcgm"``, braces
    optional) → the inside of the braces, or UsageError. Prometheus checks the regexes."""
    if not text or not text.strip():
        return ""
    inner = text.strip()
    if inner.startswith("{") and inner.endswith("}"):
        inner = inner[1:-1]
    parts = _split(inner)
    for part in parts:
        if not _MATCHER.fullmatch(part):
            raise UsageError(
                f'--match: not a label matcher: {part.strip()[:60]!r} (e.g. Hostname=~"gpu-.*")'
            )
    return ",".join(part.strip() for part in parts)


def _split(inner: str) -> list[str]:
    """Split on the commas outside quotes."""
    parts: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for char in inner:
        if escaped:
            escaped = False
        elif char == "\\" and quoted:
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    if quoted:
        raise UsageError("--match: a quoted value is not closed")
    parts.append("".join(current))
    return [part for part in parts if part.strip()]


def _by(labels: tuple[str, ...]) -> str:
    return ", ".join(labels)


def per_gpu(expression: str) -> str:
    return f"max by ({_by(GPU_KEY)}) ({expression})"


def field_queries(selector: str) -> dict[str, str]:
    """One instant query per field of the GPU table, keyed by the field they fill."""
    s = f"{{{selector}}}"

    def one(*names: str) -> str:
        return per_gpu(" or ".join(f"{name}{s}" for name in names))

    return {
        "utilization_percent": one(m.GPU_UTIL),
        "fb_used_mib": one(m.FB_USED),
        "fb_free_mib": one(m.FB_FREE),
        "temperature_c": one(m.GPU_TEMP),
        "temperature_slowdown_c": one(m.SLOWDOWN_TEMP),
        "power_watts": one(m.POWER_USAGE),
        "power_limit_watts": one(m.POWER_LIMIT, m.POWER_MGMT_LIMIT),
        "sm_clock_mhz": one(m.SM_CLOCK),
        "clock_event_reasons": one(m.CLOCKS_EVENT_REASONS, m.CLOCK_THROTTLE_REASONS),
        "xid_last": one(m.XID_ERRORS),
        "simulated": one(m.SIMULATED),
        "sample_time": per_gpu(f"timestamp({m.GPU_UTIL}{s})"),
    }


def labels_query(selector: str) -> str:
    """Who and what each GPU is: model, UUID, job and the pod labels where the exporter has them
    (``group``: the value is 1, only the labels matter)."""
    return f"group by ({_by(LABEL_KEYS)}) ({m.GPU_UTIL}{{{selector}}})"


def targets_query(selector: str) -> str:
    """``up`` and the last scrape time of every target that served GPU metrics in the last
    hour (so a target that is down now still shows, with the node it was). ``up`` has only the
    target's labels, so the GPU selector picks the targets through their past GPU series."""
    past = (
        f"group by (instance, job, Hostname) "
        f"(last_over_time({m.GPU_UTIL}{{{selector}}}[{DOWN_LOOKBACK}]))"
    )
    joined = f"up * on (instance, job) group_right {past}"
    if selector:
        return joined
    # Without a selector, also the targets of GPU jobs that are down and never served a GPU
    # series (e.g. down since Prometheus started): shown under their address.
    jobs = f"group by (job) (last_over_time({m.GPU_UTIL}[{DOWN_LOOKBACK}]))"
    never = f"(up == 0 unless on (instance, job) {past}) and on (job) {jobs}"
    return f"{joined} or {never}"


def scrape_time_query() -> str:
    return "timestamp(up)"


def idle_query(selector: str, window: str, max_util: float, min_used_mib: float) -> str:
    """GPUs holding at least ``min_used_mib`` all through ``window`` whose utilisation never
    rose above ``max_util`` in it; the value is that highest utilisation."""
    s = f"{{{selector}}}"
    keep = _by((*GPU_KEY, "job", *m.WORKLOAD_LABELS))
    busiest = f"max by ({keep}) (max_over_time({m.GPU_UTIL}{s}[{window}]))"
    least_held = f"max by ({keep}) (min_over_time({m.FB_USED}{s}[{window}]))"
    return f"({busiest} <= {max_util:g}) and on ({_by(GPU_KEY)}) ({least_held} >= {min_used_mib:g})"


def history_query(field_name: str, node: str) -> str:
    """One node's GPUs over time, for the pane's graphs (a range query)."""
    metric = {"utilization_percent": m.GPU_UTIL, "power_watts": m.POWER_USAGE}[field_name]
    escaped = node.replace("\\", "\\\\").replace('"', '\\"')
    return f'max by (gpu) ({metric}{{Hostname="{escaped}"}})'
