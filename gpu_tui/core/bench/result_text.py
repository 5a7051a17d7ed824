"""Words and figures for one bench result, built once for the CLI report and the Bench pane.

Table cells (name, size, value, % of peak, spread, notes, delta), what a row measured and how
to read it (:func:`explain`), what a run skipped, and what to do after a worker error. Plain
strings only: ``core.bench.report`` lays them out for ``gpu-tui bench``, and ``ui.bench``
styles them (Rich, colours) for the pane. The measurement rules quoted in comments are stated
in the bench package docstring, ``gpu_tui/core/bench/__init__.py``.
"""

from __future__ import annotations

from typing import Any

from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.store import Delta
from gpu_tui.core.units import (
    format_bytes_trimmed,
    format_percent,
    format_reading_percent,
    format_temperature,
)
from gpu_tui.core.units import format_number as number
from gpu_tui.core.units import format_seconds as seconds

TAGS = (
    ("result check FAILED", "WRONG"),
    ("very noisy", "noisy"),
    ("noisy", "noisy"),
    ("only ", "few"),
    ("foreign CPU load", "load"),
    ("above 100 %", ">peak"),
    ("a small problem", "<10%"),  # a tag is one word, as ">peak" is: "few,<10%"
    ("arrays of", "cache"),
    ("throttled", "throttled"),
    ("GPU lost", "lost"),
)
LEGEND = (
    "notes: load = other processes used the CPU meanwhile; noisy = IQR/median > 10 %; "
    "few = under 5 repeats; <10% / >peak = far from / above the theoretical peak; "
    "WRONG = the output did not match the float64 reference; throttled = NVML saw the GPU "
    "held back (power cap, thermal) while it was measured"
)


def tags(result: BenchResult) -> str:
    found: list[str] = []
    for warning in result.warnings:
        tag = next((t for prefix, t in TAGS if prefix in warning), "!")
        if tag not in found:
            found.append(tag)
    return ",".join(found)


def size_of(result: BenchResult) -> str:
    p = result.params
    for key in ("n", "m", "array_bytes", "bytes"):
        if key in p:
            value = int(p[key])
            if key in ("array_bytes", "bytes"):
                return format_bytes_trimmed(value)
            return f"n={value}"
    if "batch" in p:
        return f"B={p['batch']}" + (f" d={p['d']}" if "d" in p else "")
    return ""


GPU_ADDS = (
    "torch sees no GPU here: the CPU side of every comparison is shown. A GPU would add GEMM per "
    "dtype against its peak, host↔device copies, the crossover point and the Linear speedup."
)


TORCH_CPU_BUILD = (
    "torch here is a CPU build: it sees none of the GPUs, so the CPU side of every comparison "
    "is shown. A CUDA build of torch (or --bench-python PATH to a Python with one) adds the GPU."
)
TORCH_SAW_NO_GPU = (
    "The worker's torch saw none of the GPUs (CUDA_VISIBLE_DEVICES, or a driver it cannot use): "
    "d offers cpu alone now; once torch sees a GPU, restart gpu-tui to run on it."
)


PLAIN_VARIANTS = frozenset({"mm", "forward", "encoder-layer"})


def name_cell(r: BenchResult) -> str:
    """``gemm``, ``gemm numpy``, ``crossover cpu-numpy``: torch is the unnamed default."""
    if r.benchmark == "copies":  # one row per pair: which one (core.comm.copies)
        return f"copy {r.variant} {r.params.get('src')}→{r.params.get('dst')}"
    if r.variant in PLAIN_VARIANTS:
        return r.benchmark
    if r.variant.removesuffix("-numpy") in PLAIN_VARIANTS:
        return f"{r.benchmark} numpy"
    return f"{r.benchmark} {r.variant}"


def value_cell(r: BenchResult) -> str:
    return f"{number(r.value)} {r.unit.replace('us', 'µs')}"


def spread_ratio(r: BenchResult) -> float | None:
    """(p80 − p20) / median: the middle 60 % of repeats, relative to the median; None without
    a median."""
    if r.median_seconds <= 0:
        return None
    return (r.p80_seconds - r.p20_seconds) / r.median_seconds


def spread_cell(r: BenchResult) -> str:
    ratio = spread_ratio(r)
    return "" if ratio is None else format_percent(ratio, 0)


def size_cell(r: BenchResult) -> str:
    return size_of(r).replace("n=", "")


def notes_cell(r: BenchResult) -> str:
    return tags(r)


def peak_cell(r: BenchResult) -> str:
    """% of peak, whole, or empty when no peak is known."""
    return "" if r.percent_of_peak is None else f"{r.percent_of_peak:.0f}"


def delta_cell(delta: Delta | None) -> str:
    return "new" if delta is None else format_percent(delta.fraction, 0, signed=True)


