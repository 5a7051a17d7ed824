"""Human output for a run: the results table, the lessons (speedup, crossover), charts, deltas."""

from __future__ import annotations

import re
from collections import defaultdict

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.result_text import peak_cell, size_of, spread_ratio, tags, value_cell
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.store import Delta
from gpu_tui.core.units import format_number as _number
from gpu_tui.core.units import format_percent
from gpu_tui.core.units import format_seconds as _seconds

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def table(results: list[BenchResult], deltas: dict[str, Delta] | None = None) -> str:
    """One line per result, every cell whole: the name, device, size and value columns are as
    wide as their widest cell (about 100 columns for the quick suite, more with deltas)."""
    names = [f"{r.benchmark} {r.variant}" for r in results]
    values = [value_cell(r) for r in results]

    def width(heading: str, cells: list[str]) -> int:
        return max([len(heading), *map(len, cells)]) + 1

    w_name = width("benchmark", names)
    w_device = width("device", [r.device for r in results])
    w_dtype = width("dtype", [r.dtype or "-" for r in results])
    w_size = width("size", [size_of(r) for r in results])
    w_value = width("value", values) + 1
    head = (
        f"{'benchmark':<{w_name}}{'device':<{w_device}}{'dtype':<{w_dtype}}{'size':<{w_size}}"
        f"{'value':>{w_value}}{'% pk':>6}{'median':>10}{'p20-p80':>9}{'n':>5} notes"
    )
    if deltas is not None:
        head += "   vs baseline"
    lines = [head, "-" * len(head)]
    for r, name, value in zip(results, names, values, strict=True):
        peak = peak_cell(r)
        spread = spread_ratio(r) or 0.0
        line = (
            f"{name:<{w_name}}{r.device:<{w_device}}{(r.dtype or '-'):<{w_dtype}}"
            f"{size_of(r):<{w_size}}{value:>{w_value}}{peak:>6}{_seconds(r.median_seconds):>10}"
            f"{format_percent(spread, 0):>9}{r.repeats:>5} {tags(r)}"
        )
        if deltas is not None:
            delta = deltas.get(r.key)
            line += f"   {format_percent(delta.fraction, signed=True)}" if delta else "   (new)"
        lines.append(line.rstrip())
    return "\n".join(lines)


def _by(results: list[BenchResult], benchmark: str) -> list[BenchResult]:
    return [r for r in results if r.benchmark == benchmark]


def crossover_points(results: list[BenchResult]) -> dict[str, dict[str, int | None]]:
    """Per GPU device and scope: the smallest n where the GPU beats the best CPU time."""
    cpu_best: dict[int, float] = {}
    gpu: dict[tuple[str, str], dict[int, float]] = defaultdict(dict)
    for r in _by(results, "crossover"):
        n = int(r.params["n"])
        if r.device == "cpu":
            cpu_best[n] = min(cpu_best.get(n, r.median_seconds), r.median_seconds)
        else:
            gpu[(r.device, r.variant.removeprefix("gpu-"))][n] = r.median_seconds
    found: dict[str, dict[str, int | None]] = defaultdict(dict)
    for (device, scope), times in gpu.items():
        wins = [n for n in sorted(times) if n in cpu_best and times[n] < cpu_best[n]]
        found[device][scope] = wins[0] if wins else None
    return dict(found)


def lessons(document: RunDocument) -> list[str]:
    """The sentences the numbers support: speedup named both sides, crossover, the sum lesson."""
    results, lines = document.results, []
    threads = (document.environment or {}).get("cpu_threads")
    cpu = min(
        (r for r in _by(results, "linear") if r.device == "cpu"),
        key=lambda r: r.median_seconds,
        default=None,
    )
    for g in (r for r in _by(results, "linear") if r.device != "cpu"):
        if cpu:
            c = cpu  # the faster of torch and numpy: "CPU best" (bench package docstring)
            mode = f"{g.dtype}" + ("-ieee" if g.dtype == "fp32" else "")
            lines.append(
                f"Linear(10000,10000) batch {g.params['batch']}: CPU {c.dtype} "
                f"({c.library}, {threads} threads) "
                f"{_seconds(c.median_seconds)}/call vs {g.device} {mode} "
                f"{_seconds(g.median_seconds)}/call = {c.median_seconds / g.median_seconds:,.0f}x "
                "faster on the GPU (inputs resident, both warmed up and synchronised)"
            )
    lines.extend(cpu_best_lines(document))
    for device, scopes in crossover_points(results).items():
        shown = ", ".join(
            f"{scope}: {'n=' + str(n) if n else 'never in this sweep'}"
            for scope, n in sorted(scopes.items())
        )
        lines.append(f"CPU/GPU crossover for fp32 GEMM on {device} ({shown})")
    sums = {r.variant: r for r in _by(results, "reduction")}
    loop, fast = sums.get("python-loop"), sums.get("torch-sum") or sums.get("numpy-sum")
    if loop and fast:
        text = (
            f"Adding up {loop.params['n']:,} numbers: Python loop {_seconds(loop.median_seconds)}, "
            f"vectorised CPU {_seconds(fast.median_seconds)} "
            f"({loop.median_seconds / fast.median_seconds:.0f}x faster)"
        )
        gpu = sums.get("gpu-end-to-end")
        if gpu:
            text += f", GPU end to end {_seconds(gpu.median_seconds)}"
        lines.append(text + ": small jobs belong on the CPU")
    for skip in document.skipped:
        if skip.get("device") == "gpu":
            lines.append(f"GPU side of the suite skipped: {skip.get('reason')}")
            break
    lines.extend(cold_start_lines(results))
    lines.extend(telemetry_lines(document))
    loads = [r.foreign_cpu_vcpus for r in results if r.foreign_cpu_vcpus is not None]
    if loads and max(loads) > 0.1:
        lines.append(
            f"Other processes kept up to {max(loads):.1f} vCPU busy during the run: "
            "CPU figures may be low; rerun on an idle machine"
        )
    return lines


