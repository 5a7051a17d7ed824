"""The catalog with this machine's CPU and accelerators placed in it: rows, filter, sort, bars."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace

from gpu_tui.core.devices.catalog import CatalogEntry, DeviceFigures
from gpu_tui.core.devices.cpu_names import short_cpu_name
from gpu_tui.core.devices.fields import value_or_none
from gpu_tui.core.devices.model import Accelerator, CpuInfo, Inventory, MemoryInfo
from gpu_tui.core.devices.peaks import lacks_precision
from gpu_tui.core.devices.sources import Source
from gpu_tui.core.units import gigabyte_symbol

_SIMULATED = re.compile(r"\s*\(SIMULATED[^)]*\)\s*$")

WEAK_MARK = "†"
"""Follows a figure only a secondary source states (a legend says so wherever it is shown)."""

PRECISIONS = {"bf16_tflops": "BF16", "fp8_tflops": "FP8"}
"""The rates an architecture may lack altogether, by attribute, with the precision's name."""


@dataclass(frozen=True)
class LineupRow(DeviceFigures):
    """One device in the Guide's table: a catalog product, or one found on this machine.

    Its figures are a :class:`DeviceFigures`, the same fields a :class:`CatalogEntry` has;
    ``name`` is the display name: a simulated device's always ends in ``(SIMULATED)``.
    """

    key: str
    """Unique and stable across sorts (the table's row key)."""
    source: str
    """One line for people: the catalog's documents, or how this machine's figures were found."""
    local: bool = False
    simulated: bool = False
    documents: tuple[Source, ...] = ()
    """A catalog row's documents (titles and addresses), each once."""
    weak: frozenset[str] = frozenset()
    """Attributes whose only source is secondary: the table marks them as weakly sourced."""
    count: int = 1
    """How many identical devices of this machine the row stands for (its figures are one's)."""
    unsupported: frozenset[str] = frozenset()
    """Rates (``PRECISIONS``) the architecture cannot compute at all: a V100 has no BF16, so
    its BF16 figure is not "not published" but absent from the hardware."""

    def missing(self, attr: str) -> str:
        """Why a figure has no value, in words: ``no BF16`` (the architecture has none),
        ``unknown`` (this machine's, not read), else ``not published``."""
        if attr in self.unsupported:
            return f"no {PRECISIONS[attr]}"
        return "unknown" if self.local else "not published"


@dataclass(frozen=True)
class Column:
    """A sortable column: the row attribute, its header and whether it holds numbers."""

    attr: str
    label: str
    numeric: bool


# Most telling first, so at 80 columns what scrolls off the right edge matters least.
COLUMNS: tuple[Column, ...] = (
    Column("name", "Device", False),
    Column("memory_gib", "Mem GiB", True),
    Column("bandwidth_tbps", "TB/s", True),
    Column("bf16_tflops", "BF16", True),
    Column("fp8_tflops", "FP8", True),
    Column("fp32_tflops", "FP32", True),
    Column("tdp_watts", "TDP W", True),
    Column("year", "Year", True),
    Column("vendor", "Vendor", False),
    Column("architecture", "Architecture", False),
)
"""The columns; ``header_labels`` gives what their headings read."""


def header_labels() -> tuple[str, ...]:
    """The columns' headings, the memory's in the size unit shown (``Mem GiB`` or ``Mem GB``)."""
    return tuple(c.label.replace("GiB", gigabyte_symbol()) for c in COLUMNS)


_CPU_VENDORS = {"AuthenticAMD": "AMD", "GenuineIntel": "Intel"}


def display_name(name: str, simulated: bool) -> str:
    """Without "NVIDIA " (most rows have it; other vendors' names need theirs to read well).

    A simulated device's name always ends in ``(SIMULATED)``, where truncation never reaches.
    """
    base = _SIMULATED.sub("", name).removeprefix("NVIDIA ")
    return f"{base} (SIMULATED)" if simulated else base


def counted(name: str, count: int) -> str:
    """``8 × H100 SXM``: identical devices shown once, with how many; one is its name alone."""
    return f"{count} × {name}" if count > 1 else name


def catalog_row(entry: CatalogEntry) -> LineupRow:
    """A reference product as a row: its dense figures, its documents, its weak figures."""
    figures = {f.name: getattr(entry, f.name) for f in fields(DeviceFigures)}
    return LineupRow(
        **figures | {"name": display_name(entry.name, simulated=False)},
        key=f"cat:{entry.name}",
        source=entry.source,
        documents=entry.documents(),
        weak=entry.weak_figures(),
        unsupported=_unsupported(entry.compute, entry),
    )


