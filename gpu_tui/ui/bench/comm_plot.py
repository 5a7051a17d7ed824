"""The comm suite's views as plain data: bus bandwidth against message size, per operation,
and which copies matrices there are (``p`` cycles through them all)."""

from __future__ import annotations

from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.comm.bandwidth import SOURCE_URL
from gpu_tui.core.comm.copies import COPIES, CopyMatrix, build_matrix, matrices
from gpu_tui.core.units import byte_ticks
from gpu_tui.ui.bench.plot_spec import PlotSpec, Series


def _lines(results: list[BenchResult], tag: str) -> list[Series]:
    found: dict[str, dict[float, float]] = {}
    for r in results:
        if r.benchmark == "comm" and "bytes" in r.params:
            name = f"{r.variant} {r.dtype or ''}".strip() + tag
            found.setdefault(name, {})[float(r.params["bytes"])] = r.value
    return [
        Series(name, tuple(sorted(points)), tuple(points[x] for x in sorted(points)), bool(tag))
        for name, points in sorted(found.items())
    ]


def comm(results: list[BenchResult], baseline: list[BenchResult]) -> PlotSpec:
    """busbw (GB/s) against the operation's size (bytes), log-log, as nccl-tests reports it."""
    series = (*_lines(results, ""), *_lines(baseline, " (base)"))
    ranks = next((r.params.get("ranks") for r in results if r.benchmark == "comm"), None)
    peaks = {f"{r.device} link peak": r.peak for r in results if r.benchmark == "comm" and r.peak}
    shown = [x for s in series for x in s.xs]
    ticks = byte_ticks(min(shown), max(shown)) if shown else ()
    note = (
        f"busbw = algbw × the operation's factor, {ranks} ranks ({SOURCE_URL})"
        if ranks
        else "gpu-tui bench --suite comm, or s until the suite is comm and r: collectives "
        "between ranks started by torchrun"
    )
    return PlotSpec(
        "comm",
        "Collectives: bus bandwidth against size",
        "bytes",
        "busbw GB/s",
        xlog=True,
        ylog=True,
        series=series,
        hlines=tuple((v, k) for k, v in sorted(peaks.items()) if v is not None),
        note=note,
        xticks=ticks,
        xbytes=True,
    )


def is_comm_run(results: list[BenchResult]) -> bool:
    return bool(results) and all(r.benchmark in ("comm", COPIES) for r in results)


def views(results: list[BenchResult]) -> tuple[str, ...]:
    """A comm run's views: the busbw plot when collectives were measured, then each copies
    matrix (``copies:p2p:bandwidth`` …)."""
    found = ["comm"] if any(r.benchmark == "comm" for r in results) else []
    found += [f"{COPIES}:{m.mode}:{m.role}" for m in matrices(results)]
    return tuple(found) or ("comm",)


def matrix_for(view: str, results: list[BenchResult]) -> CopyMatrix | None:
    """The copies matrix a view shows, or None for a plot."""
    kind, _, rest = view.partition(":")
    if kind != COPIES:
        return None
    mode, _, role = rest.partition(":")
    return build_matrix(results, mode, role)
