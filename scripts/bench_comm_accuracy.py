#!/usr/bin/env python3
"""Side-by-side accuracy of the comm suite's all-reduce timing against a plain nccl-tests loop.

One torchrun launch (Gloo on loopback, 2 CPU ranks by default). For each size, in alternation
(ours, plain, ours, plain, ...): gpu-tui's own measurement (the worker's ``comm_timing.measure``,
the code ``gpu-tui bench --suite comm`` runs) and a plain script that times ``dist.all_reduce``
the way nccl-tests does: 5 warm-up calls, a barrier, 20 calls, the time per call, and the
maximum over the ranks (https://github.com/NVIDIA/nccl-tests, doc/PERFORMANCE.md). Ratio = our
median time / the plain loop's median time; the target is 0.90–1.10.

Run from the repository root:
  python scripts/bench_comm_accuracy.py [--nproc N] [--rounds R] [--json FILE]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

TARGET = (0.90, 1.10)
SIZES = [8, 64 << 10, 1 << 20, 16 << 20]
WARMUP, ITERATIONS = 5, 20


def plain(dist: object, torch: object, buf: object) -> float:
    """nccl-tests' way: warm up, barrier, N calls, time per call, max over the ranks."""
    d: Any = dist
    for _ in range(WARMUP):
        d.all_reduce(buf)
    d.barrier()
    start = time.perf_counter()
    for _ in range(ITERATIONS):
        d.all_reduce(buf)
    per_call = (time.perf_counter() - start) / ITERATIONS
    t: Any = torch
    slowest = t.tensor([per_call], dtype=t.float64)
    d.all_reduce(slowest, op=d.ReduceOp.MAX)
    return float(slowest.item())


def rank_main(args: argparse.Namespace) -> int:
    import torch
    import torch.distributed as dist

    from gpu_tui.core.bench.worker.comm_timing import Lineup, measure

    dist.init_process_group("gloo")
    lead = dist.get_rank() == 0
    line = Lineup(torch, dist, "cpu", lambda: False)
    rows = []
    for size in SIZES:
        buf = torch.randn(max(1, size // 4))
        ours_s, plain_s = [], []
        for _ in range(args.rounds):
            call = functools.partial(dist.all_reduce, buf)
            ours_s.append(measure(line, call, args.budget).median)
            plain_s.append(plain(dist, torch, buf))
        ratio = statistics.median(ours_s) / statistics.median(plain_s)
        rows.append(
            {
                "bytes": buf.numel() * 4,
                "ours_median_seconds": statistics.median(ours_s),
                "plain_median_seconds": statistics.median(plain_s),
                "ratio": ratio,
                "within_target": TARGET[0] <= ratio <= TARGET[1],
            }
        )
    if lead:
        n = dist.get_world_size()
        print(f"all-reduce fp32, {n} ranks, Gloo on loopback; {args.rounds} alternating rounds")
        print(f"{'size':>10}  {'ours µs':>10}  {'plain µs':>10}  {'ratio':>6}  target")
        for row in rows:
            print(
                f"{row['bytes']:>10}  {row['ours_median_seconds'] * 1e6:>10.1f}  "
                f"{row['plain_median_seconds'] * 1e6:>10.1f}  {row['ratio']:>6.3f}  "
                f"{'ok' if row['within_target'] else 'OUTSIDE'}"
            )
        if args.json:
            Path(args.json).write_text(json.dumps({"ranks": n, "rows": rows}, indent=2) + "\n")
    dist.destroy_process_group()
    return 0


def launch(args: argparse.Namespace) -> int:
    """Start this script on ``--nproc`` ranks through torchrun, listening on loopback only."""
    import torch.distributed
    import torch.distributed.run as torchrun

    from gpu_tui.core.bench.worker.comm_agent import bind_stores_to_loopback

    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    bind_stores_to_loopback(torch.distributed)
    forwarded = ["--rounds", str(args.rounds), "--budget", str(args.budget)]
    if args.json:
        forwarded += ["--json", str(Path(args.json).resolve())]
    torchrun.main(
        [
            f"--nproc-per-node={args.nproc}",
            "--rdzv-backend=c10d",
            "--rdzv-endpoint=127.0.0.1:0",
            str(Path(__file__).resolve()),
            *forwarded,
        ]
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget", type=float, default=0.1, help="our budget per measurement")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    return rank_main(args) if "RANK" in os.environ else launch(args)


if __name__ == "__main__":
    sys.exit(main())
