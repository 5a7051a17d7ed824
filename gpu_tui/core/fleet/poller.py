"""Poller: when to ask a server again — whether an answer is awaited, the failures in a row, and
when the next question is due (later after each failure, doubling up to a limit)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Poller:
    """One question asked again and again on a thread; the UI's timer asks :meth:`due`."""

    first_wait: float
    """Seconds to wait after the first failure (each further one in a row doubles it)."""
    most_wait: float
    """The longest wait after failures."""
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    in_flight: bool = False
    failures: int = 0
    """Failed questions in a row."""
    next_at: float = 0.0
    """The clock's time from which the next question is due."""

    def due(self) -> bool:
        """Whether to ask now: no answer is awaited and the wait is over."""
        return not self.in_flight and self.clock() >= self.next_at

    def start(self) -> None:
        self.in_flight = True

    def stop(self) -> None:
        """The answer awaited no longer counts (whoever asked has gone)."""
        self.in_flight = False

    def ask_now(self) -> None:
        """Make the next question due at once (a refresh asked for by hand)."""
        self.next_at = 0.0

    def answered(self, wait: float) -> None:
        """An answer came: ask again ``wait`` seconds from now."""
        self.in_flight = False
        self.failures = 0
        self.next_at = self.clock() + wait

    def failed(self) -> float:
        """The question failed: wait longer than after the last failure. Returns the wait."""
        self.in_flight = False
        self.failures += 1
        self.next_at = self.clock() + self.backoff
        return self.backoff

    @property
    def backoff(self) -> float:
        """Seconds to wait after ``failures`` failures in a row: doubling, at most ``most_wait``."""
        return float(min(self.first_wait * 2 ** max(self.failures - 1, 0), self.most_wait))
