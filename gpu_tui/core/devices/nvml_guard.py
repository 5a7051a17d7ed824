"""NVML calls under a time limit, on daemon threads: a driver that hangs never hangs gpu-tui.

A call into a sick driver (``nvmlInit``, ``nvmlDeviceGetCount``, even ``import pynvml`` when the
library sits on a dead network mount) can block forever, in C, where no signal reaches it. So
gpu-tui never waits for one without a deadline, and never on a thread that has to end:

* :class:`NvmlGate` runs the work that opens, discovers and closes NVML on one daemon thread of
  its own, and waits for it no longer than :data:`CALL_LIMIT_SECONDS` *per call*. When a call
  overruns, the caller gets :class:`NotAnsweringError`; the call keeps its thread (the only one it
  ever holds), and every later caller fails at once with the same answer until it returns.
* :class:`TracedNvml` wraps the ``pynvml`` module so that each thread's call in flight, and when
  it began, can be read (:func:`call_in_flight`): that names the call in the message, and lets
  the per-GPU readers (``core.gpu_reader``) apply the same limit to live readings.
* :func:`in_daemon_thread` runs a blocking function where quitting never waits for it (the UI
  awaits the future; thread pools, Textual's thread workers among them, are joined at exit).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Generic, TypeVar

T = TypeVar("T")

CALL_LIMIT_SECONDS = 5.0
"""How long one NVML call may take before the driver counts as not answering. A healthy
``nvmlInit`` takes up to 1–2 s on an 8-GPU node (longer without persistence mode); every other
call takes milliseconds. Read when each wait starts, so a test may lower it."""
IMPORT_CALL = "import pynvml"
"""The name the import of the binding goes by in messages (it can hang too)."""
_IDLE_CHECK_SECONDS = 0.05
"""How often a waiter looks again while the NVML thread runs our own code between calls."""

# Thread id → (the NVML call it is in, when that call began). One entry per thread at most: a
# plain dict is enough, each store and delete is atomic under the GIL.
_in_flight: dict[int, tuple[str, float]] = {}


class NotAnsweringError(Exception):
    """An NVML call (or the import of the binding) did not return within its time limit."""

    def __init__(self, call: str, limit: float) -> None:
        self.call = call
        self.limit = limit
        super().__init__(self.reason)

    @property
    def detail(self) -> str:
        """``NVML call nvmlInit did not return within 5 s``."""
        what = self.call if self.call == IMPORT_CALL else f"NVML call {self.call}"
        return f"{what} did not return within {self.limit:g} s"

    @property
    def reason(self) -> str:
        """``not answering (NVML call nvmlInit did not return within 5 s)``."""
        return f"{NOT_ANSWERING} ({self.detail})"


NOT_ANSWERING = "not answering"
RETRY_SECONDS = (2.0, 5.0, 10.0, 30.0, 60.0)
"""After NVML did not answer in time, ask again after each of these (then every minute): one
slow call must not leave the GPUs out for the whole session."""


def not_answering(reason: str | None) -> bool:
    """Whether a backend's ``reason`` is a driver that did not answer in time (and may later)."""
    return bool(reason) and str(reason).startswith(NOT_ANSWERING + " (")


def retry_delay(tries: int) -> float:
    """Seconds before asking a driver that did not answer again, after ``tries`` tries."""
    return RETRY_SECONDS[min(tries, len(RETRY_SECONDS) - 1)]


def call_in_flight(thread: threading.Thread | None) -> tuple[str, float] | None:
    """``(call, monotonic start)`` of the NVML call ``thread`` is in now, or ``None``."""
    ident = thread.ident if thread is not None else None
    return _in_flight.get(ident) if ident is not None else None


def overdue(thread: threading.Thread | None, limit: float) -> NotAnsweringError | None:
    """The call ``thread`` has been in for ``limit`` seconds or more, if any."""
    flight = call_in_flight(thread)
    if flight is None or time.monotonic() - flight[1] < limit:
        return None
    return NotAnsweringError(flight[0], limit)


def limit_now(limit: float | None) -> float:
    """``limit``, or :data:`CALL_LIMIT_SECONDS` as it is at this moment."""
    return CALL_LIMIT_SECONDS if limit is None else limit


