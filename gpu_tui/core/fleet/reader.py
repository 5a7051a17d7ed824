"""One fleet refresh: every query at the same evaluation time, a few at once, joined into a
:class:`FleetSnapshot`. Blocking (call it off the event loop); bounded by the API's time limits.

A reader that refreshes (the pane's) can ask the slow queries (``queries``: labels, sizes and
limits, each target's node, idle while allocated) less often than the readings: at a thousand
nodes they are two thirds of what the server evaluates and sends each refresh. They are asked
again at once when a GPU appears that their answers do not know (a node joined).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from gpu_tui.core.fleet import IDLE_MINUTES, queries
from gpu_tui.core.fleet.history import DEFAULT_POINTS, NodeHistory, read_history
from gpu_tui.core.fleet.model import (
    IDLE_MAX_UTIL,
    IDLE_MIN_USED_MIB,
    FleetSnapshot,
    GpuKey,
    build_snapshot,
    gpu_key,
    static_attributes,
)
from gpu_tui.core.fleet.prom_api import PrometheusApi, Series

T = TypeVar("T")

PARALLEL_QUERIES = 4
"""Queries in flight at once: the server evaluates them in parallel; more only queue there."""


def idle_window(minutes: float) -> str:
    """``--idle-minutes`` as a PromQL duration (6 seconds to a day)."""
    IDLE_MINUTES.check(minutes)
    return f"{round(minutes * 60)}s"


def ask_all(calls: dict[str, Callable[[], T]]) -> dict[str, T]:
    """Every call's answer, a few at once; the first alone, so a server that is down fails
    once, after its retries, rather than once per query."""
    pending = dict(calls)
    if not pending:
        return {}
    first = next(iter(pending))
    answers = {first: pending.pop(first)()}
    pool = ThreadPoolExecutor(PARALLEL_QUERIES, thread_name_prefix="gpu-tui-fleet")
    try:
        futures = {key: pool.submit(call) for key, call in pending.items()}
        answers.update({key: future.result() for key, future in futures.items()})
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return answers


def join_targets(nodes: list[Series], up: list[Series], selector: str) -> list[Series]:
    """Each target with its node and whether it is up: what ``up * on (instance, job)
    group_left (Hostname, hostname) nodes`` would give, joined here since ``nodes``
    (``target_nodes_query``) is a slow answer and ``up`` a fresh one; each keeps the target's
    own labels (``up``'s: on Kubernetes, the exporter pod's). Without a selector, also the
    targets of the same jobs that are down and never served a GPU series (e.g. down since
    Prometheus started), under their own labels."""
    by_target = {(t.labels.get("instance", ""), t.labels.get("job", "")): t for t in up}
    joined, named = [], set()
    for node in nodes:
        key = (node.labels.get("instance", ""), node.labels.get("job", ""))
        named.add(key)
        target = by_target.get(key)
        if target is not None:
            joined.append(Series({**target.labels, **node.labels}, target.value, target.timestamp))
    if not selector:
        joined += [t for key, t in by_target.items() if key not in named and t.value == 0]
    return joined


@dataclass
class FleetReader:
    """Reads a fleet from one Prometheus server, narrowed by a ``--match`` selector."""

    api: PrometheusApi
    selector: str = ""
    idle_minutes: float = 15.0
    clock: Callable[[], float] = time.time
    fields: frozenset[str] | None = None
    """The GPU fields asked (``queries.field_queries``); None: every one, as ``--json`` has."""
    slow_seconds: float = 0.0
    """How long the slow answers are kept between reads; 0: every read asks everything."""
    flagged_only: bool = False
    """XIDs and clock-event reasons only where set (``queries.field_queries``): the pane's."""

    def __post_init__(self) -> None:
        self.selector = queries.check_selector(self.selector)
        self.window = idle_window(self.idle_minutes)
        self._slow: dict[str, list[Series]] = {}
        self._slow_at: float | None = None
        self._static: dict[GpuKey, dict[str, Any]] = {}

    def read(self) -> FleetSnapshot:
        """Ask everything due once; PrometheusError (or QueryRejectedError) when a query fails."""
        started = time.perf_counter()
        at = self.clock()
        s = self.selector
        fields = queries.field_queries(s, self.fields, flagged_only=self.flagged_only)
        fast = {f"field:{k}": q for k, q in fields.items() if k not in queries.STATIC_FIELDS}
        slow = {
            **{f"field:{k}": q for k, q in fields.items() if k in queries.STATIC_FIELDS},
            "labels": queries.labels_query(s),
            "nodes": queries.target_nodes_query(s),
            "idle": queries.idle_query(s, self.window, IDLE_MAX_UTIL, IDLE_MIN_USED_MIB),
            **queries.check_queries(s),
        }
        due = self._slow_at is None or time.monotonic() - self._slow_at >= self.slow_seconds
        jobs = self._jobs()
        asked = {**fast, **(slow if due else self._target_queries(jobs))}
        answers = self._ask(asked, at)
        if due:
            self._keep({key: answers.pop(key) for key in slow})
        elif self._unknown_gpus(
            answers.get("field:utilization_percent", []) + answers.get("field:fb_used_mib", [])
        ):
            self._keep(self._ask(slow, at))  # a node joined: who and what its GPUs are
        if self._jobs() != jobs or due:  # the targets to ask about are known only now
            answers.update(self._ask(self._target_queries(self._jobs()), at))
        snapshot = build_snapshot(
            prometheus=self.api.url,
            at=at,
            selector=s,
            idle_window=self.window,
            fields={key.removeprefix("field:"): v for key, v in answers.items() if key in fast},
            static=self._static,
            targets=join_targets(self._slow["nodes"], answers.get("up", []), s),
            scrapes=answers.get("scrapes", []),
            idle=self._slow["idle"],
            checks=(self._slow.get("check_status", []), self._slow.get("check_time", [])),
        )
        snapshot.query_seconds = time.perf_counter() - started
        return snapshot

    def _ask(self, asked: dict[str, str], at: float) -> dict[str, list[Series]]:
        return ask_all({key: partial(self.api.query, q, at) for key, q in asked.items()})

    def _keep(self, answers: dict[str, list[Series]]) -> None:
        self._slow, self._slow_at = answers, time.monotonic()
        static = {k.removeprefix("field:"): v for k, v in answers.items() if k.startswith("field:")}
        self._static = static_attributes(answers["labels"], static)

    def _jobs(self) -> list[str]:
        """The jobs whose targets served GPU metrics in the last hour (per the slow answers)."""
        return sorted({n.labels.get("job", "") for n in self._slow.get("nodes", [])} - {""})

    @staticmethod
    def _target_queries(jobs: list[str]) -> dict[str, str]:
        if not jobs:
            return {}
        return {"up": queries.up_query(jobs), "scrapes": queries.scrape_time_query(jobs)}

    def _unknown_gpus(self, readings: list[Series]) -> bool:
        """Whether a GPU reads now that the slow answers do not know (the labels' answer has
        every GPU with a utilisation or memory series at its time; a MIG GPU has no
        utilisation)."""
        static = self._static
        return any(gpu_key(series.labels) not in static for series in readings)

    def history(self, node: str, minutes: float, points: int = DEFAULT_POINTS) -> NodeHistory:
        """``node``'s GPUs over the last ``minutes``: one range query per graphed reading for
        the whole node, a few at once (see ``history.read_history``)."""
        return read_history(
            self.api,
            node,
            selector=self.selector,
            minutes=minutes,
            points=points,
            clock=self.clock,
            ask=ask_all,
        )
