"""The runner's view of GPU telemetry: open it for a run's GPUs, tag results, live readings."""

from __future__ import annotations

import time
from types import ModuleType
from typing import Any

from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.telemetry import INTERVAL_SECONDS, LIVE_SECONDS, Reading, Telemetry, warning


class GpuWatch:
    """Does nothing until the worker's environment names a ``cuda:N`` device; never raises, so
    telemetry trouble (no NVML, a lost GPU) costs the run nothing but the readings."""

    def __init__(
        self,
        nvml: ModuleType | None = None,
        *,
        enabled: bool = True,
        interval: float = INTERVAL_SECONDS,
    ) -> None:
        self.nvml = nvml
        self.enabled = enabled
        self.interval = interval
        self.telemetry: Telemetry | None = None
        self._shown_at = 0.0
        self._shown: dict[str, Reading] = {}

    def open(self, environment: dict[str, Any]) -> None:
        """Match the run's GPUs to NVML, take the "before" readings, start sampling; the
        per-GPU records go into ``environment["telemetry"]`` ("One environment record per run" in
        the bench package docstring)."""
        if not self.enabled:
            return
        try:
            telemetry, records = Telemetry.open(environment, self.nvml, self.interval)
        except Exception as error:  # a broken binding or driver: the run goes on without it
            telemetry, records = None, {"error": {"reason": f"NVML failed: {error}"}}
        if records:
            environment["telemetry"] = {"interval_seconds": self.interval, "devices": records}
        if telemetry is not None:
            telemetry.start()
            self.telemetry = telemetry

    def attach(self, result: BenchResult, message: dict[str, Any]) -> None:
        """Readings over the result's timed part (the worker says when it ended and how long it
        lasted) plus one taken now, so even a short measurement has a reading."""
        telemetry = self.telemetry
        if telemetry is None or result.device not in telemetry.devices:
            return
        try:
            arrived = time.monotonic()
            ended = arrived - max(0.0, float(message.get("ended_seconds_ago") or 0.0))
            start = ended - float(result.timing.get("timed_wall_seconds") or 0.0)
            telemetry.sample(result.device)
            result.telemetry = telemetry.summary(result.device, start, time.monotonic())
        except Exception:  # never lose a result over its readings
            return
        note = warning(result.telemetry)
        if note:
            result.warnings.append(note)

    def live(self) -> dict[str, Reading] | None:
        """The latest readings, at most every ``LIVE_SECONDS`` and only when new."""
        telemetry, now = self.telemetry, time.monotonic()
        if telemetry is None or now - self._shown_at < LIVE_SECONDS:
            return None
        latest = telemetry.latest()
        if not latest or latest == self._shown:
            return None
        self._shown_at, self._shown = now, latest
        return latest

    def close(self, environment: dict[str, Any] | None) -> None:
        """Stop sampling and add the "after" reading of each GPU to the environment record."""
        telemetry, self.telemetry = self.telemetry, None
        if telemetry is None:
            return
        try:
            after = telemetry.stop()
        except Exception:  # the run is over: its readings so far are kept
            return
        records = ((environment or {}).get("telemetry") or {}).get("devices") or {}
        for device, reading in after.items():
            if device in records:
                records[device]["after"] = reading
