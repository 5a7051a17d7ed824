"""How to read a real measurement beside the kitchen model: a small table and two verdicts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gpu_tui.core.bench.report import crossover_points
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.kitchen import model
from gpu_tui.core.kitchen.figures import NULL_KERNEL_LAUNCH_SECONDS
from gpu_tui.core.kitchen.measurement import GEMM_SIZES, HALLWAY_SIZES, RealCheck
from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.core.units import (
    format_bytes_exact,
    format_seconds_and_long,
    format_time,
    format_time_long,
    format_times,
)

PENDING, MISSING, NO_GPU = "…", "—", "no GPU"
KIB, MIB = 1 << 10, 1 << 20
TRANSFER_SIZES = (4 * KIB, 1 * MIB, 64 * MIB, 256 * MIB)


@dataclass(frozen=True)
class Reading:
    """What the panel shows; every cell is text ("…" while it is still being measured)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    model: str
    """The model's prediction for the scenario as set, in one line."""
    measured: str
    """What this machine's numbers say, in one line ("" until there is something to say)."""


class _Results:
    """Look-ups into a run's results: CPU rows by variant, GPU rows from the first GPU only."""

    def __init__(self, results: Iterable[BenchResult], finished: bool, no_gpu: bool) -> None:
        self.all = list(results)
        gpus = [r.device for r in self.all if r.device != "cpu"]
        self.gpu = gpus[0] if gpus else None
        self.finished, self.no_gpu = finished, no_gpu

    def find(self, benchmark: str, variant: str, gpu: bool, **params: int) -> BenchResult | None:
        for r in self.all:
            if r.benchmark != benchmark or r.variant != variant:
                continue
            if (r.device != "cpu") != gpu or (gpu and r.device != self.gpu):
                continue
            if all(r.params.get(k) == v for k, v in params.items()):
                return r
        return None

    def cell(self, result: BenchResult | None, gpu: bool, text: str | None = None) -> str:
        if result is not None:
            return text or format_time(result.median_seconds)
        if gpu and self.no_gpu:
            return NO_GPU
        return MISSING if self.finished else PENDING


def model_line(params: KitchenParams) -> str:
    """The model's verdict: who wins by how much, with both times (in model seconds)."""
    chef, brigade = model.chef_seconds(params), model.brigade_seconds(params)
    if params.kitchens > 1:
        series = model.kitchens_series(params)
        best, last = min(series, key=lambda p: (p.seconds, p.kitchens)), series[-1]
        speed = format_times(float(last.speedup))
        shown = f"Model: {last.kitchens} kitchens run at {speed} the speed of one"
        if best.kitchens == 1:
            return f"{shown}; one kitchen is best"
        return f"{shown}; {best.kitchens} are best ({format_times(float(best.speedup))})"
    winner, ratio = ("brigade", chef / brigade) if brigade < chef else ("chef", brigade / chef)
    return (
        f"Model: {winner} {format_times(float(ratio))} faster "
        f"(chef {format_time_long(float(chef))} · brigade {format_time_long(float(brigade))})"
    )


def _onions(params: KitchenParams, got: _Results) -> Reading:
    chef, brigade = model.chef_seconds(params), model.brigade_seconds(params)
    loop = got.find("reduction", "python-loop", False)
    builtin = got.find("reduction", "builtin-sum", False)
    vector = [got.find("reduction", v, False) for v in ("torch-sum", "numpy-sum")]
    best = min((r for r in vector if r), key=lambda r: r.median_seconds, default=None)
    resident = got.find("reduction", "gpu-resident", True)
    e2e = got.find("reduction", "gpu-end-to-end", True)
    rows = [
        (
            "chef: Python loop, one at a time",
            format_seconds_and_long(float(chef)),
            got.cell(loop, False),
        ),
        ("chef in C: built-in sum()", "", got.cell(builtin, False)),
        (
            "brigade: vectorised, CPU cores",
            format_seconds_and_long(float(brigade)),
            got.cell(best, False),
        ),
        ("GPU, data already on it", "", got.cell(resident, True)),
        ("GPU end to end (copy, .item())", "", got.cell(e2e, True)),
    ]
    measured, speedup = "", got.cell(None, False)
    if loop and best:
        ratio = loop.median_seconds / best.median_seconds
        speedup = format_times(ratio)
        measured = f"This machine: vectorised {format_times(ratio)} faster than the Python loop"
        if e2e:
            slower = e2e.median_seconds > best.median_seconds
            measured += (
                f"; GPU end to end {format_time(e2e.median_seconds)}, "
                f"{'slower' if slower else 'faster'} than this CPU"
            )
    rows.append(("speed-up: loop ÷ vectorised", format_times(float(chef / brigade)), speedup))
    # the model column already holds the model's prediction: no separate line for it
    return Reading(("", "model", "measured"), tuple(rows), "", measured)


