"""Race playback: model seconds from wall seconds on an injectable clock, in two speed stages."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

# The faster side finishes after about FIRST_STAGE wall seconds; if the slower side would then
# need more than SINGLE_STAGE_MAX in all, it fast-forwards and ends SECOND_STAGE seconds later.
# So every race plays in 16-18 s at speed ×1, whatever the ratio (1,000× for onions).
FIRST_STAGE = 8.0
SECOND_STAGE = 10.0
SINGLE_STAGE = 16.0
MIN_SPEED, MAX_SPEED = 1 / 8, 64.0


@dataclass(frozen=True)
class Schedule:
    """How fast model time runs: ``rate1`` model s per wall s until ``split``, then ``rate2``."""

    split: float
    end: float
    rate1: float
    rate2: float

    @property
    def fast_forward(self) -> float:
        """How much faster the second stage runs than the first (1 when there is one stage)."""
        return self.rate2 / self.rate1

    def rate(self, t: float) -> float:
        return self.rate1 if t < self.split else self.rate2

    def wall_seconds(self) -> float:
        """Length of the whole race at speed ×1."""
        return self.split / self.rate1 + (self.end - self.split) / self.rate2


def make_schedule(chef_end: float, brigade_end: float) -> Schedule:
    """A schedule in which both finish lines are visible, however far apart they are."""
    fast, slow = sorted((chef_end, brigade_end))
    slow = max(slow, 1e-9)
    if fast <= 0 or slow / fast * FIRST_STAGE <= SINGLE_STAGE:
        rate = slow / SINGLE_STAGE
        return Schedule(slow, slow, rate, rate)
    return Schedule(fast, slow, fast / FIRST_STAGE, (slow - fast) / SECOND_STAGE)


class Playback:
    """The race clock: play, pause, step, restart, speed; reads wall time only from ``clock``.

    Tests pass a fake clock and call ``tick()``; the pane's timer only asks for a tick.
    """

    def __init__(self, schedule: Schedule, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.schedule = schedule
        self.t = 0.0
        self.speed = 1.0
        self.playing = False
        self._last = clock()

    @property
    def finished(self) -> bool:
        return self.t >= self.schedule.end

    def reset(self, schedule: Schedule | None = None) -> None:
        if schedule is not None:
            self.schedule = schedule
        self.t = 0.0
        self._last = self.clock()

    def play(self) -> None:
        if self.finished:
            self.reset()
        self.playing = True
        self._last = self.clock()

    def pause(self) -> None:
        self.playing = False

    def toggle(self) -> None:
        self.pause() if self.playing else self.play()

    def faster(self) -> None:
        self.speed = min(MAX_SPEED, self.speed * 2)

    def slower(self) -> None:
        self.speed = max(MIN_SPEED, self.speed / 2)

    def step(self, wall: float = 0.25) -> None:
        """Pause and move on by what ``wall`` seconds of playing at ×1 would show."""
        self.playing = False
        self._advance(wall)

    def tick(self) -> float:
        """Advance by the wall time since the last tick (when playing); returns model time."""
        now = self.clock()
        if self.playing:
            self._advance((now - self._last) * self.speed)
            if self.finished:
                self.playing = False
        self._last = now
        return self.t

    def _advance(self, wall: float) -> None:
        s = self.schedule
        t = self.t
        if t < s.split:
            reach = (s.split - t) / s.rate1
            if wall <= reach:
                self.t = t + wall * s.rate1
                return
            wall -= reach
            t = s.split
        self.t = min(s.end, t + wall * s.rate2)
