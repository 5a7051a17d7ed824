"""``gpu-tui watch``: live readings tick by tick, for humans or (``--json``) for scripts."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from typing import Any

from gpu_tui.commands.error_lines import say_error, who
from gpu_tui.commands.options import refresh_seconds
from gpu_tui.commands.terminal_text import terminal_width
from gpu_tui.commands.watch_text import Layout
from gpu_tui.core import ending
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.live_sources import GpuSources, open_gpu_sources
from gpu_tui.core.limits import shown
from gpu_tui.core.monitor.sampler import Sampler
from gpu_tui.core.monitor.samples import Sample

NAME = "watch"
HELP = (
    "print live CPU, memory and GPU readings: a line per tick, or on a terminal too narrow "
    "for it a host line and a line per GPU (--json for scripts)"
)

SCHEMA_VERSION = 2
CLOSE_LIMIT_SECONDS = 1.0
"""On the way out, NVML shutdown gets this long: the process exit frees NVML in any case."""


def positive_count(text: str) -> int:
    """Parse ``--count``: a whole number of ticks, at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {shown(text)}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json",
        action="store_true",
        help=(
            f"one JSON object per line (schema_version {SCHEMA_VERSION}): timestamp (Unix "
            "seconds), cpu, memory (bytes), gpus; unknown readings are null, with the reason "
            "in each object's 'unknown' map"
        ),
    )
    parser.add_argument(
        "--interval",
        type=refresh_seconds,
        default=1.0,
        metavar="SECONDS",
        help="seconds between ticks, 0.1 to 60 (default: 1)",
    )
    parser.add_argument(
        "--count",
        type=positive_count,
        metavar="N",
        help="stop after N ticks (default: never)",
    )


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return encode(value)
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def encode(record: object) -> dict[str, Any]:
    """A dataclass reading as JSON data: unknown fields are ``None``, reasons in ``unknown``."""
    out: dict[str, Any] = {}
    unknown: dict[str, str] = {}
    for field in dataclasses.fields(record):  # type: ignore[arg-type]
        value = getattr(record, field.name)
        if isinstance(value, Unknown):
            out[field.name] = None
            unknown[field.name] = value.reason
        else:
            out[field.name] = _plain(value)
    out["unknown"] = unknown
    return out


def sample_to_json(sample: Sample, interval: float) -> dict[str, Any]:
    """One ``watch --json`` line."""
    return {
        "schema_version": SCHEMA_VERSION,
        "timestamp": sample.timestamp,
        "interval_seconds": interval,
        "cpu": encode(sample.cpu),
        "memory": encode(sample.memory),
        "gpus": [encode(gpu) for gpu in sample.gpus],
    }


def source_notes(sources: GpuSources, *, for_scripts: bool) -> list[str]:
    """What to say on stderr about the GPUs before the first line. With ``--json`` only a
    driver that does not answer is worth a word (no GPU at all is the ordinary CPU-only case)."""
    if not sources.note or (for_scripts and sources.hung is None):
        return []
    if sources.hung is not None:
        return [f"NVIDIA GPUs: {sources.hung.reason}; CPU readings go on"]
    return [f"NVIDIA GPUs: none ({sources.note})"]


def run(args: argparse.Namespace) -> int:
    # Blocks for at most the NVML call limit per call (a driver that hangs is given up on).
    sources = open_gpu_sources(demo=bool(getattr(args, "demo", False)))
    for note in source_notes(sources, for_scripts=args.json):
        ending.say(sys.stderr, f"{who('watch')}: {note}")

    # A tick wider than the terminal (or COLUMNS) goes on a few lines, with the least needed
    # columns left out; a pipe gets one whole line each. Laid out once, from the first tick.
    width = terminal_width()
    layout: list[Layout] = []

    def emit(sample: Sample) -> None:
        if args.json:
            print(json.dumps(sample_to_json(sample, args.interval), allow_nan=False), flush=True)
            return
        if not layout:
            layout.append(Layout(sample, width))
        print("\n".join(layout[0].lines(sample)), flush=True)

    def fail(error: BaseException) -> None:
        if isinstance(error, BrokenPipeError):
            raise error  # the reader went away: stop, do not report it each tick
        say_error(f"{type(error).__name__}: {error}", NAME)

    sampler = Sampler(
        gpu_sources=sources.real,
        inline_sources=sources.inline,
        interval=args.interval,
        on_tick=emit,
    )
    sampler.on_error = fail
    try:
        sampler.run(max_ticks=args.count)
    except BrokenPipeError:
        # `gpu-tui watch --json | head -1`: a quiet exit
        ending.silence(sys.stdout)
    finally:
        sampler.stop()
        sources.close(reads_hung=sampler.hung_devices > 0, limit=CLOSE_LIMIT_SECONDS)
    return 0
