"""``gpu-tui check``: is this GPU server healthy? One line per finding, a verdict as the exit
status (0 healthy, 1 a check failed, 2 could not check), or JSON with ``--json``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from gpu_tui.commands.error_lines import say_warning
from gpu_tui.commands.terminal_text import fit_to_terminal
from gpu_tui.core.check.findings import (
    OK,
    STATUS_WIDTH,
    VERDICTS,
    Finding,
    Report,
    same_on_several_gpus,
)
from gpu_tui.core.check.health_sheet import count_words, verdict_words

if TYPE_CHECKING:
    pass

NAME = "check"
HELP = (
    "is this GPU server healthy? PCIe links, NVLink, ECC, remapped rows, XIDs, throttling, "
    "driver vs torch, CPU governor, without loading it (exit 0 healthy, 1 a check failed, "
    "2 could not check)"
)
SCHEMA_VERSION = 1
VERDICT_WORDS = {0: "healthy", 1: "failed", 2: "could not check"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON (schema_version 1)")
    parser.add_argument(
        "--all", action="store_true", help="list the checks that passed too, not only a count"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=(
            "also measure each GPU's (and the CPU's) matrix-multiply speed, memory bandwidth "
            "and host↔GPU copies, against its peak and against the other GPUs, and with two "
            "GPUs or more the copies between every pair and an all-reduce: about a minute "
            "(needs PyTorch)"
        ),
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help=(
            "as --quick, over the full benchmark suite's sizes with four times the time per "
            "measurement: steadier figures, several minutes on a GPU server"
        ),
    )


def report_json(report: Report, timestamp: float) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "timestamp": timestamp,
        "verdict": VERDICT_WORDS[report.exit_status],
        "exit_status": report.exit_status,
        "could_not_check": report.could_not_check or None,
        "gpu_count": report.gpu_count,
        "counts": {verdict: report.count(verdict) for verdict in VERDICTS},
        "findings": [
            {
                "check": f.check,
                "gpu": f.gpu,
                "verdict": f.verdict,
                "reading": f.reading,
                "expected": f.expected or None,
                "why": f.why or None,
                "fix": f.fix or None,
            }
            for f in report.findings
        ],
    }


def report_lines(report: Report, *, every: bool) -> list[str]:
    head = f"gpu-tui check: {verdict_words(report)}"
    if report.could_not_check:
        head += f" — {report.could_not_check}"
    else:
        head += f" ({count_words(report)})"
    listed = [f for f in report.findings if every or f.verdict != OK]
    shown = [finding.line(gpus) for finding, gpus in same_on_several_gpus(listed)]
    passed = report.count(OK)
    if passed and not every:
        checks = "check" if passed == 1 else "checks"
        shown.append(f"{'OK':{STATUS_WIDTH}}{passed} more {checks} passed (--all lists them)")
    return [head, *shown]


def run(args: argparse.Namespace) -> int:
    from gpu_tui.core.check import last_check
    from gpu_tui.core.check.run import run_check

    measure = None
    if args.quick or args.full:
        from gpu_tui.core.check.active import quick_findings

        def measure(gpus: int) -> list[Finding]:
            links = "; then copies between every pair of GPUs and an all-reduce" * (gpus >= 2)
            print(
                "gpu-tui check: measuring matrix-multiply speed, memory bandwidth and host "
                f"copies{links} …",
                file=sys.stderr,
                flush=True,
            )
            return quick_findings(gpus, getattr(args, "bench_python", None), full=args.full)

    report = run_check(measure=measure, demo=bool(getattr(args, "demo", False)))
    document = report_json(report, time.time())
    trouble = last_check.save(document)  # for gpu-tui export and the fleet; never fatal
    if trouble:
        say_warning(trouble, NAME)
    if args.json:
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        head, *findings = report_lines(report, every=args.all)
        # A finding that wraps goes on under its text, not under its status word.
        lines = [fit_to_terminal(head), *(fit_to_terminal(f, hang=STATUS_WIDTH) for f in findings)]
        sys.stdout.write("\n".join(lines) + "\n")
    return report.exit_status
