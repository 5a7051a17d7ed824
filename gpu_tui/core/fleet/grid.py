"""The Fleet pane's grid, computed without a terminal: one row per node, filtered and sorted.

Each node's GPUs are a strip of bar characters on a fixed 0–100 % scale (one per GPU), so a
node of eight GPUs fits one row at 80 columns; the numbers beside it say the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpu_tui.core.fleet.model import FleetNode, FleetSnapshot
from gpu_tui.core.units import (
    format_age_steps,
    format_gigabytes,
    format_reading_percent,
    format_temperature,
    temperature_symbol,
)

BARS = " ▁▂▃▄▅▆▇█"


def bar(percent: float | None) -> str:
    """One GPU's utilisation as a bar character (fixed scale: 0 % blank-ish, 100 % full)."""
    if percent is None:
        return "?"
    level = round(max(0.0, min(percent, 100.0)) / 100 * (len(BARS) - 1))
    return BARS[max(level, 1)]  # the lowest bar, not a blank: an idle GPU is still there


@dataclass(frozen=True)
class NodeRow:
    """What the grid shows for one node, and what it sorts and filters by."""

    name: str
    state: str
    """``up``, ``DOWN`` or ``?`` (no target found)."""
    age_seconds: float | None
    gpus: int
    strip: str
    util_percent: float | None
    memory_used_bytes: int | None
    memory_total_bytes: int | None
    temperature_c: float | None
    power_watts: float | None
    power_limit_watts: float | None
    hot: int
    throttled: int
    erroring: int
    simulated: bool
    who: str
    """Models, namespaces/pods and jobs, for reading and for the filter."""
    check: str = ""
    """What is wrong with the node's last ``gpu-tui check`` (empty: nothing, or none ran)."""

    @property
    def issues(self) -> int:
        return (
            (self.state != "up") * 1000
            + bool(self.check) * 500
            + self.erroring * 100
            + self.hot * 10
            + self.throttled
        )

    @property
    def flags(self) -> str:
        words = []
        if self.hot:
            words.append(f"{self.hot}hot")
        if self.throttled:
            words.append(f"{self.throttled}thr")
        if self.erroring:
            words.append(f"{self.erroring}xid")
        if self.check:
            words.append(self.check.replace("check ", "check:"))
        return " ".join(words)

    def cells(self) -> tuple[str, ...]:
        """Node, last scrape (or DOWN), one bar per GPU, mean utilisation, memory used/total,
        hottest GPU, power/cap in kW, flags, who."""
        memory = (
            "?"
            if self.memory_used_bytes is None or not self.memory_total_bytes
            else f"{format_gigabytes(self.memory_used_bytes, '.0f', symbol=False)}/"
            f"{format_gigabytes(self.memory_total_bytes, '.0f', symbol=False)}G"
        )
        power = "?" if self.power_watts is None else f"{self.power_watts / 1000:.1f}"
        if self.power_limit_watts:
            power += f"/{self.power_limit_watts / 1000:.1f}"
        state = self.state if self.state != "up" else format_age_steps(self.age_seconds)
        return (
            self.name,
            state,
            self.strip or "-",
            "?" if self.util_percent is None else format_reading_percent(self.util_percent),
            memory,
            "?"
            if self.temperature_c is None
            else format_temperature(self.temperature_c, symbol=False) + "°",
            power,
            self.flags + (" SIM" if self.simulated else ""),
            self.who,
        )


HEADERS = ("Node", "Seen", "GPUs", "Util", "Memory", "Max°C", "kW/cap", "Flags", "Who")
"""The columns' keys; ``header_labels`` gives what their headings read."""


def header_labels() -> tuple[str, ...]:
    """``HEADERS`` as the grid's headings read them: the temperature in the unit shown."""
    return tuple(h.replace("°C", temperature_symbol()) for h in HEADERS)


