"""Reads each GPU on its own worker thread with a deadline, so a hung driver call stalls nothing."""

from __future__ import annotations

import dataclasses
import queue
import threading
from collections.abc import Callable
from typing import Protocol

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.nvml_guard import NotAnsweringError, limit_now, overdue
from gpu_tui.core.monitor.samples import GpuSample

NOT_ANSWERED_YET = "the driver has not answered yet (a call is hanging)"


class GpuSource(Protocol):
    """A set of GPUs that can be read (``NvmlSession``, the simulated GPU, test stubs)."""

    @property
    def device_count(self) -> int: ...

    def sample(self, index: int) -> GpuSample: ...


class FunctionSource:
    """A ``GpuSource`` from a plain function, e.g. ``simulated_sample`` for ``--demo``."""

    def __init__(self, device_count: int, read: Callable[[int], GpuSample]) -> None:
        self.device_count = device_count
        self._read = read

    def sample(self, index: int) -> GpuSample:
        return self._read(index)


def unknown_gpu_sample(index: int, reason: str, *, stale: bool = False) -> GpuSample:
    """A reading where every field is unknown for the same reason."""
    missing = Unknown(reason)
    values = {
        f.name: missing
        for f in dataclasses.fields(GpuSample)
        if f.name not in ("index", "lost", "stale", "simulated", "mig_instances")
    }
    return GpuSample(index=index, stale=stale, **values)  # type: ignore[arg-type]


class DeviceReader:
    """One GPU's reader: at most one driver call in flight, on one daemon thread.

    ``begin`` hands the worker a request unless it is still stuck on an earlier one (so a
    permanently hung device holds one thread, never a growing pile). ``finish`` waits until a
    deadline and returns the fresh reading, or the last one marked ``stale``. Only the sampler
    thread calls ``begin``/``finish``; the worker talks back through a queue.

    An NVML call that has not returned within ``limit`` seconds (default: the NVML call limit)
    makes the device :attr:`not_answering`, named after the call (NVML sources only: the
    call is known through ``nvml_guard.TracedNvml``).
    """

    def __init__(
        self, source: GpuSource, index: int, name: str, *, limit: float | None = None
    ) -> None:
        self._source = source
        self._index = index
        self._name = name
        self._limit = limit
        # C-implemented queues: the hand-off costs microseconds, which matters at 8 GPUs a tick.
        self._requests: queue.SimpleQueue[bool] = queue.SimpleQueue()
        self._answers: queue.SimpleQueue[GpuSample] = queue.SimpleQueue()
        self._requested = False
        self._closed = False
        self._last: GpuSample | None = None
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        """True while a driver call is in flight (between ticks: a call that hangs)."""
        return self._requested and self._answers.empty()

    @property
    def not_answering(self) -> NotAnsweringError | None:
        """The NVML call this device has been stuck in for longer than the limit, if any."""
        return overdue(self._thread, limit_now(self._limit)) if self.busy else None

    def begin(self) -> bool:
        """Ask for a fresh reading; False when the previous call has not been answered yet."""
        if self._closed or self._requested:
            return False
        self._requested = True
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name=self._name, daemon=True)
            self._thread.start()
        self._requests.put(True)
        return True

    def finish(self, timeout: float, *, wait: bool) -> GpuSample:
        """The reading, waiting up to ``timeout`` seconds when ``wait`` (this tick's request)."""
        try:
            if wait and timeout > 0:
                answer = self._answers.get(timeout=timeout)
            else:
                answer = self._answers.get_nowait()
        except queue.Empty:
            pass
        else:
            # A late answer to an earlier tick's request counts too: it is the newest reading.
            self._requested = False
            self._last = answer
            return answer
        if self._last is None:
            hung = self.not_answering
            reason = hung.reason if hung is not None else NOT_ANSWERED_YET
            return unknown_gpu_sample(self._index, reason, stale=True)
        if not self._last.stale:
            self._last = dataclasses.replace(self._last, stale=True)
        return self._last

    def read_now(self) -> GpuSample:
        """Read on the caller's thread (for sources that cannot block, e.g. simulated)."""
        self._last = self._call()
        return self._last

    def close(self) -> None:
        """Let the worker exit; a worker stuck in a driver call is a daemon and is abandoned."""
        self._closed = True
        self._requests.put(False)

    def _call(self) -> GpuSample:
        try:
            return self._source.sample(self._index)
        except Exception as error:  # one device's failure must not take the others down
            return unknown_gpu_sample(
                self._index, f"driver error ({type(error).__name__}: {error})"
            )

    def _work(self) -> None:
        while self._requests.get():
            self._answers.put(self._call())
