#!/usr/bin/env python3
"""Idle CPU of several terminal apps running at the same time, each in its own tmux session.

bench_startup.py runs gpu-tui and the bare app one after the other; on a small VM the machine's
background load drifts between runs by as much as the changes worth measuring. Here every
command runs through the same seconds, so a comparison of two checkouts (or of gpu-tui and
the bare app) sees the same machine. Each round starts the commands afresh, waits for them to
settle, and reads each process's CPU time from the kernel's per-thread counters (ns).

Usage: python scripts/bench_side_by_side.py [--size 160x48] [--rounds 4] [--idle 20]
                                             NAME=COMMAND ...
Example, this checkout against another one, with the bare app as the yardstick:
  python scripts/bench_side_by_side.py bare="python scripts/bare_app.py" \\
      now="python -m gpu_tui --pane monitor --demo" \\
      before="cd /tmp/old && python -m gpu_tui --pane monitor --demo"
Ratios are against the first command. The apps share the machine's caches and the tmux server,
so every figure reads higher than when each runs alone: use this to compare versions with one
another, and bench_startup.py for the budget against the bare app.
"""

from __future__ import annotations

import argparse
import statistics
import time

import psutil
from tmux_cpu import terminal_size, thread_seconds, tmux

SETTLE_SECONDS = 9.0
"""Start-up work (inventory, first samples, the first garbage collection) is over by then."""


def cpu_seconds(pid: int) -> float:
    """CPU time so far of every thread of ``pid`` and of its children (a command such as
    ``cd DIR && python ...`` runs under a shell)."""
    try:
        pids = [pid, *(child.pid for child in psutil.Process(pid).children(recursive=True))]
    except psutil.NoSuchProcess:
        return 0.0
    return sum(sum(thread_seconds(one).values()) for one in pids)


def one_round(commands: dict[str, str], size: tuple[int, int], idle: float) -> dict[str, float]:
    """Each command's CPU, % of one core, over the same ``idle`` seconds."""
    sessions = {name: f"side-by-side-{name}" for name in commands}
    for name, command in commands.items():
        tmux("kill-session", "-t", sessions[name])
        columns, rows = str(size[0]), str(size[1])
        tmux("new-session", "-d", "-s", sessions[name], "-x", columns, "-y", rows, command)
    try:
        time.sleep(SETTLE_SECONDS)
        pids = {
            name: int(tmux("display", "-p", "-t", session, "#{pane_pid}"))
            for name, session in sessions.items()
        }
        before = {name: cpu_seconds(pid) for name, pid in pids.items()}
        time.sleep(idle)
        return {name: 100 * (cpu_seconds(pid) - before[name]) / idle for name, pid in pids.items()}
    finally:
        for session in sessions.values():
            tmux("kill-session", "-t", session)


def named_command(pair: str) -> tuple[str, str]:
    """``NAME=COMMAND`` (an argparse type: a wrong one is a usage error, exit 2)."""
    name, sep, command = pair.partition("=")
    if not sep or not name or not command:
        raise argparse.ArgumentTypeError(f"expected NAME=COMMAND, got {pair!r}")
    return name, command


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--size", type=terminal_size, default="160x48", help="terminal size, COLSxROWS"
    )
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--idle", type=float, default=20.0, help="measured seconds per round")
    parser.add_argument("commands", nargs="+", type=named_command, metavar="NAME=COMMAND")
    args = parser.parse_args()
    size = args.size
    commands = dict(args.commands)
    readings: dict[str, list[float]] = {name: [] for name in commands}
    for number in range(args.rounds):
        for name, percent in one_round(commands, size, args.idle).items():
            readings[name].append(percent)
        shown = "  ".join(f"{name} {values[-1]:.3f} %" for name, values in readings.items())
        print(f"round {number + 1}: {shown}", flush=True)
    first = next(iter(commands))
    yardstick = statistics.median(readings[first])
    print(f"\n{args.rounds} rounds of {args.idle:.0f} s at {size[0]}×{size[1]}, medians:")
    for name, values in readings.items():
        median = statistics.median(values)
        print(f"  {name:<12} {median:.3f} % of a core  {median / yardstick:.2f}× {first}")


if __name__ == "__main__":
    main()
