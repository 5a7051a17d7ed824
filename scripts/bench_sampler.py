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
  ... latencies, R s     8 GPUs whose calls take what a real driver's do (LATENCIES, or
                         --latency CALL=MS), at a refresh of R s: the tick must fit the per-GPU
                         deadline (half the refresh, at most 0.5 s) or readings go stale
  real NVML              the host + the real driver, when this machine has one
Usage: python scripts/bench_sampler.py [--ticks N] [--latency nvmlDeviceGetPcieThroughput=20]
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
LATENCIES_MS = {
    # counts bytes over a 20 ms window before answering (NVML reference)
    "nvmlDeviceGetPcieThroughput": 20.0,
    # 4.5 ms per call measured on an RTX 4090 (https://github.com/flightlessmango/MangoHud/issues/2104)
    "nvmlDeviceGetComputeRunningProcesses_v2": 4.5,
    "nvmlDeviceGetGraphicsRunningProcesses_v2": 4.5,
}
"""Per-call latencies of the realistic scenario, in ms (unverified on hardware: gpu_check.sh's
nvml section times every call on a lent GPU machine)."""


def measure(
    name: str,
    ticks: int,
    interval: float = 1.0,
    budget_ms: float = BUDGET_MS,
    **sources: list[GpuSource],
) -> None:
    sampler = Sampler(interval=interval, **sources)  # type: ignore[arg-type]
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
        f"stale {stale}  {'OK' if median <= budget_ms else 'OVER BUDGET'} ({budget_ms:g} ms)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=500)
    parser.add_argument(
        "--latency",
        action="append",
        default=[],
        metavar="CALL=MS",
        help="a binding function's latency in the realistic scenario (repeatable)",
    )
    args = parser.parse_args()
    latencies = dict(LATENCIES_MS)
    for item in args.latency:
        call, _, ms = item.partition("=")
        latencies[call] = float(ms)
    print(f"one sampler tick, {args.ticks} ticks after {WARMUP} warm-up; budget {BUDGET_MS} ms")
    measure("host only", args.ticks)
    for reading in ("h200", "a100_80gb_pcie_mig", "hgx_h100_8gpu"):
        with driver(reading) as library:  # under the real pynvml until the block ends
            session = NvmlSession.open(library.binding)
            measure(f"simulated, {reading}", args.ticks, gpu_sources=[session])
            measure(f"simulated, {reading}, inline", args.ticks, inline_sources=[session])
            session.close()
    for refresh in (0.1, 1.0):
        with driver("hgx_h100_8gpu", add=["hgx_h100_8gpu_training"]) as library:
            for call, ms in latencies.items():
                library.block(call, ms / 1000)
            session = NvmlSession.open(library.binding)
            ticks = max(20, args.ticks // 10)
            name = f"simulated, 8 GPUs, latencies, {refresh:g} s"
            deadline_ms = min(500.0, refresh * 1000 / 2)  # the sampler's per-GPU deadline
            measure(name, ticks, refresh, deadline_ms, gpu_sources=[session])
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
