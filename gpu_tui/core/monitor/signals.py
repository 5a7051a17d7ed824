"""Signalling a GPU process from the Monitor: only a process this user may signal, and only one
that is the GPU's process for sure.

NVML reports host PIDs. Inside a container without the host's PID namespace the same number may
be another process of the container's, so a PID is signalled only when the process behind it
here holds a GPU device open (``/dev/nvidia*`` among its open files): that is the one NVML meant.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

SIGNALS = (
    (signal.SIGTERM, "TERM", "ask it to stop: it can save and clean up"),
    (signal.SIGINT, "INT", "as Ctrl-C in its terminal"),
    (signal.SIGKILL, "KILL", "stop it at once: nothing is saved"),
)
"""What ``K`` offers, gentlest first."""
PROC = Path("/proc")


def holds_a_gpu(pid: int, proc: Path = PROC) -> bool | None:
    """Whether process ``pid`` has a ``/dev/nvidia*`` device open (None: cannot tell)."""
    try:
        for entry in (proc / str(pid) / "fd").iterdir():
            try:
                if os.readlink(entry).startswith("/dev/nvidia"):
                    return True
            except OSError:
                continue
    except PermissionError:
        return None
    except OSError:
        return False
    return False


def refusal(pid: int, proc: Path = PROC) -> str | None:
    """Why ``pid`` may not be signalled from here, or None when it may."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return f"PID {pid} is not visible here (another PID namespace, or it has ended)"
    except PermissionError:
        return f"PID {pid} is another user's process: you may not signal it"
    held = holds_a_gpu(pid, proc)
    if held is None:
        return f"cannot see PID {pid}'s open files, so not sure it is the GPU's process"
    if not held:
        return (
            f"PID {pid} here holds no GPU: it is not the process NVML reported (a container "
            "sees other PIDs than the host)"
        )
    return None


def send(pid: int, number: int) -> str:
    """Signal ``pid``; what happened, in words."""
    name = signal.Signals(number).name
    try:
        os.kill(pid, number)
    except OSError as error:
        return f"{name} to PID {pid} failed: {error.strerror or error}"
    return f"sent {name} to PID {pid}"
