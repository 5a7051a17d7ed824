"""What the host says of the processes on a GPU (psutil): user, command line, CPU, memory, age."""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gpu_tui.core.devices.fields import Maybe, Unknown

T = TypeVar("T")

NOT_IN_NAMESPACE = "not visible in this PID namespace — run the container with --pid=host"
OTHER_USER = "another user's process"
FIRST_READING = "needs a second reading"
ENDED = "the process has ended"
REUSE_SECONDS = 0.05
"""Readings of one process closer together than this are one reading: a process on two GPUs is
read by two GPU threads in the same tick, and CPU % over a few microseconds is noise."""
FORGET_SECONDS = 30.0
"""A process not asked about for this long is forgotten (it left the GPU, or ended)."""


ANCESTORS = 16
"""At most this many of a process's parents are read (a shell under tmux under sshd is four)."""


@dataclass(frozen=True)
class Parent:
    """One of a process's ancestors on the host: what the process tree shows above it."""

    pid: int
    command: Maybe[str]


@dataclass(frozen=True)
class HostProcess:
    """One process as the host sees it; each field unknown, with a reason, when hidden."""

    user: Maybe[str]
    command: Maybe[str]
    cpu_percent: Maybe[float]
    memory_bytes: Maybe[int]
    started: Maybe[float]
    """Seconds since the epoch."""
    parents: tuple[Parent, ...] = ()
    """Its ancestors below init, the outermost first (none read: empty)."""


def hidden(reason: str) -> HostProcess:
    """A process we may not see at all: every field unknown for ``reason``."""
    missing = Unknown(reason)
    return HostProcess(missing, missing, missing, missing, missing)


@dataclass
class _Known:
    """A process read before: what never changes, and the last CPU time for the next CPU %."""

    process: Any
    user: Maybe[str]
    command: Maybe[str]
    started: Maybe[float]
    parents: tuple[Parent, ...] = ()
    cpu_seconds: float | None = None
    read_at: float = 0.0
    reading: HostProcess | None = None
    asked_at: float = field(default=0.0)


class HostProcesses:
    """Reads processes through psutil for the sampler's GPU threads (thread-safe).

    The user, command line and start time are read once per process; CPU % and resident memory
    each tick, CPU % as the change in the process's CPU time over the time between two
    readings (as top and nvitop do), so the first reading of a process has none yet.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._known: dict[int, _Known] = {}
        self._swept = 0.0

    def __call__(self, pid: int) -> HostProcess:
        psutil = importlib.import_module("psutil")  # imported lazily: only needed with processes
        with self._lock:
            now = self._clock()
            self._sweep(now)
            known = self._known.get(pid)
            if known is None:
                try:
                    known = self._first(psutil, psutil.Process(pid))
                except psutil.NoSuchProcess:
                    return hidden(NOT_IN_NAMESPACE)
                except psutil.AccessDenied:
                    return hidden(OTHER_USER)
                self._known[pid] = known
            known.asked_at = now
            if known.reading is not None and now - known.read_at < REUSE_SECONDS:
                return known.reading
            return self._read(psutil, pid, known, now)

    def _first(self, psutil: Any, process: Any) -> _Known:
        def get(read: Callable[[], T]) -> Maybe[T]:
            try:
                return read()
            except psutil.NoSuchProcess:
                return Unknown(NOT_IN_NAMESPACE)
            except psutil.AccessDenied:
                return Unknown(OTHER_USER)

        command = get(lambda: " ".join(process.cmdline()) or f"[{process.name()}]")
        known = _Known(process, get(process.username), command, get(process.create_time))
        known.parents = _parents(psutil, process)
        return known

    def _read(self, psutil: Any, pid: int, known: _Known, now: float) -> HostProcess:
        cpu: Maybe[float]
        memory: Maybe[int]
        try:
            with known.process.oneshot():
                started = known.process.create_time()
                times = known.process.cpu_times()
                memory = int(known.process.memory_info().rss)
        except psutil.NoSuchProcess:
            del self._known[pid]
            gone = Unknown(ENDED)
            return HostProcess(known.user, known.command, gone, gone, known.started, known.parents)
        except psutil.AccessDenied:
            denied = Unknown(OTHER_USER)
            return HostProcess(
                known.user, known.command, denied, denied, known.started, known.parents
            )
        if not isinstance(known.started, Unknown) and started != known.started:
            # The PID was reused by a new process: start over with that one.
            del self._known[pid]
            try:
                known = self._known[pid] = self._first(psutil, psutil.Process(pid))
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                return hidden(ENDED)
            known.asked_at = now
        seconds = float(times.user + times.system)
        if known.cpu_seconds is None or now <= known.read_at:
            cpu = Unknown(FIRST_READING)
        else:
            cpu = max(0.0, 100.0 * (seconds - known.cpu_seconds) / (now - known.read_at))
        known.cpu_seconds, known.read_at = seconds, now
        known.reading = HostProcess(
            known.user, known.command, cpu, memory, known.started, known.parents
        )
        return known.reading

    def _sweep(self, now: float) -> None:
        if now - self._swept < FORGET_SECONDS:
            return
        self._swept = now
        for pid in [pid for pid, k in self._known.items() if now - k.asked_at > FORGET_SECONDS]:
            del self._known[pid]


def _parents(psutil: Any, process: Any) -> tuple[Parent, ...]:
    """The process's ancestors below init (PID 1), outermost first; as many as can be read."""
    found: list[Parent] = []
    try:
        parent = process.parent()
        while parent is not None and parent.pid > 1 and len(found) < ANCESTORS:
            try:
                command: Maybe[str] = " ".join(parent.cmdline()) or f"[{parent.name()}]"
            except psutil.AccessDenied:
                command = Unknown(OTHER_USER)
            found.append(Parent(parent.pid, command))
            parent = parent.parent()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        pass  # the chain ends where it can no longer be read
    return tuple(reversed(found))
