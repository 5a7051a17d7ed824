"""What the tmux benchmarks share: driving tmux, and a process's CPU time in nanoseconds.

The usual CPU figure counts 10 ms clock ticks: 0.1 % steps over 10 s, as coarse as a bare
Textual app's whole reading. The kernel's per-thread counters (``/proc/PID/task/*/schedstat``)
count nanoseconds.
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def thread_seconds(pid: int) -> dict[str, float]:
    """Each thread's CPU time so far in seconds, by thread id (empty off Linux)."""
    times = {}
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            times[task.name] = int((task / "schedstat").read_text().split()[0]) / 1e9
        except (OSError, IndexError, ValueError):
            continue  # the thread ended while we looked
    return times


def terminal_size(text: str) -> tuple[int, int]:
    """``COLSxROWS`` (an argparse type: a wrong one is a usage error, exit 2)."""
    columns, _, rows = text.partition("x")
    if not (columns.isdigit() and rows.isdigit() and int(columns) > 0 and int(rows) > 0):
        raise argparse.ArgumentTypeError(f"expected COLSxROWS such as 160x48, got {text!r}")
    return int(columns), int(rows)
