"""One node's GPUs over the last minutes, from Prometheus range queries: the answers as one series
per GPU and reading, and each series cut into graph columns (lowest and highest reading each).

The queries are ``queries.history_queries`` (one per reading for the whole node, aggregated by
GPU on the server). ``read_history`` asks them (blocking: call it off the event loop); the rest
is pure.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol, runtime_checkable

from gpu_tui.core.fleet import queries
from gpu_tui.core.fleet.dcgm_names import MIB
from gpu_tui.core.fleet.model import FleetGpu
from gpu_tui.core.fleet.prom_api import MAX_POINTS_PER_SERIES, PrometheusApi, RangeSeries

WINDOWS_MINUTES: tuple[int, ...] = (15, 60, 6 * 60, 24 * 60)
"""What the node view's zoom steps through; the first is the default."""
DEFAULT_POINTS = 240
"""Points per series asked for at least: more than a graph has columns at 160×48."""
READINGS = ("utilization_percent", "memory_used_bytes", "temperature_c", "power_watts")
"""The graphed readings, in the order the node view shows them."""
_SCALE = {"fb_used_mib": ("memory_used_bytes", MIB)}
"""Query keys whose answer is in another unit than the reading: (reading, factor to SI)."""

Point = tuple[float, float]
"""(time, value); NaN where the exporter wrote no usable reading."""
Column = tuple[float | None, float | None]


@dataclass
class NodeHistory:
    """One node's GPUs over [start, end]: ``gpus[gpu][reading]`` is its points, oldest first."""

    node: str
    start: float
    end: float
    step: float
    gpus: dict[str, dict[str, list[Point]]] = field(default_factory=dict)
    query_seconds: float = 0.0

    @property
    def minutes(self) -> float:
        return (self.end - self.start) / 60

    def points(self, gpu: str, reading: str) -> list[Point]:
        return self.gpus.get(gpu, {}).get(reading, [])

    def gpu_names(self) -> list[str]:
        return sorted(self.gpus, key=gpu_order)


@runtime_checkable
class HistorySource(Protocol):
    """A fleet reader that can also read one node's history (``FleetReader``, or a test's)."""

    def history(self, node: str, minutes: float, points: int) -> NodeHistory: ...


def gpu_order(name: str) -> tuple[int, str]:
    """GPUs by index (``gpu10`` after ``gpu9``), then any that is not a number."""
    return (int(name), "") if name.isdigit() else (1 << 30, name)


def span(end: float, minutes: float, points: int) -> tuple[float, float, float]:
    """(start, end, step) of a window of ``minutes`` ending near ``end``, ``points`` apart.

    The end is rounded down to a whole step: each refresh then asks for the same instants, so
    a graph moves along by whole steps and does not shimmer as the evaluation times drift."""
    seconds = max(minutes, 1 / 60) * 60
    step = max(seconds / max(points, 1), seconds / (MAX_POINTS_PER_SERIES - 1), 0.001)
    aligned = math.floor(end / step) * step
    return aligned - seconds, aligned, step


def build_history(
    node: str, start: float, end: float, step: float, answers: dict[str, list[RangeSeries]]
) -> NodeHistory:
    """Join the range answers (keyed as ``queries.history_queries``) by GPU, in SI units; a
    blank reading (NaN, Inf, dcgm-exporter's huge sentinel) stays a point, as NaN: a gap."""
    history = NodeHistory(node, start, end, step)
    for key, answer in answers.items():
        reading, factor = _SCALE.get(key, (key, 1.0))
        for series in answer:
            gpu = series.labels.get("gpu", "?")
            points = [(t, _usable(v) * factor) for t, v in series.points]
            # Two series of one GPU (labelled apart by a label the query did not keep): joined.
            kept = history.gpus.setdefault(gpu, {}).setdefault(reading, [])
            kept.extend(points)
            if len(kept) != len(points):
                kept.sort(key=lambda point: point[0])
    return history


