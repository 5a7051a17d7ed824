"""``gpu-tui bench``: run the benchmark suite in a worker process; table or JSON out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpu_tui.commands.bench_comm import add_comm_arguments, run_comm
from gpu_tui.commands.bench_console import (
    Progress,
    exit_status,
    run_to_the_end,
    visible_gpus,
)
from gpu_tui.core import ending
from gpu_tui.core.bench.report import charts, lessons, table
from gpu_tui.core.bench.result_text import LEGEND
from gpu_tui.core.bench.runner import BenchRunner
from gpu_tui.core.bench.store import RunOutput, compare, document_json, load
from gpu_tui.core.bench.suites import (
    CATALOG,
    DEFAULT_BUDGET_SECONDS,
    SUITES,
    build_plan,
    estimate_seconds,
)

NAME = "bench"
HELP = "measure GEMM, bandwidth, transfers, latency and the CPU-vs-GPU lessons (needs PyTorch)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--suite",
        choices=(*SUITES, "comm"),
        default="quick",
        help="quick (about a minute on a small machine), full, or comm (collectives between "
        "ranks through torchrun; see below) (default: quick)",
    )
    for suite in ("quick", "full"):  # as gpu-tui check takes them
        parser.add_argument(
            f"--{suite}",
            dest="suite",
            action="store_const",
            const=suite,
            help=f"the same as --suite {suite}",
        )
    parser.add_argument(
        "--device",
        action="append",
        metavar="D",
        help="cpu, cuda, cuda:N, mps, gpu or all (repeatable; default: all)",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        action="extend",  # --only gemm --only bandwidth runs both, as --only gemm bandwidth does
        metavar="NAME",
        help="run only these benchmarks (see --list); may be given more than once",
    )
    parser.add_argument(
        "--budget",
        type=float,
        metavar="SECONDS",
        help="time budget per measurement (default: "
        + ", ".join(f"{k} {v:g} s" for k, v in DEFAULT_BUDGET_SECONDS.items())
        + ")",
    )
    parser.add_argument("--json", action="store_true", help="print the JSON document (schema 1)")
    parser.add_argument(
        "--out", type=Path, metavar="FILE", help="also write JSON, or CSV for *.csv"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="compare with a saved run: a 'vs baseline' column in the table; with --json (and "
        "--out *.json) each result gets a 'baseline' object: the earlier value, unit and "
        "median_seconds, relative_change ((now - then) / then) and speedup (then / now time "
        "per call), or null when the baseline lacks that measurement",
    )
    parser.add_argument(
        "--bench-python",
        metavar="PATH",
        help="run the worker with this Python (one that has torch; no gpu-tui needed)",
    )
    parser.add_argument(
        "--chart", action="store_true", help="draw sweep charts even when not a tty"
    )
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    add_comm_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if args.suite == "comm" and not args.list:
        return run_comm(args)
    if args.list:
        for bench in CATALOG:
            print(f"{bench.name:<12} {bench.title:<34} {bench.explains}")
        return 0
    baseline = load(args.baseline) if args.baseline else None
    against = (baseline, args.baseline) if baseline else None
    plan = build_plan(args.suite, only=args.only, devices=args.device, budget_seconds=args.budget)
    progress = Progress(sys.stderr)
    # Checked (and a FIFO or pipe opened) now: a path that cannot be written is refused before
    # the first benchmark, not after an hour of measuring.
    outputs = [RunOutput(args.out, against, waiting=progress.say)] if args.out else []
    runner = BenchRunner(plan, python=args.bench_python, outputs=outputs)
    if args.suite == "full":
        gpus = visible_gpus()
        minutes = estimate_seconds(plan, gpus=gpus or 0) / 60
        where = "on the CPU" if gpus == 0 else f"with {gpus} GPU(s)" if gpus else "on the CPU"
        progress.say(
            f"full suite: expect about {minutes:.1f} min {where}"
            + (" plus about 3 min per GPU" if gpus is None else "")
            + "; Ctrl-C stops and keeps what is measured"
        )
    finished, stopper = run_to_the_end(runner, progress, outputs)
    document = finished.document
    # The files are written by now (the runner saves after every result and at the end), so a
    # terminal that hung up, or a reader that went away, costs only what is printed.
    try:
        if args.json:
            sys.stdout.write(document_json(document, against))
        else:
            _print_human(document, baseline, chart=args.chart or sys.stdout.isatty())
        sys.stdout.flush()
    except OSError:
        ending.silence(sys.stdout)
    return exit_status(runner, progress, stopper, finished)


def _print_human(document: object, baseline: object, *, chart: bool) -> None:
    from gpu_tui.core.bench.document import RunDocument

    assert isinstance(document, RunDocument)
    deltas = compare(document.results, baseline) if isinstance(baseline, RunDocument) else None
    if document.results:
        print(table(document.results, deltas))
        print(LEGEND)
    for line in lessons(document):
        print(f"* {line}")
    for error in document.errors:
        where = (
            f" [{error.get('benchmark')} on {error.get('device')}]"
            if error.get("benchmark")
            else ""
        )
        print(f"ERROR{where}: {error['message']}")
    if chart:
        for text in charts(document.results, color=sys.stdout.isatty()):
            print(text)
