"""The comm suite as text: one row per operation, dtype and size, the way nccl-tests prints it."""

from __future__ import annotations

from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.comm.bandwidth import SOURCE_URL
from gpu_tui.core.units import format_bytes_exact

LEGEND = (
    "time: median per operation on the slowest rank (p20–p80), after warm-up; algbw = size / "
    f"time; busbw = algbw × the operation's factor, as nccl-tests defines them ({SOURCE_URL}); "
    "check: every rank's result compared with the exact answer"
)
HEADINGS = (
    "operation",
    "dtype",
    "size",
    "time µs",
    "p20–p80 µs",
    "algbw GB/s",
    "busbw GB/s",
    "% link",
    "check",
)


def comm_results(results: list[BenchResult]) -> list[BenchResult]:
    return [r for r in results if r.benchmark == "comm"]


def _check(result: BenchResult) -> str:
    checks = result.checks or {}
    if checks.get("ok") is True:
        return "ok"
    if checks.get("ok") is False:
        return f"WRONG {checks.get('wrong_elements')} on ranks {checks.get('wrong_ranks')}"
    return "-"


def row(result: BenchResult) -> tuple[str, ...]:
    percent = "-" if result.percent_of_peak is None else f"{result.percent_of_peak:.0f}"
    return (
        result.variant,
        result.dtype or "",
        format_bytes_exact(int(result.params.get("bytes", 0))),
        f"{result.median_seconds * 1e6:,.1f}",
        f"{result.p20_seconds * 1e6:,.1f}–{result.p80_seconds * 1e6:,.1f}",
        f"{result.throughput or 0:.3f}",
        f"{result.value:.3f}",
        percent,
        _check(result),
    )


def table(results: list[BenchResult]) -> str:
    rows = [HEADINGS, *(row(r) for r in comm_results(results))]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADINGS))]
    left = {0, 1, 8}
    lines = []
    for cells in rows:
        parts = [
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def headline(results: list[BenchResult]) -> str | None:
    """The best all-reduce bus bandwidth and the smallest all-reduce latency, in one line."""
    reduces = [r for r in comm_results(results) if r.variant == "all_reduce"]
    if not reduces:
        return None
    best = max(reduces, key=lambda r: r.value)
    small = min(reduces, key=lambda r: int(r.params.get("bytes", 0)))
    ranks = best.params.get("ranks")
    return (
        f"all-reduce over {ranks} ranks ({best.params.get('backend')}): busbw up to "
        f"{best.value:.3g} GB/s at {format_bytes_exact(int(best.params.get('bytes', 0)))}; "
        f"latency {small.median_seconds * 1e6:,.0f} µs at "
        f"{format_bytes_exact(int(small.params.get('bytes', 0)))}"
    )
