"""How far a bench run has got and when it will end, from each task's expected seconds (pure)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from gpu_tui.core.bench import messages
from gpu_tui.core.bench.run_log import RunHooks, RunLog
from gpu_tui.core.bench.suites import HostSpeed, startup_seconds, task_points
from gpu_tui.core.bench.telemetry import Reading

PACE_PRIOR_SECONDS = 20.0
"""Until this much expected work is done, the pace stays close to the estimate's."""
PACE_LIMITS = (0.5, 2.5)
"""One slow step (a VM filling memory) does not make every later one that much slower."""
MAX_RISE = 1.5
"""The shown ETA rises by at most this many seconds per second: it glides, never jumps."""
TASK_PRIOR_SECONDS = 2.0
"""Within a task, its own results set the pace once they outweigh this much expected work."""
OVERRUN_SHARE = 0.15
"""A task past its expected time, with no result yet to go by, is given this share of its
time so far as still to come (the ETA never reads 0:00 while work remains)."""
ETA_SMOOTHING_SECONDS = 4.0
"""The shown ETA counts down by the clock and follows a new forecast over about this long."""


@dataclass
class RunTracker(RunHooks):
    """Fed by the runner's messages; answers the time left and how far the run has got.

    Each measurement of each task (a benchmark on one device) has an expected time from its
    budget and sizes (``task_points``). The forecast is the current task's measurements still
    to come at the pace of its own results so far, then the tasks after it at the pace of the
    finished ones. The shown ETA glides toward the forecast instead of jumping (never 0:14 → 2:02),
    and the bars are time done over time done plus time left: they move between results.
    """

    plan: dict[str, Any]
    estimate: float
    host: HostSpeed | None = None
    started: float = 0.0
    measuring_since: float | None = None
    index: int = 0
    total: int = 0
    current: str = ""
    points_done: int = 0
    task_started: float = 0.0
    last_result: float = 0.0
    """Seconds into the current task when its latest result came."""
    weights: list[list[float]] = field(default_factory=list)
    """Expected seconds of each measurement, per task, in the worker's order."""
    startup: float = 0.0
    device: str = ""
    gpu: tuple[str, Reading] | None = None
    """The live NVML line and reading of the GPU being measured (or the run's first GPU)."""
    _actual: float = 0.0
    _expected: float = 0.0
    """Seconds finished tasks took, and were expected to take: the pace is their ratio."""
    _within: float = 0.0
    _overall: float = 0.0
    _shown_eta: float | None = None
    _eta_at: float = 0.0
    _now: float = 0.0
    """When the message being taken in came."""
    log: RunLog = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.log = RunLog(self, label="starting the worker")

    def start(self, now: float) -> None:
        self.started = self.task_started = self._eta_at = now
        self.startup = startup_seconds(0)
        self._shown_eta = self.estimate

    def apply(self, event: messages.Message, now: float) -> None:
        """Take in one runner message that came at ``now``."""
        self._now = now
        self.log.apply(event)

    def got_environment(self, ready: messages.EnvironmentReady) -> None:
        devices = [str(d.get("device")) for d in ready.environment.get("devices") or []]
        budget = float(self.plan.get("budget_seconds", 0.25))
        self.weights = []
        for spec in self.plan.get("benchmarks", []):
            for device in devices:
                kind = "cpu" if device == "cpu" else "gpu"
                if spec.get(kind) is not None:
                    self.weights.append(task_points(spec, kind, budget, self.host) or [0.05])
        self.startup = startup_seconds(sum(d != "cpu" for d in devices))
        self._finish_task(self.startup, self._now)
        self.measuring_since = self._now

    def got_step(self, step: messages.Progress) -> None:
        now = self._now
        if self.measuring_since is not None and self.current:
            weights = self._weights(step.total)
            self._finish_task(sum(weights[self.index]) if self.index < len(weights) else 0.0, now)
        self.index, self.total = step.index, step.total
        self.current = f"{step.benchmark} on {step.device}"
        self.device = step.device
        self.points_done = 0
        self.task_started = now
        self.last_result = 0.0
        self._within = 0.0

    def _finish_task(self, expected: float, now: float) -> None:
        self._actual += now - self.task_started
        self._expected += expected
        self.task_started = now

    def got_telemetry(self, telemetry: messages.Telemetry) -> None:
        self.gpu = telemetry.line(self.device)

    def got_result(self, ready: messages.ResultReady) -> None:
        self.result(self._now)

    def result(self, now: float) -> None:
        self.points_done += 1
        self.last_result = now - self.task_started

    # --- answers -----------------------------------------------------------------------------
    def _weights(self, total: int | None = None) -> list[list[float]]:
        total = self.total if total is None else total
        if len(self.weights) == total:
            return self.weights
        # devices resolved differently than planned: the estimate shared out evenly
        share = max(0.05, self.estimate - self.startup) / max(1, total)
        return [[share]] * total

    def pace(self) -> float:
        """Actual over expected seconds of the finished tasks (1 until there are some)."""
        pace = (self._actual + PACE_PRIOR_SECONDS) / (self._expected + PACE_PRIOR_SECONDS)
        return min(max(pace, PACE_LIMITS[0]), PACE_LIMITS[1])

    def _current_left(self, now: float) -> tuple[float, float]:
        """(seconds the current task has run, seconds it still needs)."""
        ran = now - self.task_started
        if self.measuring_since is None:  # the worker is starting
            return ran, max(self.startup - ran, OVERRUN_SHARE * ran)
        weights = self._weights()
        if self.index >= len(weights):
            return ran, 0.0
        points, done = weights[self.index], self.points_done
        expected_done = sum(points[:done])
        pace = (self.last_result + TASK_PRIOR_SECONDS * self.pace()) / (
            expected_done + TASK_PRIOR_SECONDS
        )
        if done >= len(points):  # more results than planned: it ends at the next progress
            return ran, OVERRUN_SHARE * (ran - self.last_result)
        since = ran - self.last_result
        this = max(points[done] * pace - since, OVERRUN_SHARE * since)
        return ran, this + sum(points[done + 1 :]) * pace

    def forecast(self, now: float) -> float:
        """Seconds left: the current task's rest, then the tasks after it at the pace so far."""
        _, left = self._current_left(now)
        if self.measuring_since is None:
            return left + max(0.0, self.estimate - self.startup)
        after = sum(sum(points) for points in self._weights()[self.index + 1 :])
        return left + after * self.pace()

    def within(self, now: float) -> float:
        """0..1 of the current task: its time so far over that plus its time left."""
        ran, left = self._current_left(now)
        if ran + left > 0:
            self._within = max(self._within, ran / (ran + left))
        return self._within

    def overall(self, now: float) -> float:
        """0..1 of the whole run: the time so far over that plus the (shown) time left."""
        ran = now - self.started
        left = self.eta(now)
        if ran + left > 0:
            self._overall = max(self._overall, ran / (ran + left))
        return self._overall

    def eta(self, now: float) -> float:
        """The shown ETA: counts down with the clock and glides toward the forecast."""
        target = self.forecast(now)
        if self._shown_eta is None:
            self._shown_eta, self._eta_at = target, now
            return target
        elapsed = max(0.0, now - self._eta_at)
        shown = max(0.0, self._shown_eta - elapsed)
        shown += (target - shown) * (1 - math.exp(-elapsed / ETA_SMOOTHING_SECONDS))
        shown = min(shown, self._shown_eta + MAX_RISE * elapsed)
        self._shown_eta, self._eta_at = shown, now
        return shown
