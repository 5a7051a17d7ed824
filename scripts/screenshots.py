#!/usr/bin/env python3
"""Regenerate screenshots/*.svg from the real app (headless), and PNGs beside them if asked.

Usage: python scripts/screenshots.py [--png] [NAME ...]
Each shot starts the real app (with --demo so the SIMULATED accelerator appears), sends keys,
waits for the pane to settle and exports an SVG. PNGs (for looking at, not committed) need
rsvg-convert (Debian: librsvg2-bin).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gpu_tui.ui.app import AppConfig, make_app

OUT = Path(__file__).resolve().parent.parent / "screenshots"
BENCH_RUNS = "tests/ui/fixtures/bench/data"


@dataclass(frozen=True)
class Shot:
    name: str
    pane: str
    size: tuple[int, int]
    keys: tuple[str, ...] = ()
    settle_seconds: float = 0.5
    demo: bool = True
    data: str | None = None
    """Bench: GPU_TUI_DATA_DIR for the shot, relative to the repository ("tmp": a new empty one)."""


SHOTS = (
    Shot("specs-80x24", "specs", (80, 24)),
    Shot("specs-gpu-80x24", "specs", (80, 24), ("down", "down", "enter", *["down"] * 11)),
    Shot("specs-160x48", "specs", (160, 48), ("down", "down", "enter", *["down"] * 11)),
    Shot("monitor-80x24", "monitor", (80, 24), settle_seconds=8),  # past the demo's warm-up
    Shot("monitor-160x48", "monitor", (160, 48), settle_seconds=8),
    # Kitchen: pause, rewind, then step (0.25 s of playback each) so the frame is exact.
    Shot("kitchen-race-80x24", "kitchen", (80, 24), ("space", "r", *["full_stop"] * 14)),
    Shot("kitchen-result-80x24", "kitchen", (80, 24), ("space", "end")),
    Shot("kitchen-race-160x48", "kitchen", (160, 48), ("space", "r", *["full_stop"] * 14)),
    Shot("kitchen-result-160x48", "kitchen", (160, 48), ("space", "end")),
    Shot("kitchen-pantry-160x48", "kitchen", (160, 48), ("s", "s", "space", "r", "full_stop")),
    # Run it for real: a real CPU measurement (~5 s with loading PyTorch), the race paused.
    Shot("kitchen-real-80x24", "kitchen", (80, 24), ("space", "m"), settle_seconds=8),
    Shot("kitchen-real-160x48", "kitchen", (160, 48), ("space", "m"), settle_seconds=8),
    Shot("guide-80x24", "guide", (80, 24), ("f", "7", "0", "B", "escape")),
    Shot("guide-160x48", "guide", (160, 48), ("b",)),
    Shot("guide-cost-80x24", "guide", (80, 24), ("o",)),
    # Bench: a real quick CPU run a few seconds in, and a recorded run (tests/ui/fixtures).
    Shot("bench-running-80x24", "bench", (80, 24), ("r",), settle_seconds=9, data="tmp"),
    Shot("bench-results-80x24", "bench", (80, 24), ("down", "down"), data=BENCH_RUNS),
    Shot("bench-crossover-80x24", "bench", (80, 24), ("p", "p"), data=BENCH_RUNS),
    Shot("bench-160x48", "bench", (160, 48), ("down", "p"), data=BENCH_RUNS),
)


async def take(shot: Shot, png: bool, out: Path = OUT, real: bool = False) -> Path:
    """One shot; ``real`` uses this machine's hardware only (no --demo) and its host name."""
    demo = shot.demo and not real
    if shot.data:
        here = OUT.parent / shot.data
        os.environ["GPU_TUI_DATA_DIR"] = tempfile.mkdtemp() if shot.data == "tmp" else str(here)
    app = make_app(AppConfig(demo=demo, pane=shot.pane, host=None if real else "gpu-tui-demo"))
    async with app.run_test(size=shot.size) as pilot:
        await pilot.pause(shot.settle_seconds)
        for key in shot.keys:
            await pilot.press(key)
        await pilot.pause(shot.settle_seconds)
        svg = out / f"{shot.name}.svg"
        svg.write_text(app.export_screenshot(title=f"gpu-tui · {shot.name}"))
    if png and shutil.which("rsvg-convert"):
        subprocess.run(["rsvg-convert", str(svg), "-o", str(svg.with_suffix(".png"))], check=True)
    return svg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="only these shots")
    parser.add_argument("--png", action="store_true", help="also write PNGs (rsvg-convert)")
    parser.add_argument("--out", type=Path, default=OUT, help="folder (default: screenshots/)")
    parser.add_argument(
        "--real",
        action="store_true",
        help="this machine's GPUs, no SIMULATED one (scripts/gpu_check.sh)",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for shot in SHOTS:
        if not args.names or shot.name in args.names:
            print(asyncio.run(take(shot, args.png, args.out, args.real)))


if __name__ == "__main__":
    main()
