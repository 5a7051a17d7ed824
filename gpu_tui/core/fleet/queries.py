"""The PromQL gpu-tui asks a fleet: every aggregation is done by the server, one query per field.

Each per-GPU query is ``max by (Hostname, instance, gpu) (...)``, so the answer carries three
labels per GPU whatever the exporter adds, and a GPU exported twice (two pods sharing it) is one;
the readings asked at every refresh carry two (``reading``).

The queries come in two kinds (``reader`` asks the slow ones less often in the pane): instant
lookups of what changes at every scrape (``DYNAMIC_FIELDS``, ``up``), and what changes rarely or
looks back over a window (``STATIC_FIELDS``, labels, each target's node, idle while allocated).
At a thousand nodes the second kind is most of the server's work and of the bytes sent.
"""

from __future__ import annotations

import re

from gpu_tui.core.errors import UsageError
from gpu_tui.core.fleet import dcgm_names

GPU_KEY = ("Hostname", "instance", "gpu")
LABEL_KEYS = (
    *GPU_KEY,
    "job",
    dcgm_names.LABEL_MODEL,
    dcgm_names.LABEL_UUID,
    *dcgm_names.WORKLOAD_LABELS,
)
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


DYNAMIC_FIELDS = (
    "utilization_percent",
    "fb_used_mib",
    "temperature_c",
    "power_watts",
    "sm_clock_mhz",
    "clock_event_reasons",
    "xid_last",
    "sample_time",
)
"""Fields that change at every scrape."""
STATIC_FIELDS = ("fb_total_mib", "temperature_slowdown_c", "power_limit_watts", "simulated")
"""Fields that change rarely, if ever: the GPU's size and limits."""
PANE_FIELDS = frozenset(DYNAMIC_FIELDS + STATIC_FIELDS) - {"sm_clock_mhz", "sample_time"}
"""What the Fleet pane shows (the clock and each GPU's sample age are ``--json`` only)."""


def _with(matcher: str, selector: str) -> str:
    return f"{{{matcher},{selector}}}" if selector else f"{{{matcher}}}"


def reading(selector: str, *names: str, of: str = "{}") -> str:
    """One reading of every GPU, ``max by (Hostname, gpu)``: without ``instance``, a third of
    the bytes of each series (the labels' answer names each GPU's target). Where an exporter
    sets no ``Hostname`` its target names the node, so those GPUs are kept by (instance, gpu).
    ``of`` wraps each series selector (e.g. ``timestamp({})``)."""

    def each(matcher: str) -> str:
        return " or ".join(of.format(f"{name}{_with(matcher, selector)}") for name in names)

    named, unnamed = each('Hostname!=""'), each('Hostname=""')
    return f"max by (Hostname, gpu) ({named}) or max by (instance, gpu) ({unnamed})"


def field_queries(
    selector: str, fields: frozenset[str] | None = None, *, flagged_only: bool = False
) -> dict[str, str]:
    """One instant query per field of the GPU table (``fields``, or all), keyed by the field.

    ``flagged_only``: the XID and clock-event answers hold only the GPUs where they say
    something (an XID, a reason besides idle), as the pane shows them; a GPU left out reads
    as none. At a thousand nodes that is 16,000 series less at every refresh."""
    s = f"{{{selector}}}"

    def one(*names: str) -> str:
        return per_gpu(" or ".join(f"{name}{s}" for name in names))

    reasons = reading(selector, dcgm_names.CLOCKS_EVENT_REASONS, dcgm_names.CLOCK_THROTTLE_REASONS)
    xid = reading(selector, dcgm_names.XID_ERRORS)
    every = {
        "utilization_percent": reading(selector, dcgm_names.GPU_UTIL),
        "fb_used_mib": reading(selector, dcgm_names.FB_USED),
        # The total on the server: used, free and the driver's reserve of one scrape (an
        # exporter without the reserve counts it in used), and a static field.
        "fb_total_mib": per_gpu(
            f"{dcgm_names.FB_USED}{s} + {dcgm_names.FB_FREE}{s}"
            f" + ({dcgm_names.FB_RESERVED}{s} or {dcgm_names.FB_USED}{s} * 0)"
        ),
        "temperature_c": reading(selector, dcgm_names.GPU_TEMP),
        "temperature_slowdown_c": one(dcgm_names.SLOWDOWN_TEMP),
        "power_watts": reading(selector, dcgm_names.POWER_USAGE),
        "power_limit_watts": one(dcgm_names.ENFORCED_POWER_LIMIT, dcgm_names.POWER_MGMT_LIMIT),
        "sm_clock_mhz": reading(selector, dcgm_names.SM_CLOCK),
        "clock_event_reasons": f"({reasons}) > 1" if flagged_only else reasons,
        "xid_last": f"({xid}) != 0" if flagged_only else xid,
        "simulated": one(dcgm_names.SIMULATED),
        "sample_time": reading(selector, dcgm_names.GPU_UTIL, of="timestamp({})"),
    }
    return {key: query for key, query in every.items() if fields is None or key in fields}


