"""What each bench plot shows, as plain data: series, reference lines, bars and a note.

Pure (no Textual, no plotext) so tests can assert "each plot has data" without drawing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from gpu_tui.core.bench.report import crossover_points
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.ui.bench.comm_plot import comm
from gpu_tui.ui.bench.plot_spec import PlotSpec, Series

VIEWS = ("gemm", "crossover", "transfer", "linear")


def _lines(
    results: list[BenchResult], benchmark: str, key: str, label: str, scale: float = 1.0
) -> dict[str, dict[float, float]]:
    found: dict[str, dict[float, float]] = defaultdict(dict)
    for r in results:
        if r.benchmark == benchmark and key in r.params:
            cold = " cold" if r.cache == "cold" else ""  # never one line with its hot twin
            if r.library == "numpy":
                cold += " numpy"  # nor numpy's row with torch's
            name = label.format(device=r.device, dtype=r.dtype or "", variant=r.variant, cold=cold)
            found[name][float(r.params[key])] = r.value * scale
    return found


def _series(lines: dict[str, dict[float, float]], baseline: bool) -> list[Series]:
    tag = " (base)" if baseline else ""
    return [
        Series(name + tag, tuple(sorted(pts)), tuple(pts[x] for x in sorted(pts)), baseline)
        for name, pts in sorted(lines.items())
    ]


def _both(
    results: list[BenchResult],
    baseline: list[BenchResult],
    benchmark: str,
    key: str,
    label: str,
    scale: float = 1.0,
) -> tuple[Series, ...]:
    now = _series(_lines(results, benchmark, key, label, scale), baseline=False)
    then = _series(_lines(baseline, benchmark, key, label, scale), baseline=True)
    return (*now, *then)


def _ticks(series: tuple[Series, ...]) -> tuple[float, ...]:
    return tuple(sorted({x for s in series for x in s.xs}))


def gemm(results: list[BenchResult], baseline: list[BenchResult], gpu: bool) -> PlotSpec:
    # CPU figures are GFLOP/s and GPU TFLOP/s: one axis in GFLOP/s, log when both are shown
    scale = {r.device: 1e3 if r.unit == "TFLOP/s" else 1.0 for r in results + baseline}
    series = tuple(
        Series(
            s.label, s.xs, tuple(y * scale.get(s.label.split()[0], 1.0) for y in s.ys), s.baseline
        )
        for s in _both(results, baseline, "gemm", "n", "{device} {dtype}{cold}")
    )
    peaks: dict[str, float] = {}
    for r in results:
        if r.benchmark == "gemm" and r.peak:
            peaks[f"{r.device} {r.dtype} peak"] = r.peak * scale.get(r.device, 1.0)
    mixed = len({r.device for r in results + baseline if r.benchmark == "gemm"}) > 1
    note = "" if gpu else "A GPU would add one line per dtype (fp32, tf32, fp16, bf16, fp8)."
    return PlotSpec(
        "gemm",
        "GEMM: GFLOP/s against n, lines = peak",
        "n (matrix size)",
        "GFLOP/s",
        xlog=True,
        ylog=mixed,
        series=series,
        hlines=tuple((v, k) for k, v in sorted(peaks.items())),
        note=note,
        xticks=_ticks(series),
    )


def crossover(results: list[BenchResult], baseline: list[BenchResult], gpu: bool) -> PlotSpec:
    series = _both(results, baseline, "crossover", "n", "{variant}")
    vlines = []
    for device, scopes in crossover_points(results).items():
        for scope, n in sorted(scopes.items()):
            if n:
                vlines.append((float(n), f"{device} {scope} wins from n={n}"))
    if not gpu:
        note = (
            "A GPU would add resident and end-to-end lines; the crossover is where they dip under."
        )
    elif vlines:
        note = "; ".join(label for _, label in vlines)
    else:
        note = "The GPU did not win at any size in this sweep."
    return PlotSpec(
        "crossover",
        "CPU vs GPU: µs per fp32 GEMM against n (log-log)",
        "n",
        "µs per call",
        xlog=True,
        ylog=True,
        series=series,
        vlines=tuple(vlines),
        note=note,
        xticks=_ticks(series),
    )


def transfer(results: list[BenchResult], baseline: list[BenchResult], gpu: bool) -> PlotSpec:
    series = _both(results, baseline, "transfer", "bytes", "{device} {variant}")
    peaks = {f"{r.device} PCIe peak": r.peak for r in results if r.benchmark == "transfer"}
    note = (
        "" if gpu else "Host↔device copies need a GPU: PCIe GB/s against size, pinned vs pageable."
    )
    return PlotSpec(
        "transfer",
        "Host↔device: GB/s against bytes per copy",
        "bytes",
        "GB/s",
        xlog=True,
        series=series,
        hlines=tuple((v, k) for k, v in sorted(peaks.items()) if v),
        note=note,
    )


def _bar_label(r: BenchResult, threads: object) -> str:
    side = (
        f"CPU {r.dtype} {r.library} ({threads} thr)"
        if r.device == "cpu"
        else f"{r.device} {r.dtype}"
    )
    if r.device != "cpu" and r.dtype == "fp32":
        side += "-ieee"
    return side


def linear(
    results: list[BenchResult], baseline: list[BenchResult], gpu: bool, threads: object = "?"
) -> PlotSpec:
    bars: list[tuple[str, float]] = []
    for group, tag in ((results, ""), (baseline, " (base)")):
        for r in group:
            if r.benchmark == "linear":
                gflops = r.value * (1e3 if r.unit == "TFLOP/s" else 1)
                bars.append((f"{_bar_label(r, threads)}{tag} {gflops:,.0f}", gflops))
    cpu = [r for r in results if r.benchmark == "linear" and r.device == "cpu"]
    fast = [r for r in results if r.benchmark == "linear" and r.device != "cpu"]
    if cpu and fast:
        # "CPU best" (a rule in gpu_tui/core/bench/__init__.py): the faster of torch and numpy
        best = min(cpu, key=lambda r: r.median_seconds)
        note = "; ".join(
            f"{_bar_label(g, threads)} is {best.median_seconds / g.median_seconds:,.0f}× "
            f"{_bar_label(best, threads)} per call"
            for g in fast
        )
    elif gpu:
        note = "Run linear on cpu and the GPU for the speedup."
    else:
        note = "A GPU would add its bar and the speedup, each side's precision named."
        if bars:  # keep the pair visible: the empty side is part of the lesson
            bars.append(("GPU (none here) 0", 0.0))
    return PlotSpec(
        "linear",
        "Linear(10000,10000), batch 1000: GFLOP/s",
        ylabel="GFLOP/s",
        bars=tuple(bars),
        note=note,
    )


def build(
    view: str,
    results: list[BenchResult],
    baseline: list[BenchResult] | None = None,
    *,
    gpu: bool = False,
    threads: object = "?",
) -> PlotSpec:
    """The plot for ``view`` (one of :data:`VIEWS`); a comm run has one plot, whatever the view."""
    base = baseline or []
    if results and all(r.benchmark in ("comm", "copies") for r in results):
        # a comm run's one plot; the copies are tables (copy_table.py)
        return comm([r for r in results if r.benchmark == "comm"], base)
    if view == "gemm":
        spec = gemm(results, base, gpu)
    elif view == "crossover":
        spec = crossover(results, base, gpu)
    elif view == "transfer":
        spec = transfer(results, base, gpu)
    else:
        spec = linear(results, base, gpu, threads)
    if results and not spec.has_data and not spec.note:  # a run without this plot's benchmark
        spec = replace(spec, note=EMPTY_IN_RUN)
    return spec


EMPTY_IN_RUN = (
    "The run shown measured nothing this plot draws: tick its benchmark in the options (o) "
    "and run (r)."
)
