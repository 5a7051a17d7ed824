"""``gpu-tui watch``: live readings as one line per tick, for humans or (``--json``) for scripts."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import shutil
import sys
import time
from typing import Any

from gpu_tui.commands.options import refresh_seconds
from gpu_tui.core import ending
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.live_sources import GpuSources, open_gpu_sources
from gpu_tui.core.monitor.sampler import Sampler
from gpu_tui.core.monitor.samples import GpuSample, MigSample, Sample
from gpu_tui.core.units import format_gigabytes, format_reading, format_temperature

NAME = "watch"
HELP = "print live CPU, memory and GPU readings, one line per tick (--json for scripts)"

SCHEMA_VERSION = 2
CLOSE_LIMIT_SECONDS = 1.0
"""On the way out, NVML shutdown gets this long: the process exit frees NVML in any case."""


def positive_count(text: str) -> int:
    """Parse ``--count``: a whole number of lines, at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
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
        help="seconds between lines, 0.1 to 60 (default: 1)",
    )
    parser.add_argument(
        "--count", type=positive_count, metavar="N", help="stop after N lines (default: never)"
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


def _gpu_summary(slot: int, gpu: GpuSample) -> str:
    label = f"sim{slot} SIMULATED" if gpu.simulated else f"gpu{slot}"
    if gpu.lost:
        return f"{label} LOST"
    if gpu.not_in_job:
        return f"{label} not in this job"
    used, total = gpu.memory_used_bytes, gpu.memory_total_bytes
    vram = "?" if isinstance(used, Unknown) or isinstance(total, Unknown) else _used_of(used, total)
    activity = gpu.activity
    tensor = (
        f" tensor {activity.tensor_percent:.0f}%"
        if not isinstance(activity, Unknown) and not isinstance(activity.tensor_percent, Unknown)
        else ""
    )
    text = (
        f"{label} {format_reading(gpu.utilization_percent, unknown='?')}%{tensor} {vram} "
        f"{format_temperature(gpu.temperature_c, gap='', unknown='?')} "
        f"{format_reading(gpu.power_watts, unknown='?')}/"
        f"{format_reading(gpu.power_limit_watts, unknown='?')}W"
    )
    if isinstance(gpu.last_xid, int) and gpu.last_xid:
        text += f" XID {gpu.last_xid}"
    if gpu.mig_instances:
        text += f" MIG {' '.join(_mig_summary(m) for m in gpu.mig_instances)}"
    return text + (" (stale)" if gpu.stale else "")


def _used_of(used: float, total: float) -> str:
    """``60.0/80.0GiB`` (``64.4/85.9GB`` in decimal units)."""
    return f"{format_gigabytes(used, symbol=False)}/{format_gigabytes(total, gap='')}"


def _mig_summary(mig: MigSample) -> str:
    """``3g.40gb:0.0/39.2GiB``: the instance's profile and its memory."""
    used, total = mig.memory_used_bytes, mig.memory_total_bytes
    if isinstance(used, Unknown) or isinstance(total, Unknown):
        return f"{mig.profile}:?"
    return f"{mig.profile}:{_used_of(used, total)}"


def human_line(sample: Sample) -> str:
    """The compact one-line summary of a tick."""
    cpu, memory = sample.cpu, sample.memory
    cores = cpu.per_core_percent
    if len(cores) <= 8:
        per_core = "[" + " ".join(f"{c:3.0f}" for c in cores) + "]"
    else:
        per_core = f"[cores {min(cores):.0f}-{max(cores):.0f}%]"
    load = cpu.load_average
    parts = [
        time.strftime("%H:%M:%S", time.localtime(sample.timestamp)),
        f"cpu {cpu.percent:3.0f}% {per_core} {format_reading(cpu.frequency_mhz, unknown='?')}MHz "
        f"load {'?' if isinstance(load, Unknown) else f'{load[0]:.2f}'}",
        f"mem {_used_of(memory.used_bytes, memory.total_bytes)} "
        + (
            f"swap {_used_of(memory.swap_used_bytes, memory.swap_total_bytes)}"
            if memory.swap_total_bytes
            else "no swap"
        ),
    ]
    parts += [_gpu_summary(slot, gpu) for slot, gpu in enumerate(sample.gpus)]
    return " | ".join(parts)


def human_lines(sample: Sample, width: int | None) -> list[str]:
    """A tick for people: one line when it fits ``width`` (or always, for a pipe: ``None``),
    else the host on one line and each GPU on a line of its own below it."""
    line = human_line(sample)
    if width is None or len(line) <= width or not sample.gpus:
        return [line]
    host = " | ".join(line.split(" | ")[:3])
    return [host, *(f"  {_gpu_summary(slot, gpu)}" for slot, gpu in enumerate(sample.gpus))]


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
        print(f"gpu-tui: {note}", file=sys.stderr)

    # On a terminal a tick that is wider than it goes on a few lines; a pipe gets one line each.
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None

    def emit(sample: Sample) -> None:
        if args.json:
            print(json.dumps(sample_to_json(sample, args.interval), allow_nan=False), flush=True)
        else:
            print("\n".join(human_lines(sample, width)), flush=True)

    def fail(error: BaseException) -> None:
        if isinstance(error, BrokenPipeError):
            raise error  # the reader went away: stop, do not report it each tick
        print(f"gpu-tui: watch: {type(error).__name__}: {error}", file=sys.stderr)

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
