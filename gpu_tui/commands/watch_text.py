"""``gpu-tui watch`` for people: each tick as columns that stay where they are from the first line
on, fitted to the terminal (or ``COLUMNS``) by leaving out the least needed columns.

The layout is decided once, from the first tick and the width: which columns are shown, how wide
each is, whether a tick is one line or a host line and a line per GPU. A column that only has a
value from the second tick on (GPM's tensor activity) is reserved from the first, so nothing
moves when it arrives."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.nvml_gpm import FIRST
from gpu_tui.core.monitor.samples import GpuSample, MigSample, Sample
from gpu_tui.core.units import (
    format_gigabytes,
    format_reading,
    format_reading_percent,
    format_temperature,
)

GPU_INDENT = "  "
"""A GPU's line under the host's, when a tick takes a line per GPU."""


@dataclass(frozen=True)
class Column:
    """One column: its text for a reading, the widest text that reading's column may come to
    hold (a GPU's memory used can reach its total, not pass it), when it is left out to fit (0:
    never; the highest first), and the word its text starts with: the word stays on the left
    and the figure after it is right-aligned, so digits stay under digits."""

    name: str
    text: Callable[[Any], str]
    widest: Callable[[Any], str] = lambda _reading: ""
    drop: int = 0
    word: str = ""

    def cell(self, text: str, width: int) -> str:
        if not text.startswith(self.word):
            return text.ljust(width)  # "no swap"
        return self.word + text[len(self.word) :].rjust(width - len(self.word))


def _used_of(used: float, total: float) -> str:
    """``60.0/80.0GiB`` (``64.4/85.9GB`` in decimal units)."""
    return f"{format_gigabytes(used, symbol=False)}/{format_gigabytes(total, gap='')}"


def _per_core(sample: Sample) -> str:
    cores = sample.cpu.per_core_percent
    if len(cores) <= 8:
        return "[" + " ".join(f"{c:3.0f}" for c in cores) + "]"
    # idlest to busiest core; a range shares its unit, as 63–87 °C would
    return f"[cores {min(cores):.0f}–{format_reading_percent(max(cores))}]"


def _load(sample: Sample) -> str:
    load = sample.cpu.load_average
    return f"load {'?' if isinstance(load, Unknown) else f'{load[0]:.2f}'}"


def _swap(sample: Sample) -> str:
    memory = sample.memory
    if not memory.swap_total_bytes:
        return "no swap"
    return f"swap {_used_of(memory.swap_used_bytes, memory.swap_total_bytes)}"


# The host's columns, in groups set apart by " | "; dropped first: the per-core figures, then the
# clock, the load and swap (the CPU's and memory's totals stay).
HOST: tuple[tuple[Column, ...], ...] = (
    (Column("time", lambda s: time.strftime("%H:%M:%S", time.localtime(s.timestamp))),),
    (
        Column(
            "cpu",
            lambda s: f"cpu {format_reading_percent(s.cpu.percent)}",
            lambda _s: "cpu 100 %",
            word="cpu ",
        ),
        Column(
            "cores", _per_core, lambda s: "[cores 100–100 %]" * (len(s.cpu.per_core_percent) > 8), 4
        ),
        Column(
            "clock",
            lambda s: f"{format_reading(s.cpu.frequency_mhz, unknown='?')}MHz",
            lambda _s: "0000MHz",
            drop=3,
        ),
        Column("load", _load, lambda _s: "load 00.00", drop=2, word="load "),
    ),
    (
        Column(
            "mem",
            lambda s: f"mem {_used_of(s.memory.used_bytes, s.memory.total_bytes)}",
            lambda s: f"mem {_used_of(s.memory.total_bytes, s.memory.total_bytes)}",
            word="mem ",
        ),
        Column(
            "swap",
            _swap,
            lambda s: (
                f"swap {_used_of(s.memory.swap_total_bytes, s.memory.swap_total_bytes)}"
                if s.memory.swap_total_bytes
                else ""
            ),
            drop=1,
            word="swap ",
        ),
    ),
)


def _memory(gpu: GpuSample, *, full: bool = False) -> str:
    used, total = gpu.memory_used_bytes, gpu.memory_total_bytes
    if isinstance(used, Unknown) or isinstance(total, Unknown):
        return "?"
    return _used_of(total if full else used, total)


def _tensor(gpu: GpuSample) -> str:
    activity = gpu.activity
    if isinstance(activity, Unknown) or isinstance(activity.tensor_percent, Unknown):
        return "tensor ? %"
    return f"tensor {format_reading_percent(activity.tensor_percent)}"


def _power(gpu: GpuSample, *, full: bool = False) -> str:
    limit = format_reading(gpu.power_limit_watts, unknown="?")
    draw = limit if full else format_reading(gpu.power_watts, unknown="?")
    return f"{draw}/{limit}W"


# A GPU's columns after its label; dropped first: temperature, then power, then tensor activity
# (GPU-Util and memory stay).
GPU: tuple[Column, ...] = (
    Column(
        "util",
        lambda g: format_reading_percent(g.utilization_percent, unknown="? %"),
        lambda _g: "100 %",
    ),
    Column("tensor", _tensor, lambda _g: "tensor 100 %", drop=1, word="tensor "),
    Column("memory", _memory, lambda g: _memory(g, full=True)),
    Column(
        "temp",
        # "71 °C", as check, info and the Specs pane write a temperature
        lambda g: format_temperature(g.temperature_c, unknown="?"),
        lambda _g: format_temperature(100.0),
        drop=3,
    ),
    Column("power", _power, lambda g: _power(g, full=True), drop=2),  # the draw may reach the cap
)


def has_tensor(gpu: GpuSample) -> bool:
    """Whether this GPU shows tensor activity (or will, from the second tick)."""
    activity = gpu.activity
    if isinstance(activity, Unknown):
        return activity.reason == FIRST
    return not isinstance(activity.tensor_percent, Unknown)


def label(slot: int, gpu: GpuSample) -> str:
    return f"sim{slot} SIMULATED" if gpu.simulated else f"gpu{slot}"


def _mig(mig: MigSample) -> str:
    """``3g.40gb:0.0/39.2GiB``: the instance's profile and its memory."""
    used, total = mig.memory_used_bytes, mig.memory_total_bytes
    if isinstance(used, Unknown) or isinstance(total, Unknown):
        return f"{mig.profile}:?"
    return f"{mig.profile}:{_used_of(used, total)}"