def cold_start_lines(results: list[BenchResult]) -> list[str]:
    """Per GPU, the first measured call against the same call warmed up ("Warm-up before
    timing", bench/__init__.py): the first operation on a device pays for lazy loading and
    library set-up."""
    lines, seen = [], set()
    for r in results:
        cold = r.timing.get("cold_start_seconds")
        if r.device == "cpu" or r.device in seen or not cold or not r.median_seconds:
            continue
        seen.add(r.device)
        lines.append(
            f"First call on {r.device} ({r.benchmark} {r.variant}): {_seconds(cold)}, against "
            f"{_seconds(r.median_seconds)} once warm ({cold / r.median_seconds:,.0f}x): "
            "never time a single call"
        )
    return lines


def cpu_best_lines(document: RunDocument) -> list[str]:
    """Which of torch and numpy multiplied fp32 matrices faster on the CPU, at the largest size
    both ran, each with its BLAS build named ("CPU best", bench/__init__.py); or that numpy was
    not there."""
    env = document.environment or {}
    blas = {"torch": env.get("blas"), "numpy": env.get("numpy_blas")}
    rows = [
        r
        for r in _by(document.results, "gemm")
        if r.device == "cpu" and r.dtype == "fp32" and r.cache != "cold"
    ]
    by_size: dict[int, dict[str, BenchResult]] = defaultdict(dict)
    for r in rows:
        by_size[int(r.params["n"])][r.library] = r
    both = [n for n, found in by_size.items() if len(found) == 2]
    if not both:
        if rows and "numpy_version" in env and env["numpy_version"] is None:
            return ["numpy is not installed for the benchmark: the CPU figures are torch's alone"]
        return []
    n = max(both)
    pair = sorted(by_size[n].values(), key=lambda r: r.median_seconds)
    shown = ", ".join(
        f"{r.library} ({blas[r.library] or 'BLAS unknown'}) {_number(r.value)} {r.unit}"
        for r in pair
    )
    ratio = pair[1].median_seconds / pair[0].median_seconds
    return [f"CPU best fp32 GEMM at n={n}: {shown}; {pair[0].library} is {ratio:.2f}x faster"]


def telemetry_lines(document: RunDocument) -> list[str]:
    """Per GPU: its clock, power and temperature range while measured, and how often it was
    throttled ("GPU telemetry while timed", bench/__init__.py); or why there were no readings."""
    telemetry = (document.environment or {}).get("telemetry") or {}
    lines = []
    for device, record in (telemetry.get("devices") or {}).items():
        if record.get("nvml_index") is None:
            lines.append(f"No clock/power readings for {device}: {record.get('reason')}")
            continue
        seen = [r.telemetry for r in document.results if r.device == device and r.telemetry]
        clocks = [t["sm_clock_mhz"]["min"] for t in seen if t.get("sm_clock_mhz")]
        peaks = [t["sm_clock_mhz"]["median"] for t in seen if t.get("sm_clock_mhz")]
        power = [t["power_watts"] for t in seen if t.get("power_watts")]
        heat = [t["temperature_c"]["max"] for t in seen if t.get("temperature_c")]
        parts = []
        if clocks:
            parts.append(f"SM clock {min(clocks):.0f}-{max(peaks):.0f} MHz")
        if power:
            limit = power[0].get("limit")
            parts.append(
                f"up to {max(p['max'] for p in power):.0f}"
                + (f"/{limit:.0f}" if limit else "")
                + " W"
            )
        if heat:
            parts.append(f"up to {max(heat):.0f} C")
        throttled = [t for t in seen if t.get("throttle_reasons")]
        reasons = sorted({w for t in throttled for w in t["throttle_reasons"]})
        verdict = (
            f"throttled ({', '.join(reasons)}) in {len(throttled)} of {len(seen)} results"
            if throttled
            else f"not throttled in {len(seen)} results"
        )
        lines.append(f"{device} while measured (NVML): {', '.join([*parts, verdict])}")
    return lines


def charts(results: list[BenchResult], *, width: int = 78, color: bool = True) -> list[str]:
    """plotext charts for the sweeps (GEMM figure vs n, crossover time vs n); empty if none."""
    import plotext as plt

    out = []
    series: dict[str, dict[str, dict[int, float]]] = {
        "GEMM: figure vs n (log n)": defaultdict(dict),
        "Crossover: microseconds per call vs n (log-log)": defaultdict(dict),
    }
    for r in results:
        if r.benchmark == "gemm":
            cold = " cold" if r.cache == "cold" else ""
            numpy = " numpy" if r.library == "numpy" else ""  # never one line with torch's
            line = f"{r.device} {r.dtype}{cold}{numpy} {r.unit}"
            series["GEMM: figure vs n (log n)"][line][r.params["n"]] = r.value
        elif r.benchmark == "crossover":
            key = "Crossover: microseconds per call vs n (log-log)"
            series[key][f"{r.device} {r.variant}"][r.params["n"]] = r.value
    for title, lines in series.items():
        lines = {k: v for k, v in lines.items() if len(v) >= 2}
        if not lines:
            continue
        plt.clear_figure()
        for label, points in lines.items():
            xs = sorted(points)
            plt.plot(xs, [points[x] for x in xs], label=label)
        plt.xscale("log")
        if title.startswith("Crossover"):
            plt.yscale("log")
        plt.title(title)
        plt.plotsize(width, 18)
        text = plt.build()
        out.append(text if color else _ANSI.sub("", text))
    return out
