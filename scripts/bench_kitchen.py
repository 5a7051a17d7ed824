#!/usr/bin/env python3
"""Kitchen animation cost in real tmux: frames/s reaching the terminal and CPU % of one core.

Starts `gpu-tui --pane kitchen` in a detached tmux session, lets the race play, and over a window
  fps: distinct screens seen by polling `tmux capture-pane` (the clocks change every frame, so
       each new screen is one frame; polling faster than the frame rate, so none is missed)
  cpu: the gpu-tui process's CPU time over the window, as % of one core (psutil)
Budget: >= 15 fps (the race reads as motion) at <= 25 % of one core (cheap enough to leave
running on a shared machine); hidden behind another pane it costs nothing.
Usage: python scripts/bench_kitchen.py [--size 80x24] [--seconds 8] [--scenario N] [--hidden]
  --scenario N  press `s` N times first (0 onions, 1 complex-recipe, 2 pantry-bound, ...)
  --hidden      switch to the Specs pane first: the kitchen must then cost nothing
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import psutil

SESSION = "gpu-tui-bench-kitchen"


def tmux(*args: str) -> str:
    # A private tmux server (-L): other sessions, and whoever cleans them up, cannot interfere.
    command = ["tmux", "-L", SESSION, *args]
    return subprocess.run(command, capture_output=True, text=True, check=False).stdout


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--size", default="80x24")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--scenario", type=int, default=0)
    parser.add_argument("--hidden", action="store_true")
    parser.add_argument("--command", default="gpu-tui --pane kitchen")
    args = parser.parse_args()
    width, height = args.size.split("x")
    tmux("kill-session", "-t", SESSION)
    tmux("new-session", "-d", "-s", SESSION, "-x", width, "-y", height, args.command)
    deadline = time.monotonic() + 30
    while "BRIGADE" not in tmux("capture-pane", "-p", "-t", SESSION):
        if time.monotonic() > deadline:
            print("the kitchen pane never appeared", file=sys.stderr)
            return 1
        time.sleep(0.05)
    pid = int(tmux("display", "-p", "-t", SESSION, "#{pane_pid}").strip())
    process = psutil.Process(pid)
    for _ in range(args.scenario):
        tmux("send-keys", "-t", SESSION, "s")
    if args.hidden:
        tmux("send-keys", "-t", SESSION, "1")
    # Past start-up work (inventory thread, first layout) and the tab switch's underline animation.
    time.sleep(3.0 if args.hidden else 1.0)
    before = process.cpu_times()
    start = time.monotonic()
    frames, last = 0, ""
    while (now := time.monotonic()) - start < args.seconds:
        screen = tmux("capture-pane", "-p", "-t", SESSION)
        if screen != last:
            frames, last = frames + 1, screen
        time.sleep(max(0.0, 0.01 - (time.monotonic() - now)))
    elapsed = time.monotonic() - start
    after = process.cpu_times()
    busy = (after.user - before.user) + (after.system - before.system)
    tmux("kill-server")
    fps, cpu = (frames - 1) / elapsed, 100 * busy / elapsed
    where = "hidden (Specs pane shown)" if args.hidden else f"scenario #{args.scenario}"
    print(f"{args.size} {where}: {fps:.1f} frames/s, CPU {cpu:.1f} % of one core ({elapsed:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