def node_row(node: FleetNode, now: float) -> NodeRow:
    """One pass over the node's GPUs (a thousand nodes are gone through at every refresh)."""
    utils: list[float] = []
    strip: list[str] = []
    used = total = power = cap = 0.0
    used_seen = total_seen = power_seen = cap_seen = 0
    hottest: float | None = None
    hot = throttled = erroring = 0
    simulated = False
    who: list[str] = []
    for g in node.gpus:
        util = g.utilization_percent
        strip.append(bar(util))
        if util is not None:
            utils.append(util)
        if g.memory_used_bytes is not None:
            used += g.memory_used_bytes
            used_seen += 1
        if g.memory_total_bytes is not None:
            total += g.memory_total_bytes
            total_seen += 1
        temperature = g.temperature_c
        if temperature is not None and (hottest is None or temperature > hottest):
            hottest = temperature
        if g.power_watts is not None:
            power += g.power_watts
            power_seen += 1
        if g.power_limit_watts is not None:
            cap += g.power_limit_watts
            cap_seen += 1
        hot += g.hot
        throttled += g.throttled
        erroring += g.erroring
        simulated = simulated or g.simulated
        for word in (g.model, f"{g.namespace}/{g.pod}" if g.pod else "", g.job):
            if word and word not in who:
                who.append(word)
        if g.mig_instances:
            who.extend(pod for pod in g.pods if pod not in who)
    return NodeRow(
        name=node.name,
        state={True: "up", False: "DOWN", None: "?"}[node.up],
        age_seconds=None if node.last_scrape_time is None else max(now - node.last_scrape_time, 0),
        gpus=len(node.gpus),
        strip="".join(strip),
        util_percent=sum(utils) / len(utils) if utils else None,
        memory_used_bytes=int(used) if used_seen else None,
        # A total only when every GPU that says what it uses says its size too.
        memory_total_bytes=int(total) if total_seen and total_seen == used_seen else None,
        temperature_c=hottest,
        power_watts=power if power_seen else None,
        power_limit_watts=cap if cap_seen and cap_seen == power_seen else None,
        hot=hot,
        throttled=throttled,
        erroring=erroring,
        simulated=simulated,
        who=" ".join(who),
        check=node.check_problem(now),
    )


@dataclass(frozen=True)
class SortKey:
    label: str
    key: Callable[[NodeRow], tuple[float, str]]


def _number(value: float | None) -> float:
    return -1.0 if value is None else value


SORTS: tuple[SortKey, ...] = (
    SortKey("issues", lambda r: (-r.issues, r.name)),
    SortKey("node", lambda r: (0, r.name)),
    SortKey("utilisation", lambda r: (-_number(r.util_percent), r.name)),
    SortKey("memory", lambda r: (-_number(r.memory_used_bytes), r.name)),
    SortKey("temperature", lambda r: (-_number(r.temperature_c), r.name)),
    SortKey("power", lambda r: (-_number(r.power_watts), r.name)),
)
"""What ``s`` steps through; the first is the default (down and erroring nodes on top)."""


def matches(row: NodeRow, text: str) -> bool:
    """Every word of ``text`` is in the node's name, models, pods or jobs (any case)."""
    haystack = f"{row.name} {row.who} {row.state}".lower()
    return all(word in haystack for word in text.lower().split())


def grid_rows(snapshot: FleetSnapshot, now: float, text: str = "", sort: int = 0) -> list[NodeRow]:
    rows = [node_row(node, now) for node in snapshot.nodes]
    return sorted((r for r in rows if matches(r, text)), key=SORTS[sort % len(SORTS)].key)


def summary(snapshot: FleetSnapshot) -> str:
    t = snapshot.totals
    down = f", {t.nodes_down} down" if t.nodes_down else ""
    return (
        f"{t.nodes} nodes{down} · {t.gpus} GPUs: {t.busy} busy, {t.idle} idle, {t.hot} hot, "
        f"{t.throttled} throttled, {t.erroring} XID · {t.idle_while_allocated} idle while allocated"
    )
