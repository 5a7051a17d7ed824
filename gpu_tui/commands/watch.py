"""``gpu-tui watch``: live readings as one line per tick, for humans or (``--json``) for scripts."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import math
import os
import sys
import time
from collections.abc import Callable
from typing import Any, cast

from gpu_tui.cli import refresh_seconds
from gpu_tui.core.fields import Unknown
from gpu_tui.core.gpu_reader import FunctionSource, GpuSource
from gpu_tui.core.sampler import Sampler
from gpu_tui.core.samples import GpuSample, Sample

NAME = "watch"
HELP = "print live CPU, memory and GPU readings, one line per tick (--json for scripts)"

SCHEMA_VERSION = 1
_GIB = 1024**3


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


def _num(value: object, fmt: str) -> str:
    return "?" if isinstance(value, Unknown) else format(value, fmt)


def _gpu_summary(slot: int, gpu: GpuSample) -> str:
    label = f"sim{slot} SIMULATED" if gpu.simulated else f"gpu{slot}"
    if gpu.lost:
        return f"{label} LOST"
    used, total = gpu.memory_used_bytes, gpu.memory_total_bytes
    vram = (
        "?"
        if isinstance(used, Unknown) or isinstance(total, Unknown)
        else (f"{used / _GIB:.1f}/{total / _GIB:.1f}GiB")
    )
    text = (
        f"{label} {_num(gpu.utilization_percent, '.0f')}% {vram} "
        f"{_num(gpu.temperature_c, '.0f')}°C "
        f"{_num(gpu.power_watts, '.0f')}/{_num(gpu.power_limit_watts, '.0f')}W"
    )
    return text + (" (stale)" if gpu.stale else "")


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
        f"cpu {cpu.percent:3.0f}% {per_core} {_num(cpu.frequency_mhz, '.0f')}MHz "
        f"load {'?' if isinstance(load, Unknown) else f'{load[0]:.2f}'}",
        f"mem {memory.used_bytes / _GIB:.1f}/{memory.total_bytes / _GIB:.1f}GiB "
        f"swap {memory.swap_used_bytes / _GIB:.1f}/{memory.swap_total_bytes / _GIB:.1f}GiB",
    ]
    parts += [_gpu_summary(slot, gpu) for slot, gpu in enumerate(sample.gpus)]
    return " | ".join(parts)


def _optional_module(name: str) -> Any:
    # The NVML and simulated backends are optional at run time; watch works without them.
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def open_gpu_sources(demo: bool) -> tuple[list[GpuSource], list[GpuSource], list[str], Any]:
    """Real GPU sources, inline (simulated) sources, notes for humans, and the NVML session."""
    notes: list[str] = []
    real: list[GpuSource] = []
    session: Any = None
    nvidia = _optional_module("gpu_tui.core.devices.nvidia_live")
    if nvidia is None:
        notes.append("NVIDIA GPUs: not read (NVML support is not available in this build)")
    else:
        session = nvidia.NvmlSession.open()
        if session.status.available:
            real.append(cast(GpuSource, session))
        else:
            notes.append(f"NVIDIA GPUs: none ({session.status.reason})")
    inline: list[GpuSource] = []
    if demo:
        simulated = _optional_module("gpu_tui.core.devices.simulated")
        if simulated is None:
            notes.append("--demo: the simulated GPU is not available in this build")
        else:
            first = sum(source.device_count for source in real)
            started = time.monotonic()
            read = cast(Callable[[int, float], GpuSample], simulated.simulated_sample)
            inline.append(FunctionSource(1, lambda i: read(first + i, time.monotonic() - started)))
    return real, inline, notes, session


def run(args: argparse.Namespace) -> int:
    real, inline, notes, session = open_gpu_sources(bool(getattr(args, "demo", False)))
    if not args.json:
        for note in notes:
            print(f"gpu-tui: {note}", file=sys.stderr)

    def emit(sample: Sample) -> None:
        line = (
            json.dumps(sample_to_json(sample, args.interval), allow_nan=False)
            if args.json
            else human_line(sample)
        )
        print(line, flush=True)

    def fail(error: BaseException) -> None:
        if isinstance(error, BrokenPipeError):
            raise error  # the reader went away: stop, do not report it each tick
        print(f"gpu-tui: watch: {type(error).__name__}: {error}", file=sys.stderr)

    sampler = Sampler(gpu_sources=real, inline_sources=inline, interval=args.interval, on_tick=emit)
    sampler.on_error = fail
    try:
        sampler.run(max_ticks=args.count)
    except BrokenPipeError:
        # `gpu-tui watch --json | head -1`: quiet exit; point stdout at /dev/null so the
        # interpreter's final flush does not print a second BrokenPipeError.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    finally:
        sampler.stop()
        # NVML shutdown while a call is stuck in the driver could hang too: leave it then.
        if session is not None and sampler.hung_devices == 0:
            session.close()
    return 0
