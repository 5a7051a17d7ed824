"""``gpu-tui bench --suite comm``: collectives between ranks (torch.distributed, torchrun)."""

from __future__ import annotations

import argparse
import re
import sys

from gpu_tui.commands.bench_console import (
    Progress,
    exit_status,
    run_to_the_end,
    visible_gpus,
)
from gpu_tui.core import ending
from gpu_tui.core.bench.store import RunOutput, document_json, load
from gpu_tui.core.comm import copies
from gpu_tui.core.comm.plan import DEFAULT_TIMEOUT_SECONDS, Launch, build_comm_plan, point_count
from gpu_tui.core.comm.report import LEGEND, comm_results, headline, table
from gpu_tui.core.comm.runner import CommRunner
from gpu_tui.core.errors import UsageError

_SIZE = re.compile(r"(\d+)\s*([KMG]?)(i?B)?", re.IGNORECASE)


def byte_size(text: str) -> int:
    """``64M``, ``64MiB``, ``1G`` or a number of bytes (binary units)."""
    match = _SIZE.fullmatch(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 1048576, 64M, 1G)")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[match.group(2).lower()]
    return int(match.group(1)) * scale


def add_comm_arguments(parser: argparse.ArgumentParser) -> None:
    """The comm suite's options (torchrun's launch options, as a user passes them to torchrun)."""
    group = parser.add_argument_group(
        "comm suite (--suite comm)",
        "all-reduce, all-gather, reduce-scatter, broadcast, all-to-all and send/recv between "
        "ranks started by torchrun (Gloo on cpu, NCCL on cuda); --only names operations. "
        "On cuda with 2 GPUs or more the suite first measures copies (--only copies for them "
        "alone): every ordered pair of GPUs with P2P (dst.copy_(src)) and without (staged "
        "through pinned host memory), and pinned host to and from each GPU, at 4 B (latency) "
        "and 256 MiB or --max-bytes (GB/s and % of the NVLink or PCIe link's peak), in one "
        "process, no torchrun; with fewer GPUs they are skipped with the reason",
    )
    group.add_argument(
        "--nproc",
        type=int,
        metavar="N",
        help="ranks on this node (default: every GPU, or 2 on cpu)",
    )
    group.add_argument("--nnodes", type=int, default=1, metavar="N", help="nodes (default: 1)")
    group.add_argument("--node-rank", type=int, metavar="N", help="this node's rank (many nodes)")
    group.add_argument(
        "--rdzv-endpoint",
        metavar="HOST:PORT",
        help="torchrun's c10d rendezvous (many nodes; a single node uses 127.0.0.1 only)",
    )
    group.add_argument(
        "--max-bytes", type=byte_size, metavar="SIZE", help="largest message (e.g. 64M, 1G)"
    )
    group.add_argument(
        "--dtype",
        action="append",
        choices=("fp32", "bf16", "fp16"),
        help="element type (repeatable; default: fp32 on cpu, bf16 and fp32 on cuda)",
    )
    group.add_argument(
        "--rank-timeout",
        type=float,
        default=DEFAULT_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help="a rank silent this long ends the run on every rank "
        f"(default: {DEFAULT_TIMEOUT_SECONDS:g})",
    )


def _device(args: argparse.Namespace) -> tuple[str, int]:
    devices = args.device or []
    if len(devices) > 1:
        raise UsageError("the comm suite runs on one kind of device: --device cpu or --device cuda")
    gpus = visible_gpus() or 0
    device = devices[0] if devices else ("cuda" if gpus else "cpu")
    if device == "gpu":
        device = "cuda"
    if device not in ("cpu", "cuda"):
        raise UsageError(f"the comm suite runs on cpu (Gloo) or cuda (NCCL), not {device!r}")
    nproc = args.nproc if args.nproc is not None else (gpus if device == "cuda" and gpus else 2)
    return device, nproc


def run_comm(args: argparse.Namespace) -> int:
    if args.baseline:
        load(args.baseline)  # a bad file is refused before the run, as for the other suites
    device, nproc = _device(args)
    launch = Launch(
        nproc=nproc,
        nnodes=args.nnodes,
        node_rank=args.node_rank,
        rdzv_endpoint=args.rdzv_endpoint,
        join_timeout_seconds=args.rank_timeout,
    )
    sizes = None
    if args.max_bytes is not None:
        from gpu_tui.core.comm.plan import default_sizes

        sizes = default_sizes(device, args.max_bytes)
    plan = build_comm_plan(
        launch,
        device=device,
        operations=args.only,
        dtypes=args.dtype,
        sizes=sizes,
        budget_seconds=args.budget,
        timeout_seconds=args.rank_timeout,
    )
    progress = Progress(sys.stderr)
    outputs = [RunOutput(args.out, None, waiting=progress.say)] if args.out else []
    runner = CommRunner(plan, python=args.bench_python, outputs=outputs)
    where = "this node" if launch.single_node else f"node {args.node_rank} of {args.nnodes}"
    if plan["comm"]["operations"]:
        what, stops = f"{nproc} {device} rank(s) on {where}", "every rank"
    else:
        what, stops = "copies alone, in one process", "the run"
    progress.say(
        f"comm suite: {what}, {point_count(plan)} points; "
        f"Ctrl-C stops {stops} and keeps what is measured"
    )
    finished, stopper = run_to_the_end(runner, progress, outputs)
    document = finished.document
    try:
        if args.json:
            sys.stdout.write(document_json(document, None))
        else:
            if comm_results(document.results):
                print(table(document.results))
                print(LEGEND)
                line = headline(document.results)
                if line:
                    print(f"* {line}")
            for text in copies.report(document.results, document.skipped):
                print(text)
            if finished.status == "completed" and not document.results and not launch.single_node:
                print("the results are collected on the node whose rank 0 ran: see its output")
            for error in document.errors:
                print(f"ERROR: {error['message']}")
        sys.stdout.flush()
    except OSError:
        ending.silence(sys.stdout)
    return exit_status(runner, progress, stopper, finished)
