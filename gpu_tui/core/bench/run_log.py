"""One bench run as it stands, folded from the runner's messages: the one place that tells the
message types apart, so the console, the Bench pane, its ETA and the Kitchen follow a run alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpu_tui.core.bench import messages
from gpu_tui.core.bench.results import BenchResult


class RunHooks:
    """What a front end does as each kind of news comes; every hook does nothing until
    overridden. A hook runs once the log has taken its message in."""

    def got_status(self, status: messages.Status) -> None: ...
    def got_warning(self, warning: messages.RunWarning) -> None: ...
    def got_environment(self, ready: messages.EnvironmentReady) -> None: ...
    def got_step(self, step: messages.Progress) -> None: ...
    def got_heartbeat(self, beat: messages.Heartbeat) -> None: ...
    def got_telemetry(self, telemetry: messages.Telemetry) -> None: ...
    def got_result(self, ready: messages.ResultReady) -> None: ...
    def got_skip(self, skipped: messages.Skipped) -> None: ...
    def got_error(self, error: messages.BenchError) -> None: ...
    def got_save_failed(self, failed: messages.SaveFailed) -> None: ...
    def got_finished(self, finished: messages.Finished) -> None: ...


@dataclass
class RunLog:
    """Fed every message of one run, in order (``apply``); holds what they add up to: every
    result, skip and error so far, and the latest message of each other kind."""

    hooks: RunHooks = field(default_factory=RunHooks, repr=False, compare=False)
    label: str = ""
    """What the run is doing: the latest phase (a Status) or measurement (a Heartbeat)."""
    fraction: float = 0.0
    """The current measurement's share of its budget (0..1), from the heartbeats."""
    step: messages.Progress | None = None
    environment: dict[str, Any] | None = None
    telemetry: messages.Telemetry | None = None
    results: list[BenchResult] = field(default_factory=list)
    skipped: list[messages.Skipped] = field(default_factory=list)
    errors: list[messages.BenchError] = field(default_factory=list)
    warning: messages.RunWarning | None = None
    save_failed: messages.SaveFailed | None = None
    finished: messages.Finished | None = None

    def apply(self, event: messages.Message) -> None:
        hooks = self.hooks
        match event:
            case messages.Status():
                self.label = event.message
                hooks.got_status(event)
            case messages.RunWarning():
                self.warning = event
                hooks.got_warning(event)
            case messages.EnvironmentReady():
                self.environment = event.environment
                hooks.got_environment(event)
            case messages.Progress():
                self.step, self.fraction = event, 0.0
                hooks.got_step(event)
            case messages.Heartbeat():
                self.label, self.fraction = event.label, min(max(event.fraction, 0.0), 1.0)
                hooks.got_heartbeat(event)
            case messages.Telemetry():
                self.telemetry = event
                hooks.got_telemetry(event)
            case messages.ResultReady():
                self.results.append(event.result)
                hooks.got_result(event)
            case messages.Skipped():
                self.skipped.append(event)
                hooks.got_skip(event)
            case messages.BenchError():
                self.errors.append(event)
                hooks.got_error(event)
            case messages.SaveFailed():
                self.save_failed = event
                hooks.got_save_failed(event)
            case messages.Finished():
                self.finished = event
                hooks.got_finished(event)