def _unsupported(compute: str | None, figures: DeviceFigures) -> frozenset[str]:
    """The rates a device has no value for because its architecture lacks the precision."""
    return frozenset(
        attr
        for attr, precision in PRECISIONS.items()
        if getattr(figures, attr) is None and lacks_precision(compute, precision.lower())
    )


def accelerator_row(device: Accelerator) -> LineupRow:
    """A detected accelerator: memory as the driver reports it, peaks computed from its clocks."""
    peaks = device.peaks
    memory = value_or_none(device.memory_total_bytes)
    bandwidth = value_or_none(peaks.memory_bandwidth_gb_per_second)
    # Only the bases of the figures the Guide plots: the full set runs to a screenful.
    basis = "; ".join(
        f"{label} = {peaks.basis[k]}"
        for k, label in (("memory_bandwidth_gb_per_second", "bandwidth"), ("bf16_tflops", "BF16"))
        if k in peaks.basis
    )
    source = f"this machine: memory as reported by {device.backend}; computed peaks: {basis}"
    row = LineupRow(
        key=f"gpu:{device.index}",
        name=display_name(device.name, device.simulated),
        vendor=device.vendor,
        architecture=str(value_or_none(device.architecture) or "unknown"),
        year=None,
        memory_gib=None if memory is None else memory / 2**30,
        memory_type="VRAM",
        bandwidth_tbps=None if bandwidth is None else bandwidth / 1000,
        fp32_tflops=value_or_none(peaks.fp32_tflops),
        bf16_tflops=value_or_none(peaks.bf16_tflops),
        fp8_tflops=value_or_none(peaks.fp8_tflops),
        tdp_watts=value_or_none(device.power_limit_default_watts),
        source=source,
        notes="SIMULATED: --demo's stand-in, not a real device." if device.simulated else "",
        local=True,
        simulated=device.simulated,
    )
    compute = value_or_none(device.compute_capability)
    return replace(row, unsupported=_unsupported(None if compute is None else str(compute), row))


def cpu_row(cpu: CpuInfo, memory: MemoryInfo) -> LineupRow:
    """The CPU: its computed FP32 peak and system RAM; BF16 and bandwidth are not computed."""
    gflops = value_or_none(cpu.peak.gflops)
    vendor = str(value_or_none(cpu.vendor) or "unknown")
    vendor = _CPU_VENDORS.get(vendor, vendor)
    return LineupRow(
        key="cpu",
        name=f"CPU: {short_cpu_name(cpu.model)}",
        vendor=vendor,
        architecture=str(value_or_none(cpu.microarchitecture) or cpu.architecture),
        year=None,
        memory_gib=memory.total_bytes / 2**30,
        memory_type="system RAM",
        bandwidth_tbps=None,
        fp32_tflops=None if gflops is None else gflops / 1000,
        bf16_tflops=None,
        fp8_tflops=None,
        tdp_watts=None,
        source=f"this machine: FP32 peak = {cpu.peak.basis}; memory = system RAM (/proc/meminfo)",
        notes="gpu-tui computes no BF16 peak or memory bandwidth for CPUs.",
        local=True,
    )


def local_rows(inventory: Inventory | None) -> tuple[LineupRow, ...]:
    """This machine's CPU, then its accelerators that still answer, identical ones as one row."""
    if inventory is None:
        return ()
    gpus = [d for d in inventory.accelerators if not d.lost]
    return (cpu_row(inventory.cpu, inventory.memory), *_identical_once(gpus))


def _identical_once(devices: list[Accelerator]) -> tuple[LineupRow, ...]:
    """One row per kind of device: eight identical rows on an 8-GPU server said nothing the
    first did not, and pushed the catalog off the screen. Identical means every figure and
    its basis the same; a device that differs in any keeps a row of its own."""
    groups: dict[LineupRow, list[Accelerator]] = {}
    for device in devices:
        groups.setdefault(replace(accelerator_row(device), key=""), []).append(device)
    rows = []
    for row, same in groups.items():
        first = same[0]
        if len(same) == 1:
            rows.append(replace(row, key=f"gpu:{first.index}"))
            continue
        count = (
            f"This machine has {len(same)} of these ({_numbers([d.index for d in same])}); "
            "the figures are each one's."
        )
        rows.append(
            replace(
                row,
                key=f"gpu:{first.index}",
                name=counted(row.name, len(same)),
                notes=f"{count} {row.notes}".rstrip(),
                count=len(same),
            )
        )
    return tuple(rows)


