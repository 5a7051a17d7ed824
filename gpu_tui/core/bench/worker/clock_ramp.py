"""Has the GPU's SM clock ramped up from idle? Read during warm-up ("Warm-up before timing" in
the bench package docstring, ``gpu_tui/core/bench/__init__.py``).

An idle H200 sits at 345 MHz and runs at 1980 MHz under load: calls timed before the clock has
risen are slow for a reason that has nothing to do with the kernel. ``torch.cuda.clock_rate``
reads the SM clock through NVML (nvidia-ml-py, or amdsmi on ROCm) when the worker's interpreter
has it; the worker never changes clocks. Without a reading, the call-time settling in
``timing.measure`` is the only proxy, and the record says the clock was not read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

READ_EVERY_SECONDS = 0.05  # NVML averages over 1/6 s to 1 s: reading faster says nothing new
PLATEAU_READINGS = 3  # the clock has ramped when this many readings in a row ...
PLATEAU_TOLERANCE = 0.02  # ... lie within 2 % of each other


class ClockRamp:
    """Tracks SM clock readings during warm-up; :meth:`ramped` is asked after each call."""

    def __init__(self, read_mhz: Callable[[], float], now: Callable[[], float] = time.monotonic):
        self._read_mhz = read_mhz
        self._now = now
        self._last_read = -float("inf")
        self.readings: list[float] = []
        self.unreadable: str | None = None

    @classmethod
    def for_device(cls, torch: Any, device: str) -> ClockRamp:
        return cls(lambda: float(torch.cuda.clock_rate(device)))

    def ramped(self) -> bool | None:
        """True once the clock has plateaued, False while it may still be rising, None when
        it cannot be read (then warm-up does not wait for it)."""
        if self.unreadable is not None:
            return None
        if self._now() - self._last_read >= READ_EVERY_SECONDS:
            self._last_read = self._now()
            try:
                self.readings.append(self._read_mhz())
            except Exception as error:  # no NVML/amdsmi for this interpreter, or no permission
                self.unreadable = f"{type(error).__name__}: {error}".splitlines()[0]
                return None
        recent = self.readings[-PLATEAU_READINGS:]
        if len(recent) < PLATEAU_READINGS or min(recent) <= 0:
            return False
        return (max(recent) - min(recent)) / min(recent) <= PLATEAU_TOLERANCE

    def record(self) -> dict[str, Any]:
        """For the timing record: the clock at the end of warm-up, or why it was not read."""
        return {
            "warmup_sm_clock_mhz": self.readings[-1] if self.readings else None,
            "warmup_clock_unreadable": self.unreadable,
        }