def notes(gpu: GpuSample, *, short: bool = False) -> list[str]:
    """What only some ticks have to say about a GPU (an XID, MIG instances, a stale reading):
    after the columns, so they move none. ``short``: MIG instances as a count."""
    said = []
    if isinstance(gpu.last_xid, int) and gpu.last_xid:
        said.append(f"XID {gpu.last_xid}")
    if gpu.mig_instances:
        instances = gpu.mig_instances
        said.append(
            f"MIG ×{len(instances)}" if short else f"MIG {' '.join(_mig(m) for m in instances)}"
        )
    if gpu.stale:
        said.append("(stale)")
    return said


def _fit(
    columns: Sequence[Column], width: int | None, length: Callable[[list[Column]], int]
) -> list[Column]:
    """``columns`` less those dropped (the highest ``drop`` first) until the line they make
    (``length`` long) fits ``width``."""
    kept = list(columns)
    while width is not None and length(kept) > width:
        droppable = [c for c in kept if c.drop]
        if not droppable:
            break
        kept.remove(max(droppable, key=lambda c: c.drop))
    return kept


class Layout:
    """The columns of every tick, decided from the first: call :meth:`lines` for each tick."""

    def __init__(self, first: Sample, width: int | None) -> None:
        self.width = width
        gpu_columns = (
            GPU if any(map(has_tensor, first.gpus)) else tuple(c for c in GPU if c.name != "tensor")
        )
        host_columns = [c for group in HOST for c in group]
        self.widths = {c.name: max(len(c.text(first)), len(c.widest(first))) for c in host_columns}
        for column in gpu_columns:
            self.widths[column.name] = max(
                (max(len(column.text(g)), len(column.widest(g))) for g in first.gpus), default=0
            )
        self.label_width = max((len(label(s, g)) for s, g in enumerate(first.gpus)), default=0)
        self.one_line = (
            width is None
            or len(self._host(first, host_columns))
            + sum(3 + len(self._gpu(s, g, gpu_columns)) for s, g in enumerate(first.gpus))
            <= width
        )
        if self.one_line:
            self.host_columns, self.gpu_columns = host_columns, list(gpu_columns)
        else:
            self.host_columns = _fit(host_columns, width, lambda kept: len(self._host(first, kept)))
            self.gpu_columns = _fit(
                gpu_columns,
                width,
                lambda kept: len(GPU_INDENT) + self.label_width + 1 + self._gpu_width(kept),
            )

    def _cell(self, column: Column, reading: object) -> str:
        text = column.text(reading)
        width = self.widths[column.name] = max(self.widths[column.name], len(text))
        return column.cell(text, width)  # a wider reading than foreseen widens it from now on

    def _host(self, sample: Sample, columns: Sequence[Column]) -> str:
        groups = [" ".join(self._cell(c, sample) for c in group if c in columns) for group in HOST]
        return " | ".join(g for g in groups if g)

    def _gpu(self, slot: int, gpu: GpuSample, columns: Sequence[Column]) -> str:
        name = label(slot, gpu).ljust(self.label_width)
        if gpu.lost or gpu.not_in_job:
            said = "LOST" if gpu.lost else "not in this job"
            return f"{name} {said}".ljust(self.label_width + 1 + self._gpu_width(columns))
        return " ".join([name, *(self._cell(c, gpu) for c in columns)])

    def _gpu_width(self, columns: Sequence[Column]) -> int:
        return sum(self.widths[c.name] + 1 for c in columns) - 1

    def lines(self, sample: Sample) -> list[str]:
        """The tick's lines: one, or the host's and one per GPU below it."""
        host = self._host(sample, self.host_columns)
        gpus = [self._gpu(slot, gpu, self.gpu_columns) for slot, gpu in enumerate(sample.gpus)]
        if self.one_line:
            noted = [
                f"{label(slot, gpu)} {' '.join(notes(gpu))}"
                for slot, gpu in enumerate(sample.gpus)
                if notes(gpu)
            ]
            line = " | ".join([host, *gpus, *noted]).rstrip()
            if self.width is None or len(line) <= self.width:
                return [line]
            # An XID or MIG instances later on: below the row, which keeps its shape.
            return [" | ".join([host, *gpus]).rstrip(), *(GPU_INDENT + n for n in noted)]
        out = [host.rstrip()]
        for gpu, columns in zip(sample.gpus, gpus, strict=True):
            line = GPU_INDENT + columns
            said = " ".join(notes(gpu))
            if said and self.width is not None and len(line) + 1 + len(said) > self.width:
                said = " ".join(notes(gpu, short=True))
            out.append(f"{line} {said}" if said else line.rstrip())
        return out


def human_line(sample: Sample) -> str:
    """A tick as one line, laid out on its own (for a pipe, a tick's whole line)."""
    return Layout(sample, None).lines(sample)[0]