_WHAT = {
    "gemm": "Matrix multiply C = A·B of {n}×{n} {dtype} matrices already on {device}; work "
    "2·n³ FLOP per call, figure = work / median time.",
    "bandwidth": "STREAM {variant} over preallocated arrays of {size} each on {device}; bytes "
    "counted = read + written, GB = 10⁹ bytes.",
    "transfer": "One copy of {size}, {variant} (direction-memory), timed with events; "
    "GB/s = bytes / time, one direction.",
    "launch": "The fixed cost of one tiny operation ({variant}) on {device}: dispatch, launch "
    "and, where named, the wait for it.",
    "reduction": "Adding up {n_numbers} numbers, {variant}; the time of one call.",
    "linear": "Linear({in_features},{out_features}) forward on a batch of {batch} in "
    "{dtype} on {device}, inference mode, warmed up and synchronised: "
    "2·B·in·out = {flop} FLOP per call.",
    "crossover": "{dtype} GEMM n={n}, {variant}: time per call. GPU rows are resident (data "
    "already there) or end-to-end (copies in and out included).",
    "mlp": "Linear(d,4d)→GELU→Linear(4d,d) with d={d}, batch {batch}, {dtype} on {device}: "
    "16·d²·B FLOP per call.",
    "transformer": "One encoder layer (d={d}, {heads} heads, {seq} tokens, batch {batch}) "
    "forward in {dtype} on {device}.",
    "copies": "One copy of {size}, {variant} (p2p: dst.copy_(src) between GPUs with peer "
    "access; staged: through pinned host memory; h2d/d2h: pinned host memory), timed on "
    "{device}'s stream; GB/s = bytes / time, one direction.",
}
_READ = {
    "gemm": "Read % of peak: a tuned BLAS reaches 60–90 % at large n; small n is bound by "
    "overheads and caches, so the curve rises with n.",
    "bandwidth": "This is the speed any memory-bound operation (elementwise, small-batch "
    "inference) can reach on this device.",
    "transfer": "Small copies show latency, large ones the link: pinned memory should approach "
    "the PCIe peak; pageable goes through a staging buffer and is slower.",
    "launch": "Any operation smaller than this costs this much anyway: batch small work.",
    "reduction": "Vectorised CPU code takes microseconds; a GPU round trip costs more than that, "
    "so small jobs belong on the CPU.",
    "linear": "Compare the CPU and GPU rows (press p for the bar pair); a speedup is only fair "
    "with both sides' precision named.",
    "crossover": "The crossover is the smallest n where the GPU time drops under the best CPU "
    "time; end-to-end moves it to larger n.",
    "mlp": "Small batches are bound by launches and weight reads; large batches by compute.",
    "transformer": "Tokens per second is the number a serving system cares about.",
    "copies": "Large copies show the link (NVLink, or PCIe for staged and host copies), 4-byte "
    "ones its latency; p cycles the matrices of every pair.",
}


NUMPY_ROW = (
    "Computed through numpy on the same inputs: numpy's BLAS build often differs from torch's, "
    "and the faster of the two is the CPU's best, the side any speedup is taken against."
)


def explain(r: BenchResult, delta: Delta | None = None) -> list[str]:
    """What was measured, the numbers behind the figure, how to read it, and any warnings."""
    p = dict(r.params)
    flop = 2.0 * p.get("batch", 0) * p.get("in_features", 0) * p.get("out_features", 0)
    fields: dict[str, Any] = {
        "n": p.get("n", "?"),
        "dtype": r.dtype or "",
        "device": r.device,
        "variant": r.variant,
        "size": size_of(r),
        "n_numbers": f"{p.get('n', 0):,}",
        "flop": f"{flop:.2g}",
        **{k: p.get(k, "?") for k in ("in_features", "out_features", "batch", "d", "heads", "seq")},
    }
    lines = [f"{name_cell(r)} on {r.device}: {value_cell(r)}"]
    lines.append(_WHAT.get(r.benchmark, "{variant} on {device}.").format(**fields))
    if r.library == "numpy":
        lines.append(NUMPY_ROW)
    spread = (
        f"median {seconds(r.median_seconds)} per call (p20 {seconds(r.p20_seconds)} – "
        f"p80 {seconds(r.p80_seconds)}), {r.repeats} repeats"
    )
    if r.best_seconds:
        spread += f"; best {seconds(r.best_seconds)} (capability, not the headline)"
    cold_start = r.timing.get("cold_start_seconds")
    if cold_start:  # shown, never folded into the figure ("Warm-up before timing")
        spread += f"; first call (cold start) {seconds(cold_start)}"
    cache = {"cold": "; caches flushed before every call (cold)", "hot": "; hot caches"}
    lines.append(spread + f"; {r.scope}{cache.get(r.cache or '', '')}.")
    lines.append(timing_method_line(r))
    if r.telemetry:
        lines.append(gpu_line(r.telemetry))
    if r.percent_of_peak is not None and r.peak:
        share = format_reading_percent(r.percent_of_peak)
        lines.append(f"{share} of the {number(r.peak)} {r.unit} peak.")
    if r.throughput is not None and r.throughput_unit:
        lines.append(f"Also {number(r.throughput)} {r.throughput_unit}.")
    lines.append(_READ.get(r.benchmark, ""))
    if delta is not None:
        lines.append(
            f"Against the baseline: {value_cell(delta.baseline)} then, "
            f"{format_percent(delta.fraction, signed=True)} "
            f"now ({delta.speedup:.2f}× the speed per call)."
        )
    lines.extend(f"! {w}" for w in r.warnings)
    return [line for line in lines if line]


