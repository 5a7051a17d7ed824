#!/usr/bin/env python3
"""Side-by-side accuracy of gpu-tui's timing against the reference tools, reported as ratios.

CPU: fp32 GEMM medians at three sizes vs torch.utils.benchmark.Timer(num_threads=all)
.blocked_autorange(), measured alternately (ours, theirs, ours, ...) in one process.
GPU (--device cuda): bf16 8192³ GEMM vs triton.testing.do_bench (when triton imports) and
device copy bandwidth vs a plain CUDA-event loop. Ratio = our median / their median; the
target is 0.95–1.05. Run from the repository root: python scripts/bench_accuracy.py [--json FILE].
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import torch
import torch.utils.benchmark as tb

from gpu_tui.core.bench.worker.context import Context
from gpu_tui.core.bench.worker.protocol import Channel

TARGET = (0.95, 1.05)


def ours(device: str, fn: Any, budget: float) -> float:
    """The median per call exactly as ``gpu-tui bench`` measures it."""
    ctx = Context(torch, Channel(io.StringIO()), budget)
    timing, _ = ctx.time(device, fn)
    return timing.median


def timer_median(fn: Any, budget: float) -> float:
    timer = tb.Timer("fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
    return float(timer.blocked_autorange(min_run_time=budget).median)


def cpu_rows(sizes: list[int], rounds: int, budget: float) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        a, b, out = torch.randn(n, n), torch.randn(n, n), torch.empty(n, n)
        fn = functools.partial(torch.mm, a, b, out=out)
        mine, theirs = [], []
        for _ in range(rounds):  # alternate, so drift and neighbours hit both sides alike
            mine.append(ours("cpu", fn, budget))
            theirs.append(timer_median(fn, budget))
        ratios = [x / y for x, y in zip(mine, theirs, strict=True)]
        rows.append(row(f"cpu fp32 GEMM n={n}", "torch.utils.benchmark", mine, theirs, ratios))
    return rows


def cuda_event_loop(fn: Any, iterations: int = 50) -> float:
    cuda: Any = torch.cuda  # torch.cuda.Event's __init__ carries no annotations
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    for _ in range(5):
        fn()
    start.record()
    for _ in range(iterations):
        fn()
    end.record()
    end.synchronize()
    return float(start.elapsed_time(end)) / 1e3 / iterations


def gpu_rows(rounds: int, budget: float) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    device = "cuda:0"
    n = 8192
    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    gemm = functools.partial(torch.mm, a, b)
    try:
        from triton.testing import do_bench
    except ImportError as error:
        rows.append({"what": "cuda bf16 GEMM n=8192", "skipped": f"triton not importable: {error}"})
    else:
        mine, theirs = [], []
        for _ in range(rounds):
            mine.append(ours(device, gemm, budget))
            theirs.append(float(do_bench(gemm, warmup=25, rep=100, return_mode="median")) / 1e3)
        ratios = [x / y for x, y in zip(mine, theirs, strict=True)]
        rows.append(row("cuda bf16 GEMM n=8192", "triton.testing.do_bench", mine, theirs, ratios))
    del a, b
    count = (512 << 20) // 4
    src, dst = torch.rand(count, device=device), torch.empty(count, device=device)
    copy = functools.partial(dst.copy_, src)
    mine, theirs = [], []
    for _ in range(rounds):
        mine.append(ours(device, copy, budget))
        theirs.append(cuda_event_loop(copy))
    ratios = [x / y for x, y in zip(mine, theirs, strict=True)]
    rows.append(row("cuda copy 512 MiB", "CUDA events, 50 copies", mine, theirs, ratios))
    gbps = 2 * count * 4 / statistics.median(mine) / 1e9
    rows[-1]["ours_gbps_read_plus_write"] = gbps
    return rows


def row(
    what: str, reference: str, mine: list[float], theirs: list[float], ratios: list[float]
) -> dict[str, Any]:
    ratio = statistics.median(ratios)
    return {
        "what": what,
        "reference": reference,
        "rounds": len(ratios),
        "ours_median_seconds": statistics.median(mine),
        "reference_median_seconds": statistics.median(theirs),
        "ratio_median": ratio,
        "ratios": ratios,
        "within_5_percent": TARGET[0] <= ratio <= TARGET[1],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per measurement")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("bench_accuracy.py: no CUDA device visible to torch", file=sys.stderr)
        return 2
    rows = (
        cpu_rows(args.sizes, args.rounds, args.budget)
        if args.device == "cpu"
        else gpu_rows(args.rounds, args.budget)
    )
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, budget {args.budget} s, "
        f"{args.rounds} alternating rounds"
    )
    for r in rows:
        if "skipped" in r:
            print(f"{r['what']:<24} skipped: {r['skipped']}")
            continue
        print(
            f"{r['what']:<24} ours {r['ours_median_seconds'] * 1e3:9.4f} ms  "
            f"{r['reference']:<24} {r['reference_median_seconds'] * 1e3:9.4f} ms  "
            f"ratio {r['ratio_median']:.3f} {'ok' if r['within_5_percent'] else 'OUTSIDE 5 %'}  "
            f"(rounds: {', '.join(f'{x:.3f}' for x in r['ratios'])})"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0 if all(r.get("within_5_percent", True) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
