"""A stand-in for ``psutil.Process``: the host processes a test describes, by PID."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, ClassVar

import psutil


@dataclass
class FakeHostProcess:
    """What the host says of one PID; ``cpu_seconds`` is moved on by the test."""

    user: str = "alice"
    cmdline: list[str] = field(default_factory=lambda: ["python", "train.py"])
    cpu_seconds: float = 10.0
    busy_cores: float = 0.0
    """CPU time also grows by this many seconds a second of the monotonic clock."""
    rss: int = 5 << 30
    created: float = 1_700_000_000.0
    hidden: str | None = None
    """``NoSuchProcess`` or ``AccessDenied``: psutil raises it for this PID."""
    parent: int | None = None
    """The parent's PID (listed in the table too); None: init's child."""


class _Oneshot:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


class FakeProcess:
    """``psutil.Process`` over ``FakeProcess.table``; an unlisted PID does not exist."""

    table: ClassVar[dict[int, FakeHostProcess]] = {}

    def __init__(self, pid: int) -> None:
        entry = self.table.get(pid)
        if entry is None or entry.hidden == "NoSuchProcess":
            raise psutil.NoSuchProcess(pid)
        if entry.hidden == "AccessDenied":
            raise psutil.AccessDenied(pid)
        self.pid = pid
        self.entry = entry

    def oneshot(self) -> _Oneshot:
        return _Oneshot()

    def cmdline(self) -> list[str]:
        return list(self.entry.cmdline)

    def name(self) -> str:
        return "kworker"

    def username(self) -> str:
        return self.entry.user

    def create_time(self) -> float:
        return self.entry.created

    def cpu_times(self) -> Any:
        seconds = self.entry.cpu_seconds + self.entry.busy_cores * time.monotonic()
        return SimpleNamespace(user=seconds * 0.75, system=seconds / 4)

    def memory_info(self) -> Any:
        return SimpleNamespace(rss=self.entry.rss)

    def parent(self) -> FakeProcess | None:
        return None if self.entry.parent is None else FakeProcess(self.entry.parent)