def timing_method_line(r: BenchResult) -> str:
    """How a GPU row was timed, when it matters: a graph replay, or why it could not be one."""
    if r.launch_inclusive_seconds:
        calls = r.timing.get("calls_per_graph") or "many"
        return (
            f"Timed as a CUDA-graph replay of {calls} calls (the launch overhead left out); "
            f"one at a time, launch included, a call takes {seconds(r.launch_inclusive_seconds)}."
        )
    if r.timing.get("graph_skipped"):
        return (
            "Too short for a fair event timing, but not capturable as a CUDA graph "
            f"({r.timing['graph_skipped']}): the figure includes the launch overhead."
        )
    return ""


def gpu_line(t: dict[str, Any]) -> str:
    """What NVML saw while the result was timed ("GPU telemetry while timed")."""
    parts = []
    if t.get("sm_clock_mhz"):
        clock = t["sm_clock_mhz"]
        parts.append(f"SM clock {clock['min']:.0f} MHz min, {clock['median']:.0f} median")
    if t.get("power_watts"):
        limit = t["power_watts"].get("limit")
        parts.append(
            f"up to {t['power_watts']['max']:.0f}" + (f"/{limit:.0f}" if limit else "") + " W"
        )
    if t.get("temperature_c"):
        parts.append(f"up to {format_temperature(t['temperature_c']['max'])}")
    reasons = t.get("throttle_reasons") or []
    parts.append(f"throttled: {', '.join(reasons)}" if reasons else "not throttled")
    return f"GPU while timed ({t.get('samples', 0)} NVML readings): " + ", ".join(parts) + "."


_ADVICE = {
    "torch_missing": "Install PyTorch for that Python, or restart with --bench-python PATH "
    "pointing at one that has it (e.g. a conda env with CUDA torch); then press r.",
    "crash": "The worker process died; results measured before it are kept. Try a smaller "
    "budget or fewer benchmarks, or run `gpu-tui bench --only NAME` in a shell to see its output.",
    "hang": "The worker stopped answering and was stopped; results before it are kept. Check "
    "`nvidia-smi` for a stuck GPU or driver, then press r to run again.",
    "oom": "The device ran out of memory for this benchmark; the others go on. Free memory "
    "(other jobs) or choose a smaller suite.",
    "bad_device": "Choose another device with d, then press r.",
    "start": "Fix --bench-python and restart gpu-tui; the rest of the app keeps working.",
    "internal": "gpu-tui itself failed while following the run (please report it); results "
    "measured before it are kept. Press r to run again.",
    "load": "That file is left as it is; c compares with another run.",
    "missing": "c compares with another run: ↑↓ or Tab there offers the saved ones.",
    "save": "The run goes on and stays on screen; x exports it to a file elsewhere.",
}


NUMPY_MISSING = "numpy is not installed"
NO_GPU_SEEN = "no GPU visible"
"""How the worker's reason for a GPU row it skipped begins when its torch sees no GPU."""
NUMPY_ADVICE = (
    "pip install numpy into the worker's Python to add numpy's BLAS beside torch's: the CPU "
    "side of a speedup is the faster of the two."
)


def skip_notice(skipped: list[dict[str, Any]]) -> str:
    """What a run could not measure, one line per reason: ``Skipped 5 rows (gemm, linear):
    numpy is not installed …``. A missing GPU is left out: the options already say so."""
    reasons: dict[str, list[str]] = {}
    for skip in skipped:
        reason = str(skip.get("reason") or "")
        if not reason or reason.startswith("no GPU"):
            continue
        reasons.setdefault(reason, []).append(str(skip.get("benchmark") or "?"))
    lines = []
    for reason, benchmarks in reasons.items():
        rows = f"{len(benchmarks)} row" + ("s" if len(benchmarks) > 1 else "")
        names = ", ".join(dict.fromkeys(benchmarks))
        lines.append(f"Skipped {rows} ({names}): {reason}.")
        if reason.startswith(NUMPY_MISSING):
            lines.append(NUMPY_ADVICE)
    return "\n".join(lines)


def advice(kind: str) -> str:
    """What to do next after a worker error of ``kind``."""
    return _ADVICE.get(kind, "The run goes on; the message above says what failed.")