def _usable(value: float) -> float:
    # as model._fill: dcgm-exporter writes a blank DCGM reading as ~9.2e18
    return value if math.isfinite(value) and abs(value) < 1e15 else math.nan


def columns(
    points: Sequence[Point], start: float, end: float, step: float, width: int
) -> tuple[list[float | None], list[float | None]]:
    """The lowest and highest reading in each of ``width`` equal slices of [start, end], oldest
    first, for ``draw.graph_columns``.

    A point holds from its time until the next step (Prometheus evaluated it there), so a
    slice narrower than a step still shows it. A slice no point reached is ``None`` before the
    first point (no data yet: blank) and NaN after it (the series stopped: a gap, never a
    value made up); a slice of only blank readings is NaN too.
    """
    if width <= 0:
        return [], []
    lows: list[float | None] = [None] * width
    highs: list[float | None] = [None] * width
    seconds = max(end - start, 1e-9)
    per_column = seconds / width
    for stamp, value in points:
        if stamp < start - step or stamp > end:
            continue
        first = max(0, min(width - 1, math.floor((stamp - start) / per_column)))
        last = max(first, min(width - 1, math.ceil((stamp + step - start) / per_column) - 1))
        for index in range(first, last + 1):
            low, high = lows[index], highs[index]
            if value != value:  # NaN: a gap unless the slice has a reading
                if high is None:
                    lows[index] = highs[index] = math.nan
            elif high is None or high != high:
                lows[index] = highs[index] = value
            else:
                lows[index] = min(low, value) if low is not None else value
                highs[index] = max(high, value)
    seen = False
    for index in range(width):
        if highs[index] is not None:
            seen = True
        elif seen:
            lows[index] = highs[index] = math.nan
    return lows, highs


def latest(points: Sequence[Point]) -> Point | None:
    """The newest usable reading of a series and its time, or None."""
    for point in reversed(points):
        if point[1] == point[1]:
            return point
    return None


def peak(points: Sequence[Point]) -> float | None:
    usable = [value for _, value in points if value == value]
    return max(usable) if usable else None


def scale_top(reading: str, gpu: FleetGpu | None, points: Sequence[Point]) -> float | None:
    """The top of a graph's fixed scale: 100 % for utilisation, else the GPU's own limit
    (memory size, slowdown temperature, power cap) as the Monitor draws them; where the
    exporter does not give it, the highest reading shown (temperature: at least 100 °C)."""
    if reading == "utilization_percent":
        return 100.0
    limit = None
    if gpu is not None:
        limit = {
            "memory_used_bytes": gpu.memory_total_bytes,
            "temperature_c": gpu.temperature_slowdown_c,
            "power_watts": gpu.power_limit_watts,
        }.get(reading)
    highest = peak(points)
    if reading == "temperature_c":
        return max(float(limit or 100.0), highest or 0.0)
    if limit:
        return max(float(limit), highest or 0.0)
    return highest if highest else None


def read_history(
    api: PrometheusApi,
    node: str,
    *,
    selector: str = "",
    minutes: float = WINDOWS_MINUTES[0],
    points: int = DEFAULT_POINTS,
    clock: Callable[[], float] = time.time,
    ask: Callable[[dict[str, Callable[[], list[RangeSeries]]]], dict[str, list[RangeSeries]]]
    | None = None,
) -> NodeHistory:
    """Ask the range queries for ``node``; PrometheusError when one fails. ``ask`` runs the
    queries (the reader's pool: a few at once); by default one after another."""
    started = time.perf_counter()
    start, end, step = span(clock(), minutes, max(points, DEFAULT_POINTS))
    calls: dict[str, Callable[[], list[RangeSeries]]] = {
        key: partial(api.query_range, promql, start, end, step)
        for key, promql in queries.history_queries(selector, node).items()
    }
    answers = ask(calls) if ask is not None else {key: call() for key, call in calls.items()}
    history = build_history(node, start, end, step, answers)
    history.query_seconds = time.perf_counter() - started
    return history
