#!/usr/bin/env python3
"""Key-press latency of the Bench pane while a CPU benchmark saturates every core.

Usage: python scripts/bench_responsiveness.py [--seconds 15] [--budget 2] [--nice 10]

Runs the real app headless at 80x24 on the Bench pane, starts fp32 GEMM n=1024/2048 in the
worker process (all threads), and while it measures, presses o / t (switch view) every 100 ms.
Two figures: press → the pane's action ran (key handling), and press → the app is idle again
with the new view painted. The same presses with no run give the idle figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from dataclasses import replace
from typing import Any

from gpu_tui.core.devices import discover_host
from gpu_tui.core.devices.model import BackendStatus, Inventory
from gpu_tui.ui.app import AppConfig, make_app
from gpu_tui.ui.bench import chooser as chooser_module
from gpu_tui.ui.bench.chooser import BenchChooser
from gpu_tui.ui.bench_pane import BenchPane

LOAD = {"gemm": {"cpu": {"dtypes": {"fp32": [1024, 2048, 2048, 1024]}}}}


def cpu_only_inventory() -> Inventory:
    """This machine's CPU and memory, and no GPU looked for: the Bench pane offers the CPU."""
    skipped = BackendStatus("nvml", available=False, reason="not looked for: a CPU-only benchmark")
    return replace(discover_host(), backends={"nvml": skipped})


async def presses(pilot: Any, seconds: float) -> tuple[list[float], list[float]]:
    """(handled, idle-again) latencies in ms: press → the pane's action ran, and press → the
    app is idle again with the new view painted (Pilot's press() waits for that)."""
    pane = pilot.app.query_one(BenchPane)
    handled: list[float] = []
    original = pane.action_view

    def timed(view: str) -> None:
        handled.append(time.perf_counter())
        original(view)

    pane.action_view = timed
    ran: list[float] = []
    painted: list[float] = []
    end, keys = time.monotonic() + seconds, ("o", "t")
    while time.monotonic() < end:
        start = time.perf_counter()
        await pilot.press(keys[len(painted) % 2])
        painted.append((time.perf_counter() - start) * 1e3)
        ran.append((handled[-1] - start) * 1e3)
        await asyncio.sleep(0.1)
    pane.action_view = original
    return ran, painted


def summary(name: str, values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
    return (
        f"{name}: {len(values)} presses, median {statistics.median(values):.1f} ms, "
        f"p95 {p95:.1f} ms, max {values[-1]:.1f} ms"
    )


async def main(seconds: float, budget: float) -> None:
    inventory = cpu_only_inventory()
    app = make_app(AppConfig(pane="bench", discover=lambda: inventory, host="bench"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.5)
        idle = await presses(pilot, min(5.0, seconds))
        pane = app.query_one(BenchPane)
        chooser = pane.query_one(BenchChooser)
        chooser.overrides, chooser.budget = LOAD, budget
        chooser.select(["gemm"])
        await pilot.press("r")
        tracker = pane.query_one("#bench-progress").tracker  # type: ignore[attr-defined]
        while tracker is None or not tracker.current.startswith("gemm"):
            await pilot.pause(0.1)
        await pilot.pause(1.0)  # torch imported, GEMM threads spinning
        busy = await presses(pilot, seconds)
        still = pane.runner is not None
        await pilot.press("escape")
        while pane.runner is not None:
            await pilot.pause(0.1)
    load = os.getloadavg()[0]
    during = "during CPU GEMM" + ("" if still else " (run ended early)")
    for label, (ran, painted) in (("idle", idle), (during, busy)):
        print(summary(f"{label}, key handled", ran))
        print(summary(f"{label}, handled and repainted", painted))
    print(
        f"worker nice {chooser_module.NICE}; 1-min load average {load:.1f} on {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--budget", type=float, default=2.0, help="seconds per GEMM size")
    parser.add_argument("--nice", type=int, help="worker nice value (default: the pane's)")
    args = parser.parse_args()
    if args.nice is not None:
        chooser_module.NICE = args.nice
    with tempfile.TemporaryDirectory() as data:
        os.environ["GPU_TUI_DATA_DIR"] = data
        asyncio.run(main(args.seconds, args.budget))