def _numbers(indices: list[int]) -> str:
    """Device numbers as a reader scans them: ``devices 0–7``, or ``devices 0, 2, 5``."""
    run = indices == list(range(indices[0], indices[0] + len(indices)))
    listed = f"{indices[0]}–{indices[-1]}" if run else ", ".join(map(str, indices))
    return f"devices {listed}"


def local_summary(rows: Iterable[LineupRow]) -> str:
    """What this machine adds to the table, in words: ``8 GPUs + CPU``, ``1 GPU + CPU``."""
    local = [row for row in rows if row.local]
    gpus = sum(row.count for row in local if row.key != "cpu")
    parts = [f"{gpus} GPU{'' if gpus == 1 else 's'}"] if gpus else []
    parts += ["CPU"] if any(row.key == "cpu" for row in local) else []
    return " + ".join(parts) or "nothing found"


def catalog_rows(entries: Iterable[CatalogEntry] | None = None) -> tuple[LineupRow, ...]:
    """The reference catalog plus the Guide's extra rows (or ``entries``)."""
    if entries is None:
        from gpu_tui.core.guide.extra_catalog import all_entries

        entries = all_entries()
    return tuple(catalog_row(e) for e in entries)


def matches(row: LineupRow, query: str) -> bool:
    """Every word of ``query`` appears in the row's name, vendor, architecture or year."""
    haystack = f"{row.name} {row.vendor} {row.architecture} {row.year or ''}".lower()
    return all(word in haystack for word in query.lower().split())


def filter_rows(rows: Iterable[LineupRow], query: str) -> tuple[LineupRow, ...]:
    """Rows matching ``query``; this machine's rows always stay, to be compared against."""
    return tuple(row for row in rows if row.local or matches(row, query))


def sort_rows(rows: Iterable[LineupRow], column: Column, descending: bool) -> tuple[LineupRow, ...]:
    """Sorted by one column; a missing figure goes last in either direction."""
    present = [r for r in rows if getattr(r, column.attr) is not None]
    missing = [r for r in rows if getattr(r, column.attr) is None]

    def key(row: LineupRow) -> tuple[float | str, str]:
        value = getattr(row, column.attr)
        return (value if column.numeric else str(value).lower(), row.name.lower())

    return (*sorted(present, key=key, reverse=descending), *sorted(missing, key=lambda r: r.name))


@dataclass(frozen=True)
class LineupBar:
    """One device on one metric; ``missing`` says why a bar has no value."""

    label: str
    value: float | None
    local: bool
    simulated: bool
    missing: str = "not published"
    weak: bool = False
    """Only a secondary source states the value (shown with ``WEAK_MARK``)."""


@dataclass(frozen=True)
class BarChart:
    """One metric across devices, largest first, figures without a value last."""

    title: str
    unit: str
    bars: tuple[LineupBar, ...]


def _bar(row: LineupRow, attr: str, name: str | None = None) -> LineupBar:
    name = row.name if name is None else name
    value = row.memory_shown() if attr == "memory_gib" else getattr(row, attr)
    return LineupBar(
        f"▶ {name}" if row.local else name,
        value,
        row.local,
        row.simulated,
        row.missing(attr),
        weak=attr in row.weak,
    )


def bar_charts(rows: Iterable[LineupRow]) -> tuple[BarChart, ...]:
    """Bandwidth, dense BF16 and memory; a CPU sits in the BF16 chart by its FP32 peak, so said."""
    rows = tuple(rows)

    def chart(title: str, unit: str, bars: list[LineupBar]) -> BarChart:
        ranked = sorted(bars, key=lambda b: (b.value is None, -(b.value or 0.0), b.label))
        return BarChart(title, unit, tuple(ranked))

    def bf16(row: LineupRow) -> LineupBar:
        if row.key == "cpu" and row.fp32_tflops is not None:
            # Said up front: a cut label must not hide that this is another precision.
            return _bar(row, "fp32_tflops", "CPU FP32: " + row.name.removeprefix("CPU: "))
        return _bar(row, "bf16_tflops")

    return (
        chart("Memory bandwidth", "TB/s", [_bar(r, "bandwidth_tbps") for r in rows]),
        chart("Dense BF16", "TFLOP/s", [bf16(r) for r in rows]),
        chart("Memory", gigabyte_symbol(), [_bar(r, "memory_gib") for r in rows]),
    )
