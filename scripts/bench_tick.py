#!/usr/bin/env python3
"""The Monitor's work per tick, warm: reading, drawing the rows, and the screen update.

Runs the real app headless with the SIMULATED GPU, stops its sampler thread, then drives
TICKS ticks by hand on the event loop's thread, timing each part with the thread's CPU clock:
  sampler  one Sampler.tick (psutil and the simulated GPU, history)
  redraw   MonitorPane.redraw (every widget's rows built, changed ones marked)
  screen   Textual's screen update for those rows (compositor; the headless driver writes
           nothing, so the terminal output is left out)
Warm loops read lower than the live app, whose tick wakes with cold caches once a second (see
bench_startup.py for that), but they repeat to within a few per cent, so two versions can be
told apart by a change too small for the live figures on a noisy VM. Run it for each version,
alternately, a few times.
Usage: python scripts/bench_tick.py [--size COLSxROWS] [--ticks N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from typing import TypeVar

from tmux_cpu import terminal_size

from gpu_tui.ui.app import make_app
from gpu_tui.ui.config import AppConfig
from gpu_tui.ui.monitor_pane import MonitorPane
from gpu_tui.ui.widgets.textual_internals import screen_update

T = TypeVar("T")


def timed(call: Callable[[], T]) -> tuple[T, float]:
    """What ``call`` returned, and the microseconds of this thread's CPU time it took."""
    started = time.thread_time_ns()
    result = call()
    return result, (time.thread_time_ns() - started) / 1e3


async def measure(size: tuple[int, int], ticks: int) -> dict[str, list[float]]:
    app = make_app(AppConfig(demo=True, pane="monitor"))
    times: dict[str, list[float]] = {"sampler": [], "redraw": [], "screen": []}
    async with app.run_test(size=size):
        await asyncio.sleep(3)  # the pane is up, the sampler has ticked
        pane = app.query_one(MonitorPane)
        sampler = pane.sampler
        assert sampler is not None, "the sampler never started"
        sampler.pause()
        await asyncio.sleep(0.3)
        sampler.on_tick = None  # ticks below are drawn here, not posted
        screen = app.screen
        for _ in range(ticks):
            pane._latest, took = timed(sampler.tick)
            times["sampler"].append(took)
            times["redraw"].append(timed(pane.redraw)[1])
            # What the screen's update timer runs: the compositor's pass.
            times["screen"].append(timed(lambda: screen_update(screen))[1])
            await asyncio.sleep(0)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--size", type=terminal_size, default=(160, 48), help="COLSxROWS")
    parser.add_argument("--ticks", type=int, default=400)
    args = parser.parse_args()
    if args.ticks < 1:
        parser.error("--ticks must be at least 1")
    times = asyncio.run(measure(args.size, args.ticks))
    columns, rows = args.size
    parts = "  ".join(f"{name} {statistics.median(v):6.0f} µs" for name, v in times.items())
    print(f"{columns}×{rows} --demo, {args.ticks} warm ticks, medians: {parts}")


if __name__ == "__main__":
    main()
