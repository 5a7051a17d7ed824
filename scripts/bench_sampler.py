#!/usr/bin/env python3
"""Median time of one sampler tick (the host + every GPU), over the simulated driver and for real.

Each scenario ticks WARMUP times, then TICKS times, timing ``Sampler.tick()`` alone (the sleep
between ticks is not counted).
Budget: one tick (the host and every GPU read once) takes <= 5 ms, median. At the fastest
refresh interval, 0.1 s, that is 5 % of one core, so sampling never competes with drawing.
  host only              this machine's CPU and memory (/proc held open, and psutil), no GPU
  simulated, <reading>   the host + nvidia-ml-py's real pynvml over the simulated driver
                         (tests/fakes/simulated_driver.py) holding a recorded node
  ... inline             the same GPUs read on the sampler thread, to show the worker-thread cost
  real NVML              the host + the real driver, when this machine has one
Usage: python scripts/bench_sampler.py [--ticks N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.monitor.gpu_reader import GpuSource
from gpu_tui.core.monitor.sampler import Sampler

# The simulated driver lives with the tests, in the checkout this script is run from.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.simulated_driver import driver

WARMUP = 20
BUDGET_MS = 5.0


def measure(name: str, ticks: int, **sources: list[GpuSource]) -> None:
    sampler = Sampler(interval=1.0, **sources)  # type: ignore[arg-type]
    for _ in range(WARMUP):
        sampler.tick()
    times = []
    for _ in range(ticks):
        started = time.perf_counter()
        sample = sampler.tick()
        times.append((time.perf_counter() - started) * 1000)
    sampler.stop()
    stale = sum(g.stale for g in sample.gpus)
    times.sort()
    median = statistics.median(times)
    print(
        f"{name:<38} gpus {len(sample.gpus)}  median {median:6.3f} ms  "
        f"p90 {times[int(0.9 * len(times))]:6.3f} ms  max {times[-1]:7.3f} ms  "
        f"stale {stale}  {'OK' if median <= BUDGET_MS else 'OVER BUDGET'}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=500)
    args = parser.parse_args()
    print(f"one sampler tick, {args.ticks} ticks after {WARMUP} warm-up; budget {BUDGET_MS} ms")
    measure("host only", args.ticks)
    for reading in ("h200", "a100_80gb_pcie_mig", "hgx_h100_8gpu"):
        with driver(reading) as library:  # under the real pynvml until the block ends
            session = NvmlSession.open(library.binding)
            measure(f"simulated, {reading}", args.ticks, gpu_sources=[session])
            measure(f"simulated, {reading}, inline", args.ticks, inline_sources=[session])
            session.close()
    real = NvmlSession.open()  # the driver taken away: the binding loads libnvidia-ml itself
    if real.status.available:
        measure("real NVML", args.ticks, gpu_sources=[real])
        real.close()
    else:
        print(f"real NVML: not measured ({real.status.reason})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
