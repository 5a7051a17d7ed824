"""The PromQL gpu-tui asks a fleet: every aggregation is done by the server, one query per field.

Each per-GPU query is ``max by (Hostname, hostname, instance, gpu) (...)``: whatever else the
exporter adds, the answer carries the node's label (either spelling, see ``labels``), the target
and the GPU, and a GPU exported twice (two pods sharing it) is one; the readings asked at every
refresh carry two (``reading``). Where it matters, a selector is asked once per way of naming the
node (``node_branches``). A MIG GPU's memory is answered by instance (``GPU_I_ID``), and the
model adds the instances up.

The queries come in two kinds (``reader`` asks the slow ones less often in the pane): instant
lookups of what changes at every scrape (``DYNAMIC_FIELDS``, ``up``), and what changes rarely or
looks back over a window (``STATIC_FIELDS``, labels, each target's node, idle while allocated).
At a thousand nodes the second kind is most of the server's work and of the bytes sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gpu_tui.core.errors import UsageError
from gpu_tui.core.fleet import dcgm_names
from gpu_tui.core.fleet.labels import INSTANCE, NODE_LABELS, UUID_LABELS, WORKLOAD_LABELS

GPU_KEY = (*NODE_LABELS, INSTANCE, "gpu")
MIG_KEY = (dcgm_names.LABEL_MIG_INSTANCE,)
"""Kept apart in the memory answers: a MIG GPU's instances each have their own memory."""
LABEL_KEYS = (
    *GPU_KEY,
    "job",
    dcgm_names.LABEL_MODEL,
    *UUID_LABELS,
    dcgm_names.LABEL_MIG_PROFILE,
    dcgm_names.LABEL_MIG_INSTANCE,
    *WORKLOAD_LABELS,
)
PRESENCE = (dcgm_names.GPU_UTIL, dcgm_names.SM_CLOCK, dcgm_names.SIMULATED)
"""The series whose presence says a target exports a GPU: its utilisation where DCGM has one,
else its SM clock (a MIG instance has no utilisation; dcgm-exporter's README sample has only
the clocks and memory temperature), else gpu-tui export's per-GPU ``gpu_tui_simulated``, which
it writes for every GPU whatever the driver answers (a MIG GPU may give neither of the
others). Each name here adds as much again to what the window of ``target_nodes_query`` reads
where an exporter writes it."""
LABELLED = (*PRESENCE, dcgm_names.FB_USED)
"""The series the labels are read from: memory too, which an exporter writes for every MIG
instance (the labels' answer is where an instance's profile and pod come from)."""
DOWN_LOOKBACK = "1h"
"""How far back a target that is down now is remembered (its node is shown down, not dropped)."""

_MATCHER = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*")\s*')
_NODE_NAMINGS = (
    ('Hostname!=""', NODE_LABELS[0]),
    ('Hostname="",hostname!=""', NODE_LABELS[1]),
    ('Hostname="",hostname=""', INSTANCE),
)
"""How a series names its node, as matchers that pick exactly the series named that way, and
the label that then names it (precedence as ``labels.node_name``)."""


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


def _matchers(selector: str) -> list[tuple[str, str, str]]:
    """A checked selector's matchers as (label, operator, quoted value)."""
    found = []
    for part in _split(selector):
        match = _MATCHER.fullmatch(part)
        if match is not None:
            label, operator, value = match.groups()
            found.append((label, operator, value))
    return found


def _names_node(selector: str) -> bool:
    return any(label in NODE_LABELS for label, _, _ in _matchers(selector))


def _renamed(selector: str, node_label: str) -> str:
    """``selector`` with its matchers on either node label put on ``node_label``, so that
    ``Hostname=~"gpu-.*"`` picks the nodes of an exporter that writes ``hostname`` as well;
    where neither label is set (``instance`` names the node) they are kept as written."""
    if node_label not in NODE_LABELS:
        return selector
    return ",".join(
        f"{node_label if label in NODE_LABELS else label}{operator}{value}"
        for label, operator, value in _matchers(selector)
    )


def _joined(*matchers: str) -> str:
    return ",".join(matcher for matcher in matchers if matcher)