def _complex(params: KitchenParams, got: _Results) -> Reading:
    rows = [
        (
            "one tiny op (+1)",
            got.cell(got.find("launch", "dispatch", False), False),
            got.cell(got.find("launch", "round-trip", True), True),
            got.cell(got.find("launch", "item", True), True),
        )
    ]
    cpu_at: dict[int, float] = {}
    for n in GEMM_SIZES:
        cpu = [got.find("crossover", v, False, n=n) for v in ("cpu-torch", "cpu-numpy")]
        best = min((r for r in cpu if r), key=lambda r: r.median_seconds, default=None)
        if best:
            cpu_at[n] = best.median_seconds
        resident = got.find("crossover", "gpu-resident", True, n=n)
        e2e = got.find("crossover", "gpu-end-to-end", True, n=n)
        rows.append(
            (f"GEMM n={n:,}", got.cell(best, False), got.cell(resident, True), got.cell(e2e, True))
        )
    measured = ""
    points = crossover_points(got.all).get(got.gpu or "", {})
    if points:
        first = points.get("resident")
        measured = (
            f"This machine: the GPU wins from n={first:,} with the data on it"
            if first
            else "This machine: the CPU wins every size here"
        ) + (" (never end to end)" if points.get("end-to-end") is None else "")
    elif cpu_at:
        n = min(cpu_at)
        launch = float(NULL_KERNEL_LAUNCH_SECONDS)
        # A GPU's answer costs at least one bare launch; say "less" only when it truly is.
        than = "less" if cpu_at[n] < launch else "more"
        measured = (
            f"This CPU: GEMM n={n} in {format_time(cpu_at[n])}, {than} than a bare GPU kernel "
            f"launch alone (~{format_time(launch)})"
        )
    header = ("", "this CPU", "GPU resident", "GPU end to end")
    return Reading(header, tuple(rows), model_line(params), measured)


def _bandwidth_cell(got: _Results, result: BenchResult | None, gpu: bool) -> str:
    return got.cell(result, gpu, f"{result.value:,.1f} GB/s" if result else None)


def _pantry(params: KitchenParams, got: _Results) -> Reading:
    rows, rates = [], {}
    for kernel in ("copy", "triad"):
        cpu = got.find("bandwidth", kernel, False)
        gpu = got.find("bandwidth", kernel, True)
        rows.append((kernel, _bandwidth_cell(got, cpu, False), _bandwidth_cell(got, gpu, True)))
        rates[kernel] = (cpu, gpu)
    cpu, gpu = rates["triad"]
    measured = ""
    if cpu and gpu:
        measured = (
            f"This machine: the GPU's pantry is {format_times(gpu.value / cpu.value)} this CPU's "
            "(triad), so a pantry-bound job gains about that, whatever the core count"
        )
    elif cpu:
        measured = f"This CPU's pantry: {cpu.value:,.1f} GB/s (triad), the pace of any vector add"
    pantry = float(params.pantry_rate / params.chef_pantry_rate)
    line = f"{model_line(params)}; pantry ratio {format_times(pantry)}"
    return Reading(("STREAM", "this CPU", "GPU"), tuple(rows), line, measured)


def _all_reduce(params: KitchenParams, got: _Results) -> Reading:
    """The hallway as an all-reduce between two ranks: time and bus bandwidth per size."""
    rows = []
    for size in HALLWAY_SIZES:
        r = got.find("comm", "all_reduce", False, bytes=size)
        rows.append(
            (
                format_bytes_exact(size),
                got.cell(r, False),
                got.cell(r, False, f"{r.value:,.3g} GB/s" if r else None),
            )
        )
    small = got.find("comm", "all_reduce", False, bytes=HALLWAY_SIZES[0])
    large = got.find("comm", "all_reduce", False, bytes=HALLWAY_SIZES[-1])
    measured = ""
    if small and large:
        measured = (
            f"This machine's hallway: α ≈ {format_time(small.median_seconds)} per all-reduce, "
            f"β ≈ {large.value:,.2g} GB/s (bus bandwidth, nccl-tests' definition)"
        )
    header = ("all-reduce, 2 ranks", "time", "busbw")
    return Reading(header, tuple(rows), model_line(params), measured)


def _hallway(params: KitchenParams, got: _Results) -> Reading:
    rows = []
    for size in TRANSFER_SIZES:
        label = format_bytes_exact(size)
        cells = []
        for direction in ("h2d", "d2h"):
            r = got.find("transfer", f"{direction}-pinned", True, bytes=size)
            shown = f"{format_time(r.median_seconds)} · {r.value:,.2g} GB/s" if r else None
            cells.append(got.cell(r, True, shown))
        rows.append((label, *cells))
    small = got.find("transfer", "h2d-pinned", True, bytes=TRANSFER_SIZES[0])
    large = got.find("transfer", "h2d-pinned", True, bytes=TRANSFER_SIZES[-1])
    measured = ""
    if small and large:
        measured = (
            f"This machine's PCIe: α ≈ {format_time(small.median_seconds)} per copy, "
            f"β ≈ {large.value:,.1f} GB/s"
        )
    header = ("pinned copy", "host → GPU", "GPU → host")
    return Reading(header, tuple(rows), model_line(params), measured)


def read(
    check: RealCheck,
    params: KitchenParams,
    results: Iterable[BenchResult],
    *,
    finished: bool = False,
    no_gpu: bool = False,
) -> Reading:
    """The panel for ``check`` so far: pending cells while running, "—" or "no GPU" after."""
    got = _Results(results, finished, no_gpu)
    if check.scenario == "onions":
        return _onions(params, got)
    if check.scenario == "complex-recipe":
        return _complex(params, got)
    if check.scenario == "pantry-bound":
        return _pantry(params, got)
    if check.suite == "comm":
        return _all_reduce(params, got)
    return _hallway(params, got)
