"""One fleet refresh: every query at the same evaluation time, a few at once, joined into a
:class:`FleetSnapshot`. Blocking (call it off the event loop); bounded by the API's time limits."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from gpu_tui.core.errors import UsageError
from gpu_tui.core.fleet import queries
from gpu_tui.core.fleet.model import IDLE_MAX_UTIL, IDLE_MIN_USED_MIB, FleetSnapshot, build_snapshot
from gpu_tui.core.fleet.prom_api import PrometheusApi, Series

PARALLEL_QUERIES = 4
"""Queries in flight at once: the server evaluates them in parallel; more only queue there."""
MIN_IDLE_MINUTES = 1
MAX_IDLE_MINUTES = 24 * 60


def idle_window(minutes: float) -> str:
    """``--idle-minutes`` as a PromQL duration (1 minute to a day)."""
    if not MIN_IDLE_MINUTES <= minutes <= MAX_IDLE_MINUTES:
        raise UsageError(
            f"the idle window must be {MIN_IDLE_MINUTES} to {MAX_IDLE_MINUTES:,} minutes, "
            f"got {minutes:g}"
        )
    return f"{round(minutes * 60)}s"


@dataclass
class FleetReader:
    """Reads a fleet from one Prometheus server, narrowed by a ``--match`` selector."""

    api: PrometheusApi
    selector: str = ""
    idle_minutes: float = 15.0
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        self.selector = queries.check_selector(self.selector)
        self.window = idle_window(self.idle_minutes)

    def read(self) -> FleetSnapshot:
        """Ask everything once; PrometheusError (or QueryRejectedError) when a query fails."""
        started = time.perf_counter()
        at = self.clock()
        s = self.selector
        asked: dict[str, str] = {
            **{f"field:{k}": q for k, q in queries.field_queries(s).items()},
            "labels": queries.labels_query(s),
            "targets": queries.targets_query(s),
            "scrapes": queries.scrape_time_query(),
            "idle": queries.idle_query(s, self.window, IDLE_MAX_UTIL, IDLE_MIN_USED_MIB),
        }
        # The first query alone: a server that is down fails once, after its retries, rather
        # than once per query.
        first = next(iter(asked))
        answers: dict[str, list[Series]] = {first: self.api.query(asked.pop(first), at)}
        pool = ThreadPoolExecutor(PARALLEL_QUERIES, thread_name_prefix="gpu-tui-fleet")
        try:
            futures = {key: pool.submit(self.api.query, q, at) for key, q in asked.items()}
            answers.update({k: f.result() for k, f in futures.items()})
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        snapshot = build_snapshot(
            prometheus=self.api.url,
            at=at,
            selector=s,
            idle_window=self.window,
            fields={
                k.removeprefix("field:"): v for k, v in answers.items() if k.startswith("field:")
            },
            labels=answers["labels"],
            targets=answers["targets"],
            scrapes=answers["scrapes"],
            idle=answers["idle"],
        )
        snapshot.query_seconds = time.perf_counter() - started
        return snapshot