def labels_query(selector: str) -> str:
    """Who and what each GPU is: model, UUID, job and the pod labels where the exporter has them
    (``group``: the value is 1, only the labels matter)."""
    return f"group by ({_by(LABEL_KEYS)}) ({dcgm_names.GPU_UTIL}{{{selector}}})"


def target_nodes_query(selector: str) -> str:
    """Every target that served GPU metrics in the last hour, with its node (``Hostname``), so
    a target that is down now still shows as the node it was. ``up`` has only the target's
    labels: the GPU selector picks the targets through their past GPU series, and ``reader``
    joins this answer to ``up`` (a window over every GPU series: asked at the slow pace)."""
    return (
        f"group by (instance, job, Hostname) "
        f"(last_over_time({dcgm_names.GPU_UTIL}{{{selector}}}[{DOWN_LOOKBACK}]))"
    )


def _quoted(value: str) -> str:
    """A PromQL string literal."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def up_query(jobs: list[str]) -> str:
    """``up`` of every target of these jobs (those that served GPU metrics), not of every
    target the server scrapes; empty when there are none."""
    return " or ".join(f"up{{job={_quoted(job)}}}" for job in jobs)


def scrape_time_query(jobs: list[str]) -> str:
    """When each target of these jobs was last scraped."""
    return f"timestamp({up_query(jobs)})" if jobs else ""


def idle_query(selector: str, window: str, max_util: float, min_used_mib: float) -> str:
    """GPUs holding at least ``min_used_mib`` all through ``window`` whose utilisation never
    rose above ``max_util`` in it; the value is that highest utilisation."""
    s = f"{{{selector}}}"
    keep = _by((*GPU_KEY, "job", *dcgm_names.WORKLOAD_LABELS))
    busiest = f"max by ({keep}) (max_over_time({dcgm_names.GPU_UTIL}{s}[{window}]))"
    least_held = f"max by ({keep}) (min_over_time({dcgm_names.FB_USED}{s}[{window}]))"
    return f"({busiest} <= {max_util:g}) and on ({_by(GPU_KEY)}) ({least_held} >= {min_used_mib:g})"


HISTORY_NAMES = {
    "utilization_percent": dcgm_names.GPU_UTIL,
    "fb_used_mib": dcgm_names.FB_USED,
    "temperature_c": dcgm_names.GPU_TEMP,
    "power_watts": dcgm_names.POWER_USAGE,
}
"""What the node view graphs, keyed by the field each range query fills."""


def node_matchers(node: str) -> tuple[str, str]:
    """The matchers that pick one node's series, as ``model.node_name`` names a node: by its
    ``Hostname`` label, or by its target where the exporter sets no ``Hostname``."""
    quoted = _quoted(node)
    return f"Hostname={quoted}", f'Hostname="",instance={quoted}'


def history_queries(selector: str, node: str) -> dict[str, str]:
    """One range query per graphed field for one node: every GPU of the node in one answer,
    ``max by (gpu)`` on the server (as ``per_gpu`` does for the grid), so the answer holds one
    series per GPU however many exporters or pods label it."""
    extra = f",{selector}" if selector else ""
    by_name, by_target = node_matchers(node)

    def one(name: str) -> str:
        return f"max by (gpu) ({name}{{{by_name}{extra}}} or {name}{{{by_target}{extra}}})"

    return {key: one(name) for key, name in HISTORY_NAMES.items()}
