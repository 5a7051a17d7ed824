"""``gpu-tui bench``: run the benchmark suite in a worker process; table or JSON out."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path
from typing import TextIO

from gpu_tui.commands.bench_comm import add_comm_arguments, run_comm
from gpu_tui.core import ending
from gpu_tui.core.bench import messages as m
from gpu_tui.core.bench.report import LEGEND, charts, lessons, table
from gpu_tui.core.bench.runner import BenchRunner, drive
from gpu_tui.core.bench.store import RunOutput, compare, document_json, load
from gpu_tui.core.bench.suites import (
    CATALOG,
    DEFAULT_BUDGET_SECONDS,
    SUITES,
    build_plan,
    estimate_seconds,
)
from gpu_tui.core.errors import UsageError

NAME = "bench"
HELP = "measure GEMM, bandwidth, transfers, latency and the CPU-vs-GPU lessons (needs PyTorch)"
EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130
# Failures that mean the command line asked for something impossible: exit 2, one line.
USAGE_KINDS = ("bad_device", "bad_plan", "start")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--suite",
        choices=(*SUITES, "comm"),
        default="quick",
        help="quick (about a minute on a small machine), full, or comm (collectives between "
        "ranks through torchrun; see below) (default: quick)",
    )
    parser.add_argument(
        "--device",
        action="append",
        metavar="D",
        help="cpu, cuda, cuda:N, mps, gpu or all (repeatable; default: all)",
    )
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", help="run only these benchmarks (see --list)"
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
        gpus = _visible_gpus()
        minutes = estimate_seconds(plan, gpus=gpus or 0) / 60
        where = "on the CPU" if gpus == 0 else f"with {gpus} GPU(s)" if gpus else "on the CPU"
        progress.say(
            f"full suite: expect about {minutes:.1f} min {where}"
            + (" plus about 3 min per GPU" if gpus is None else "")
            + "; Ctrl-C stops and keeps what is measured"
        )
    stopper = Stopper(runner, progress)
    with ending.handling(stopper.on_signal):
        finished = drive(runner, progress.show)
    document = finished.document
    fatal = next((e for e in document.errors if e.get("fatal")), None)
    if fatal and fatal["kind"] in USAGE_KINDS:
        for output in outputs:
            output.close()
        raise UsageError(fatal["message"])
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
    if runner.saved_path and runner.store_problem is None:
        progress.say(f"saved: {runner.saved_path}")
    for problem in runner.failed_outputs.values():
        progress.say(f"error: {problem}")
    if stopper.signum is not None:
        return ending.exit_code(stopper.signum)
    if finished.status == "cancelled":
        return EXIT_INTERRUPTED
    return EXIT_FAILED if document.errors or runner.failed_outputs else 0


def _visible_gpus() -> int | None:
    """GPUs NVML sees (for the duration estimate); None when NVML cannot say."""
    try:
        from gpu_tui.core.devices import discover

        inventory = discover()
    except Exception:  # an estimate only: never fail the run for it
        return None
    nvml = inventory.backends.get("nvml")
    return len(inventory.accelerators) if nvml is not None and nvml.available else None


class Stopper:
    """What a signal does during a run: the first (Ctrl-C, SIGTERM or SIGHUP) asks the worker
    to stop and keeps what is measured; a second Ctrl-C kills the worker at once."""

    def __init__(self, runner: BenchRunner, progress: Progress) -> None:
        self.runner = runner
        self.progress = progress
        self.signum: int | None = None
        """The first signal that stopped the run."""

    def on_signal(self, signum: int) -> None:
        if self.signum is not None:
            if signum == signal.SIGINT:
                self.runner.kill()
            return
        self.signum = signum
        how = "Ctrl-C again to kill" if signum == signal.SIGINT else ending.signal_name(signum)
        self.progress.say(f"stopping ({how})...")
        self.runner.cancel()


def _print_human(document: object, baseline: object, *, chart: bool) -> None:
    from gpu_tui.core.bench.results import RunDocument

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


class Progress:
    """Progress on stderr: a redrawn line on a terminal, plain lines otherwise. A stream that
    has gone away (a terminal after SIGHUP) is written no more; the run goes on."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.start = time.monotonic()
        self.step = (0, 1)
        self.gpu = ""  # the latest NVML reading while a GPU is measured, e.g. "SM 1980 MHz · …"
        self.gone = False

    def say(self, text: str) -> None:
        self._write(("\r\x1b[K" if self.tty else "") + f"gpu-tui: {text}\n")

    def _write(self, text: str) -> None:
        if self.gone:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.gone = True

    def show(self, message: m.Message) -> None:
        if isinstance(message, m.Progress):
            self.step = (message.index, message.total)
            if not self.tty:
                self.say(
                    f"[{message.index + 1}/{message.total}] {message.benchmark} on {message.device}"
                )
        elif isinstance(message, m.Heartbeat) and self.tty:
            done, total = self.step
            fraction = (done + message.fraction) / max(total, 1)
            bar = "#" * int(fraction * 20)
            elapsed = time.monotonic() - self.start
            line = f"\r\x1b[K[{bar:<20}] {elapsed:4.0f}s {self.gpu}{message.label}"
            self._write(line[: 100 + len("\r\x1b[K")])
        elif isinstance(message, m.Telemetry):
            shown = message.line()
            self.gpu = f"{shown[0]} | " if shown else ""
        elif isinstance(message, m.Status):
            self.say(message.message)
        elif isinstance(message, m.SaveFailed):
            self.say(f"warning: {message.message}; the run goes on")
        elif isinstance(message, m.BenchError) and message.kind not in USAGE_KINDS:
            # (a usage problem is said once, as the command's error line)
            self.say(f"{'error' if not message.fatal else 'failed'}: {message.message}")
        elif isinstance(message, m.Finished):
            if self.tty:
                self._write("\r\x1b[K")
            if message.status == "cancelled":
                self.say(f"interrupted: kept {len(message.document.results)} completed results")
