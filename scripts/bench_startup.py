#!/usr/bin/env python3
"""Startup time, idle CPU and memory of gpu-tui against a bare Textual app, in real tmux.

Runs the two alternately (ROUNDS each) so both see the same machine load, and prints ratios.
  time to first full screen: from launching the command until the marker text is on screen
  idle CPU: process CPU time over IDLE_SECONDS once the screen is up, as % of one core; also
    from the kernel's per-thread run time in nanoseconds (/proc/PID/task/*/schedstat), since
    the usual figure counts 10 ms clock ticks: 0.1 % steps over 10 s, as coarse as the bare
    app's whole reading (a thread that exits inside the window is left out of that one)
  RSS: resident memory of the process after the idle window
  --repaint-rows N: also the bare app repainting N rows a second, to tell Textual's own cost
    of repainting from gpu-tui's
Usage: python scripts/bench_startup.py [--rounds N] [--idle SECONDS] [--pane specs|monitor|...]
                                      [--demo] [--size COLSxROWS] [--repaint-rows N]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path

import psutil
from tmux_cpu import terminal_size, thread_seconds, tmux

ROOT = Path(__file__).resolve().parent.parent
SESSION = f"gpu-tui-bench-{os.getpid()}"
"""Per run, so two benchmarks on one machine do not kill each other's session."""


def cpu_model_start() -> str:
    """The start of this machine's CPU model: both the Specs and the Monitor pane show it."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return " ".join(line.partition(":")[2].split()[:2])
    except OSError:
        pass
    return "AMD EPYC"


def default_marker(pane: str) -> str:
    """A regular expression that matches once the pane's first screen is full.

    The Specs pane lists the CPU before its table is filled (the values wrap to the table's
    width, known only after the first layout), so there the marker is the table's Model row.
    """
    model = re.escape(cpu_model_start())
    return rf"Model {{2,}}{model}" if pane == "specs" else model


def measure(
    command: str, marker: str, idle_seconds: float | None, size: tuple[int, int]
) -> tuple[float, float, float, float]:
    """(seconds to marker, idle CPU % of one core in clock ticks and in ns, RSS MiB) for one
    launch in a fresh session; with ``idle_seconds`` None only the first figure (others 0)."""
    session = SESSION
    tmux("kill-session", "-t", session)
    start = time.perf_counter()
    columns, rows = size
    tmux("new-session", "-d", "-s", session, "-x", str(columns), "-y", str(rows), command)
    pattern = re.compile(marker)
    while not pattern.search(tmux("capture-pane", "-p", "-t", session)):
        if time.perf_counter() - start > 30:
            tmux("kill-session", "-t", session)
            raise RuntimeError(f"{command!r} never showed {marker!r}")
        time.sleep(0.005)
    first_screen = time.perf_counter() - start
    if idle_seconds is None:
        tmux("kill-session", "-t", session)
        return first_screen, 0.0, 0.0, 0.0
    process = psutil.Process(int(tmux("display", "-p", "-t", session, "#{pane_pid}").strip()))
    time.sleep(1.0)  # let start-up work (inventory thread, first timers) finish
    before, threads_before = process.cpu_times(), thread_seconds(process.pid)
    time.sleep(idle_seconds)
    after, threads_after = process.cpu_times(), thread_seconds(process.pid)
    busy = (after.user - before.user) + (after.system - before.system)
    precise = sum(t - threads_before.get(name, 0.0) for name, t in threads_after.items())
    rss = process.memory_info().rss / 2**20
    tmux("kill-session", "-t", session)
    return first_screen, 100 * busy / idle_seconds, 100 * precise / idle_seconds, rss


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--idle", type=float, default=10.0, help="idle window in seconds")
    parser.add_argument(
        "--startup-only",
        action="store_true",
        help="measure only the time to the first full screen (no idle window, no RSS)",
    )
    parser.add_argument("--pane", default="specs")
    parser.add_argument("--demo", action="store_true")
    parser.add_argument(
        "--size", type=terminal_size, default="80x24", help="terminal size, COLSxROWS"
    )
    parser.add_argument(
        "--marker",
        help="regular expression that means gpu-tui's screen is full (default: see above)",
    )
    parser.add_argument(
        "--repaint-rows",
        type=int,
        default=0,
        help="also measure the bare app repainting this many rows a second (Textual's own cost)",
    )
    args = parser.parse_args()
    size = args.size
    marker = args.marker or default_marker(args.pane)
    idle = None if args.startup_only else args.idle
    python = sys.executable
    ours = f"{python} -m gpu_tui --pane {args.pane}" + (" --demo" if args.demo else "")
    bare = f"{python} {ROOT / 'scripts' / 'bare_app.py'}"
    results: dict[str, list[tuple[float, float, float, float]]] = {"gpu-tui": [], "bare": []}
    repainting = f"{bare} --repaint-rows {args.repaint_rows}"
    for round_number in range(args.rounds):
        results["bare"].append(measure(bare, "bare app ready", idle, size))
        results["gpu-tui"].append(measure(ours, marker, idle, size))
        print(f"round {round_number + 1}: bare {results['bare'][-1]}")
        print(f"         gpu-tui {results['gpu-tui'][-1]}")
        if args.repaint_rows:
            results.setdefault("repaint", []).append(
                measure(repainting, "bare app ready", idle, size)
            )
            print(f"         bare repainting {results['repaint'][-1]}")
    ours_start, ours_cpu, ours_ns, ours_rss = medians(results["gpu-tui"])
    bare_start, bare_cpu, bare_ns, bare_rss = medians(results["bare"])
    demo = " --demo" if args.demo else ""
    print(f"\npane {args.pane}{demo}, {args.rounds} rounds, medians ({size[0]}×{size[1]} tmux):")
    ratios = [
        ours[0] / bare[0] for ours, bare in zip(results["gpu-tui"], results["bare"], strict=True)
    ]
    print(
        f"  first full screen  gpu-tui {ours_start:.3f} s  bare {bare_start:.3f} s"
        f"  ratio {ours_start / bare_start:.2f}"
        f"  (per round: median {statistics.median(ratios):.2f},"
        f" {min(ratios):.2f}–{max(ratios):.2f})"
    )
    if args.startup_only:
        return
    print(
        f"  idle CPU           gpu-tui {ours_cpu:.2f} %  bare {bare_cpu:.2f} %"
        f"  ratio {ours_cpu / max(bare_cpu, 1e-9):.2f}"
    )
    print(
        f"  idle CPU (ns)      gpu-tui {ours_ns:.3f} %  bare {bare_ns:.3f} %"
        f"  ratio {ours_ns / max(bare_ns, 1e-9):.2f}"
    )
    print(
        f"  RSS                gpu-tui {ours_rss:.1f} MiB  bare {bare_rss:.1f} MiB"
        f"  difference {ours_rss - bare_rss:+.1f} MiB"
    )
    if args.repaint_rows:
        _, _, repaint_ns, _ = medians(results["repaint"])
        print(
            f"  idle CPU (ns)      bare repainting {args.repaint_rows} rows a second"
            f" {repaint_ns:.3f} %  ratio {repaint_ns / max(bare_ns, 1e-9):.2f}"
        )


def medians(
    runs: list[tuple[float, float, float, float]],
) -> tuple[float, float, float, float]:
    start, cpu, precise, rss = (statistics.median(run[i] for run in runs) for i in range(4))
    return start, cpu, precise, rss


if __name__ == "__main__":
    main()