def node_branches(selector: str) -> list[tuple[str, str]]:
    """(matchers, node label) for each way a series names its node, ``selector`` included:
    together they pick what ``selector`` picks, each series once."""
    return [(_joined(naming, _renamed(selector, label)), label) for naming, label in _NODE_NAMINGS]


def covering(selector: str) -> list[str]:
    """Selectors that together pick every series ``selector`` means, each series once: itself,
    or one per node naming where it matches on a node label (see ``_renamed``)."""
    if not _names_node(selector):
        return [selector]
    return [matchers for matchers, _ in node_branches(selector)]


def _by(labels: tuple[str, ...]) -> str:
    return ", ".join(labels)


def per_gpu(selector: str, expression: Callable[[str], str], keep: tuple[str, ...] = ()) -> str:
    """``max by (Hostname, hostname, instance, gpu, *keep)`` of ``expression``, which is given
    the braces of a series selector (``{job="dcgm"}``) to put on each metric it names."""
    by = _by((*GPU_KEY, *keep))
    return " or ".join(f"max by ({by}) ({expression(f'{{{s}}}')})" for s in covering(selector))


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
INSTANCE_FIELDS = frozenset({"fb_used_mib", "fb_total_mib"})
"""Fields answered by MIG instance where a GPU has instances (``MIG_KEY``)."""


def reading(selector: str, *names: str, of: str = "{}", keep: tuple[str, ...] = ()) -> str:
    """One reading of every GPU, ``max by`` its node label and ``gpu``: without ``instance``,
    a third of the bytes of each series (the labels' answer names each GPU's target). Where an
    exporter sets no node label its target names the node, so those GPUs are kept by
    (instance, gpu). ``of`` wraps each series selector (e.g. ``timestamp({})``); ``keep``:
    labels kept apart besides."""
    parts = []
    for matchers, label in node_branches(selector):
        series = " or ".join(of.format(f"{name}{{{matchers}}}") for name in names)
        parts.append(f"max by ({_by((label, 'gpu', *keep))}) ({series})")
    return " or ".join(parts)


def field_queries(
    selector: str, fields: frozenset[str] | None = None, *, flagged_only: bool = False
) -> dict[str, str]:
    """One instant query per field of the GPU table (``fields``, or all), keyed by the field.

    ``flagged_only``: the XID and clock-event answers hold only the GPUs where they say
    something (an XID, a reason besides idle), as the pane shows them; a GPU left out reads
    as none. At a thousand nodes that is 16,000 series less at every refresh."""

    def one(*names: str) -> str:
        return per_gpu(selector, lambda s: " or ".join(f"{name}{s}" for name in names))

    def total(s: str) -> str:
        # The total on the server: used, free and the driver's reserve of one scrape (an
        # exporter without the reserve counts it in used), and a static field.
        used, free, reserved = dcgm_names.FB_USED, dcgm_names.FB_FREE, dcgm_names.FB_RESERVED
        return f"{used}{s} + {free}{s} + ({reserved}{s} or {used}{s} * 0)"

    reasons = reading(selector, dcgm_names.CLOCKS_EVENT_REASONS, dcgm_names.CLOCK_THROTTLE_REASONS)
    xid = reading(selector, dcgm_names.XID_ERRORS)
    every = {
        "utilization_percent": reading(selector, dcgm_names.GPU_UTIL),
        "fb_used_mib": reading(selector, dcgm_names.FB_USED, keep=MIG_KEY),
        "fb_total_mib": per_gpu(selector, total, keep=MIG_KEY),
        "temperature_c": reading(selector, dcgm_names.GPU_TEMP),
        "temperature_slowdown_c": one(dcgm_names.SLOWDOWN_TEMP),
        "power_watts": reading(selector, dcgm_names.POWER_USAGE),
        "power_limit_watts": one(dcgm_names.ENFORCED_POWER_LIMIT, dcgm_names.POWER_MGMT_LIMIT),
        "sm_clock_mhz": reading(selector, dcgm_names.SM_CLOCK),
        "clock_event_reasons": f"({reasons}) > 1" if flagged_only else reasons,
        "xid_last": f"({xid}) != 0" if flagged_only else xid,
        "simulated": one(dcgm_names.SIMULATED),
        "sample_time": reading(selector, *PRESENCE, of="timestamp({})"),
    }
    return {key: query for key, query in every.items() if fields is None or key in fields}


