"""Two lines above the results: what the run is doing, overall and current bars, and the ETA."""

from __future__ import annotations

import time

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from gpu_tui.core.units import format_clock, format_percent
from gpu_tui.ui.bench.run_tracker import RunTracker

MIN_BAR = 6


class RunProgress(Widget):
    """Attributes down: the pane sets ``headline``/``hint`` when idle and ``tracker`` while a run
    goes on; a half-second timer (signal only) keeps the ETA moving between messages."""

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
        tracker.start(time.monotonic())
        self.running = True
        if self._timer is None:
            self._timer = self.set_interval(0.5, self.refresh)

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
        overall, eta = tracker.overall(now), tracker.eta(now)
        step = f"{tracker.index + 1}/{tracker.total} " if tracker.total else ""
        right = f" {format_percent(overall, 0):>5}  ETA {format_clock(eta)}  Esc stops"
        left = _fit(f"● {step}{tracker.current or 'starting'}", width - len(right) - 1 - MIN_BAR)
        text = Text(left, self._style("run-progress--state"))
        text.append(" ")
        text.append_text(self._bar(overall, max(MIN_BAR, width - len(left) - len(right) - 1)))
        text.append(right)
        text.append("\n")
        # On a GPU the live NVML line comes before the label, so throttling is
        # visible while it happens: "SM 1980 MHz · 612/700 W · 64 °C · power cap".
        within = tracker.within(now)
        gpu, reading = tracker.gpu or ("", None)
        tail = f"  {gpu}" if gpu else ""
        percent = f" {format_percent(within, 0):>5}"
        label = _fit(f"  {tracker.log.label}", width - len(tail) - len(percent) - 1 - MIN_BAR)
        text.append(label, self._style("run-progress--dim"))
        text.append(" ")
        bar_width = max(MIN_BAR, width - len(label) - len(percent) - len(tail) - 1)
        text.append_text(self._bar(within, bar_width))
        text.append(percent)
        if reading is not None:
            alert = reading.lost or bool(reading.throttled)
            text.append(tail, self._style("run-progress--alert" if alert else "run-progress--gpu"))
        text.no_wrap = True
        text.overflow = "ellipsis"
        return text


def _fit(text: str, width: int) -> str:
    """``text`` whole, or cut to ``width`` with an ellipsis that says so."""
    width = max(width, 12)
    return text if len(text) <= width else text[: width - 1] + "…"
