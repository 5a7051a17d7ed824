#!/usr/bin/env python3
"""What one reading of the host costs the sampler, from cold, psutil alone beside /proc held open.

The sampler sleeps a whole interval between ticks, so each tick starts with cold caches; on a
VM the first file opened after such a sleep costs far more than the same open warm. This reads
the host the way a tick does, after SLEEP seconds of sleep each time, alternating two readers:
  psutil   LiveHostReader(use_procfs=False): psutil opens /proc/stat and /proc/meminfo each time
  procfs   LiveHostReader(): both files re-read through descriptors held open (Linux)
and prints each one's median CPU time (this thread's clock) and their ratio.
Usage: python scripts/bench_host_read.py [--rounds N] [--sleep SECONDS]
"""

from __future__ import annotations

import argparse
import statistics
import time

from gpu_tui.core.monitor.host_reader import LiveHostReader


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--sleep", type=float, default=0.5)
    args = parser.parse_args()
    readers = {"psutil": LiveHostReader(use_procfs=False), "procfs": LiveHostReader()}
    took: dict[str, list[float]] = {name: [] for name in readers}
    for _ in range(args.rounds):
        for name, reader in readers.items():
            time.sleep(args.sleep)
            started = time.thread_time_ns()
            reader.read()
            took[name].append((time.thread_time_ns() - started) / 1e3)
    medians = {name: statistics.median(times) for name, times in took.items()}
    for name, median in medians.items():
        print(f"{name:7s} median {median:6.0f} µs   min {min(took[name]):6.0f} µs")
    print(f"procfs / psutil = {medians['procfs'] / medians['psutil']:.2f}")


if __name__ == "__main__":
    main()
