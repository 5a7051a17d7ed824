"""The fixed fleet of ``fake_fleet`` with a history: each node's GPUs over the window, answered as
Prometheus would answer the range queries and joined by the code the live reader uses."""

from __future__ import annotations

import math

from gpu_tui.core.fleet.history import DEFAULT_POINTS, NodeHistory, build_history, span
from gpu_tui.core.fleet.model import FleetSnapshot
from gpu_tui.core.fleet.prom_api import PrometheusError, RangeSeries
from gpu_tui.core.fleet.queries import HISTORY_NAMES
from tests.fleet.fake_fleet import AT, fleet_snapshot

DOWN_FOR_SECONDS = 600
"""The node that is down (dgx-h05) stopped answering this long before ``AT``."""


def wave(util: float, gpu: int, t: float) -> float:
    """A utilisation that moves around ``util`` (a training step every few minutes)."""
    return max(0.0, min(100.0, util + 15 * math.sin(t / 180 + gpu)))


def range_answers(node: str, start: float, end: float, step: float) -> dict[str, list[RangeSeries]]:
    """What the server answers to ``queries.history_queries`` for ``node``: one series per GPU
    and reading, in the exporter's units (memory in MiB)."""
    nodes = {n.name: n for n in fleet_snapshot().nodes}
    gpus = [(int(g.gpu), g.utilization_percent or 0.0) for g in nodes[node].gpus]
    until = end
    if not gpus:  # the node that is down: its eight GPUs, until it went down
        gpus, until = [(i, 60.0) for i in range(8)], AT - DOWN_FOR_SECONDS
    stamps = [start + k * step for k in range(int((end - start) / step) + 1)]
    answers: dict[str, list[RangeSeries]] = {key: [] for key in HISTORY_NAMES}
    for index, util in gpus:
        busy = [(t, wave(util, index, t)) for t in stamps if t <= until]
        for key, value in (
            ("utilization_percent", lambda u: u),
            ("fb_used_mib", lambda u: 10240 + u * 600),
            ("temperature_c", lambda u: 40 + u * 0.35),
            ("power_watts", lambda u: 90 + u * 6),
        ):
            points = [(t, float(value(u))) for t, u in busy]
            answers[key].append(RangeSeries({"gpu": str(index)}, points))
    return answers


class FakeFleet:
    """A fleet reader for the pane: the fixed fleet, and each node's history (``HistorySource``);
    ``fail_history`` makes the next history read fail as an unreachable server would."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, float, int]] = []
        self.fail_history = False

    def __call__(self) -> FleetSnapshot:
        return fleet_snapshot()

    def history(self, node: str, minutes: float, points: int) -> NodeHistory:
        self.asked.append((node, minutes, points))
        if self.fail_history:
            raise PrometheusError("cannot reach http://prometheus.example:9090: refused")
        start, end, step = span(AT, minutes, max(points, DEFAULT_POINTS))
        history = build_history(node, start, end, step, range_answers(node, start, end, step))
        history.query_seconds = 0.021
        return history
