"""How far a bench run has got and when it will end: weights per task from the plan (pure)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpu_tui.core.bench import messages as m
from gpu_tui.core.bench.suites import measurement_points
from gpu_tui.core.bench.telemetry import Reading


def task_seconds(spec: dict[str, Any], kind: str, budget: float) -> float:
    """Expected seconds of one benchmark on one device kind (as ``estimate_seconds`` counts)."""
    points = measurement_points(spec, kind)
    seconds = points * (budget * 1.2 + (0.05 if kind == "cpu" else 0.2))
    if spec["name"] == "linear" and kind == "cpu" and spec.get("cpu"):
        flop = 2 * spec["cpu"]["batch"] * spec["cpu"]["features"] ** 2
        seconds += 4 * flop / 100e9  # the long CPU call: ~1–3 s each on a small CPU
    return max(seconds, 0.01)


@dataclass
class RunTracker:
    """Fed by the runner's messages; answers overall fraction, current fraction and ETA."""

    plan: dict[str, Any]
    estimate: float
    started: float = 0.0
    measuring_since: float | None = None
    index: int = 0
    total: int = 0
    current: str = ""
    label: str = "starting the worker"
    fraction: float = 0.0
    points_done: int = 0
    weights: list[tuple[float, int]] = field(default_factory=list)
    """(expected seconds, measurement points) per task, in the worker's order."""
    device: str = ""
    gpu: tuple[str, Reading] | None = None
    """The live NVML line and reading of the GPU being measured (or the run's first GPU)."""

    def apply(self, event: m.Message, now: float) -> None:
        """Take in one runner message (results and the end are the pane's business)."""
        if isinstance(event, m.Progress):
            self.progress(event.index, event.total, event.benchmark, event.device)
        elif isinstance(event, m.Heartbeat):
            self.heartbeat(event.label, event.fraction)
        elif isinstance(event, m.EnvironmentReady):
            self.environment(event.environment, now)
        elif isinstance(event, m.Status):
            self.label = event.message
        elif isinstance(event, m.Telemetry):
            self.gpu = event.line(self.device)

    def environment(self, environment: dict[str, Any], now: float) -> None:
        devices = [str(d.get("device")) for d in environment.get("devices") or []]
        budget = float(self.plan.get("budget_seconds", 0.25))
        self.weights = []
        for spec in self.plan.get("benchmarks", []):
            for device in devices:
                kind = "cpu" if device == "cpu" else "gpu"
                if spec.get(kind) is not None:
                    points = max(1, measurement_points(spec, kind))
                    self.weights.append((task_seconds(spec, kind, budget), points))
        self.measuring_since = now

    def progress(self, index: int, total: int, benchmark: str, device: str) -> None:
        self.index, self.total = index, total
        self.current = f"{benchmark} on {device}"
        self.device = device
        self.points_done = 0
        self.fraction = 0.0

    def heartbeat(self, label: str, fraction: float) -> None:
        self.label, self.fraction = label, min(max(fraction, 0.0), 1.0)

    def result(self) -> None:
        self.points_done += 1

    def overall(self) -> float:
        """0..1 of the whole run, weighted by how long each task is expected to take."""
        if not self.total:
            return 0.0
        if len(self.weights) != self.total:  # devices resolved differently: count tasks
            return min(1.0, (self.index + self._within(1)) / self.total)
        done = sum(w for w, _ in self.weights[: self.index])
        current, _ = self.weights[self.index] if self.index < self.total else (0.0, 1)
        whole = sum(w for w, _ in self.weights)
        return min(1.0, (done + current * self._within(self.index)) / whole)

    def _within(self, index: int) -> float:
        points = self.weights[index][1] if index < len(self.weights) else 1
        return min(1.0, (self.points_done + self.fraction) / points)

    def eta(self, now: float) -> float | None:
        """Seconds left: the plan's estimate until enough has run, then the measured pace."""
        if self.measuring_since is None:
            return max(0.0, self.estimate - (now - self.started))
        done = self.overall()
        elapsed = now - self.measuring_since
        if done < 0.05 or elapsed < 2:
            return max(0.0, self.estimate - (now - self.started))
        return elapsed * (1 - done) / done