def traced_call(name: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Call ``function`` recorded as this thread's call in flight, named ``name``."""
    ident = threading.get_ident()
    outer = _in_flight.get(ident)
    _in_flight[ident] = (name, time.monotonic())
    try:
        return function(*args, **kwargs)
    finally:
        if outer is None:
            _in_flight.pop(ident, None)
        else:
            _in_flight[ident] = outer


class TracedNvml(ModuleType):
    """The ``pynvml`` module as gpu-tui sees it: every ``nvml*`` function call is recorded as
    the calling thread's call in flight; constants and error classes pass straight through."""

    def __init__(self, module: ModuleType) -> None:
        super().__init__(module.__name__, module.__doc__)
        self.traced_module = module

    def __getattr__(self, name: str) -> Any:
        # Only called for a name not wrapped yet: a function the binding lacks raises
        # AttributeError here, as the module itself would.
        target = getattr(self.traced_module, name)
        if not (name.startswith("nvml") and callable(target)):
            return target

        def traced(*args: Any, **kwargs: Any) -> Any:
            return traced_call(name, target, *args, **kwargs)

        # Kept, so the next access is a plain attribute hit: a tick makes ~25 calls per GPU.
        setattr(self, name, traced)
        return traced


def traced(module: ModuleType) -> ModuleType:
    """``module`` wrapped in :class:`TracedNvml` (once)."""
    return module if isinstance(module, TracedNvml) else TracedNvml(module)


@dataclass(eq=False)
class _Job(Generic[T]):
    work: Callable[[], T]
    done: threading.Event = field(default_factory=threading.Event)
    result: T | None = None
    error: BaseException | None = None
    abandoned: bool = False
    """Its caller gave up before it started: the NVML thread skips it."""


class NvmlGate:
    """Runs NVML work one job at a time on a daemon thread, with a time limit per NVML call.

    ``run(work)`` returns what ``work`` returns or raises what it raises; it raises
    :class:`NotAnsweringError` when one NVML call inside ``work`` (or in an earlier job still
    running) has not returned within the limit, and at once while such a call is still stuck.
    """

    def __init__(self, name: str = "gpu-tui-nvml") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[_Job[Any]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._stuck: NotAnsweringError | None = None

    @property
    def stuck(self) -> NotAnsweringError | None:
        """The call a caller gave up on, while it has still not returned (else ``None``)."""
        return self._stuck

    def run(self, work: Callable[[], T], *, limit: float | None = None) -> T:
        """Run ``work`` on the NVML thread; wait while each NVML call is within ``limit``."""
        limit = limit_now(limit)
        with self._lock:
            if self._stuck is not None:
                raise NotAnsweringError(self._stuck.call, self._stuck.limit)
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
                self._thread.start()
            thread = self._thread
        if thread is threading.current_thread():
            return work()  # a job that opens a session, say: queueing it would wait on itself
        job: _Job[T] = _Job(work)
        self._jobs.put(job)
        while not job.done.wait(self._until_next_check(thread, limit)):
            with self._lock:
                if job.done.is_set():
                    break
                hung = self._stuck or overdue(thread, limit)
                if hung is not None:
                    self._stuck = hung
                    job.abandoned = True
                    raise NotAnsweringError(hung.call, hung.limit)
        if job.error is not None:
            raise job.error
        return job.result  # type: ignore[return-value]  # set whenever error is None

    @staticmethod
    def _until_next_check(thread: threading.Thread, limit: float) -> float:
        flight = call_in_flight(thread)
        if flight is None:
            return _IDLE_CHECK_SECONDS
        return max(0.001, flight[1] + limit - time.monotonic())

    def _serve(self) -> None:
        while True:
            job = self._jobs.get()
            if job.abandoned:
                continue
            try:
                job.result = job.work()
            except BaseException as error:  # handed to the caller, who decides
                job.error = error
            with self._lock:
                self._stuck = None  # whatever hung has returned: the driver answers again
                job.done.set()


GATE = NvmlGate()
"""The one NVML thread of this process: discovery, sessions opening and closing, telemetry."""


def in_daemon_thread(function: Callable[[], T], name: str) -> Future[T]:
    """Run ``function`` on a new daemon thread; its result (or exception) in a future.

    For callers that must not be waited for at exit: a Textual thread worker is not a daemon
    thread, so one stuck behind a hung driver would hold up quitting.
    """
    future: Future[T] = Future()

    def target() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(function())
        except BaseException as error:  # handed to whoever awaits the future
            future.set_exception(error)

    threading.Thread(target=target, name=name, daemon=True).start()
    return future