def labels_query(selector: str) -> str:
    """Who and what each GPU (and MIG instance) is: model, UUID, job and the pod labels where
    the exporter has them (``group``: the value is 1, only the labels matter)."""
    by = _by(LABEL_KEYS)
    return " or ".join(
        f"group by ({by}) ({name}{{{s}}})" for s in covering(selector) for name in LABELLED
    )


def target_nodes_query(selector: str) -> str:
    """Every target that served GPU metrics in the last hour, with its node (its node label),
    so a target that is down now still shows as the node it was. ``up`` has only the target's
    labels: the GPU selector picks the targets through their past GPU series, and ``reader``
    joins this answer to ``up`` (a window over every GPU series: asked at the slow pace)."""
    by = _by((INSTANCE, "job", *NODE_LABELS))
    return " or ".join(
        f"group by ({by}) (last_over_time({name}{{{s}}}[{DOWN_LOOKBACK}]))"
        for s in covering(selector)
        for name in PRESENCE
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
    rose above ``max_util`` in it; the value is that highest utilisation.

    Only a GPU whose utilisation was read ``window`` ago already (``offset``: one sample per
    series, found in the index) counts: a window that holds only its last minutes says
    nothing of the rest of it."""
    keep = ("job", *WORKLOAD_LABELS)
    util, used = dcgm_names.GPU_UTIL, dcgm_names.FB_USED
    busiest = per_gpu(selector, lambda s: f"max_over_time({util}{s}[{window}])", keep)
    least_held = per_gpu(selector, lambda s: f"min_over_time({used}{s}[{window}])")
    covered = per_gpu(selector, lambda s: f"{util}{s} offset {window}")
    on = f"on ({_by(GPU_KEY)})"
    return (
        f"(({busiest}) <= {max_util:g}) and {on} (({least_held}) >= {min_used_mib:g})"
        f" and {on} ({covered})"
    )


def check_queries(selector: str) -> dict[str, str]:
    """Each node's last ``gpu-tui check`` (served by ``gpu-tui export``): its verdict and
    when it ran, one series per node (asked at the slow pace: a check runs rarely)."""

    def one(name: str) -> str:
        return per_gpu(selector, lambda s: f"{name}{s}")

    return {
        "check_status": one(dcgm_names.CHECK_STATUS),
        "check_time": one(dcgm_names.CHECK_TIMESTAMP),
    }


HISTORY_NAMES = {
    "utilization_percent": dcgm_names.GPU_UTIL,
    "fb_used_mib": dcgm_names.FB_USED,
    "temperature_c": dcgm_names.GPU_TEMP,
    "power_watts": dcgm_names.POWER_USAGE,
}
"""What the node view graphs, keyed by the field each range query fills."""


def node_matchers(node: str, selector: str = "") -> list[str]:
    """The matchers that pick one node's series (``selector`` included), as
    ``labels.node_name`` names a node: by its node label, or by its target where the exporter
    sets none; one set of matchers per way of naming it."""
    quoted = _quoted(node)
    return [_joined(matchers, f"{label}={quoted}") for matchers, label in node_branches(selector)]


def history_queries(selector: str, node: str) -> dict[str, str]:
    """One range query per graphed field for one node: every GPU of the node in one answer,
    ``max by (gpu)`` on the server (as ``per_gpu`` does for the grid), so the answer holds one
    series per GPU however many exporters or pods label it; a MIG GPU's memory is the sum of
    its instances' (where a GPU also has a series of its own, that one is left out)."""
    branches = node_matchers(node, selector)
    mig = dcgm_names.LABEL_MIG_INSTANCE
    of_instance, of_gpu = f'{mig}!=""', f'{mig}=""'

    def series(name: str, more: str = "") -> str:
        return " or ".join(f"{name}{{{_joined(matchers, more)}}}" for matchers in branches)

    def one(key: str, name: str) -> str:
        if key not in INSTANCE_FIELDS:
            return f"max by (gpu) ({series(name)})"
        instances = f"max by (gpu, {mig}) ({series(name, of_instance)})"
        return f"sum by (gpu) ({instances}) or max by (gpu) ({series(name, of_gpu)})"

    return {key: one(key, name) for key, name in HISTORY_NAMES.items()}
