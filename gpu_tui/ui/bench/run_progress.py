"""Two lines above the results: what the run is doing, overall and current bars, and the ETA."""

from __future__ import annotations

import time

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from gpu_tui.ui.bench.run_tracker import RunTracker


def _clock(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


class RunProgress(Widget):
    """Attributes down: the pane sets ``headline``/``hint`` when idle and ``tracker`` while a run
    goes on; a 1 s timer (signal only) keeps the ETA moving between messages."""

    COMPONENT_CLASSES = {  # noqa: RUF012 — Textual API
        "run-progress--bar",
        "run-progress--track",
        "run-progress--state",
        "run-progress--dim",
        "run-progress--gpu",
        "run-progress--alert",
    }

    headline: reactive[str] = reactive("")
    hint: reactive[str] = reactive("")
    running: reactive[bool] = reactive(False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tracker: RunTracker | None = None
        self._timer: Timer | None = None

    def start(self, tracker: RunTracker) -> None:
        self.tracker = tracker
        tracker.started = time.monotonic()
        self.running = True
        if self._timer is None:
            self._timer = self.set_interval(1.0, self.refresh)

    def stop(self, headline: str, hint: str) -> None:
        self.running = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.headline, self.hint = headline, hint

    def _bar(self, fraction: float, width: int) -> Text:
        filled = round(max(0.0, min(1.0, fraction)) * width)
        bar = Text("━" * filled, self._style("run-progress--bar"))
        bar.append("━" * (width - filled), self._style("run-progress--track"))
        return bar

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def render(self) -> Text:
        width = self.size.width
        tracker = self.tracker
        if not self.running or tracker is None:
            text = Text(self.headline, self._style("run-progress--state"), no_wrap=True)
            text.append("\n")
            text.append(self.hint, self._style("run-progress--dim"))
            text.no_wrap = True
            text.overflow = "ellipsis"
            return text
        now = time.monotonic()
        eta = tracker.eta(now)
        overall = tracker.overall()
        step = f"{tracker.index + 1}/{tracker.total} " if tracker.total else ""
        left = f"● {step}{tracker.current or 'starting'}"
        right = f" {overall:4.0%}  ETA {_clock(eta) if eta is not None else '?'}  Esc stops"
        text = Text(left[: max(10, width // 2)], self._style("run-progress--state"))
        bar_width = max(4, width - len(text) - len(right) - 1)
        text.append(" ")
        text.append_text(self._bar(overall, bar_width))
        text.append(right)
        text.append("\n")
        # On a GPU the live NVML line (issue #5 §2) takes room from the label, so throttling
        # is visible while it happens: "SM 1980 MHz · 612/700 W · 64 °C · power cap".
        gpu, reading = tracker.gpu or ("", None)
        tail = f"  {gpu}" if gpu else ""
        label = f"  {tracker.label}"[: max(10, min(width // 2, width - len(tail) - 12))]
        text.append(label, self._style("run-progress--dim"))
        text.append(" ")
        text.append_text(self._bar(tracker.fraction, max(4, width - len(label) - 8 - len(tail))))
        text.append(f" {tracker.fraction:4.0%}")
        if reading is not None:
            alert = reading.lost or bool(reading.throttled)
            text.append(tail, self._style("run-progress--alert" if alert else "run-progress--gpu"))
        text.no_wrap = True
        return text
