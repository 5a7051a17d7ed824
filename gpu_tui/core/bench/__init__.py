"""Benchmarks: the suite catalog, the worker process runner, results, peaks and saved runs.

The TUI and the CLI use :class:`BenchRunner` with a plan from :func:`build_plan`; torch is only
ever imported inside the worker process (``worker/``).

Measurement rules. The code names these rules where it follows them:

- **Warm-up before timing** — the first call is timed on its own as the "cold start" and
  shown beside the result, never folded into it; then the operation is warmed up (at least
  2 calls and 25 ms, as torch.utils.benchmark and triton's ``do_bench`` do). On a GPU the
  warm-up goes on, for at most 1 s, until call times settle and the SM clock has stopped
  rising from idle (``worker/clock_ramp.py``).
- **Median is the headline** — a result's figure is the median time per call over the
  repeats, with p20–p80 as its spread; the fastest repeat is kept as a "capability" figure
  and never shown as the headline.
- **Short kernels as a graph replay** — a GPU call under 20 µs timed back to back measures
  the launch rate, not the GPU, so it is timed again as a CUDA-graph replay (launch overhead
  out) and its eager, launch-inclusive time is kept beside it (``worker/graphs.py``). Calls
  of 100 µs or more are timed one call per CUDA-event pair.
- **Hot or cold caches, said which** — every row says whether its inputs were left in
  cache by the previous call (``hot``) or flushed before each call (``cold``). A flush
  zeroes max(256 MB, 2 × the last-level cache) outside the timed events; bandwidth arrays
  are at least 4 × the last-level cache, so they measure memory, not cache.
- **Real inputs, checked results** — inputs are seeded random numbers, never zeros (zeros
  run faster than real data), and each result is checked against a float64 reference: its
  relative (Frobenius) error must stay under the tolerance for its dtype, or the row says
  the check failed.
- **fp32 precision set and recorded** — whether a GPU's "fp32" matmul runs as IEEE fp32 or
  TF32 is set explicitly for each row (and restored after), and the switches are recorded
  with every result: TF32 is a different row, never a silent fp32.
- **GPU telemetry while timed** — NVML's SM clock, power, temperature and throttle reasons
  are sampled during the run and matched to each result's timed stretch; a row timed
  while throttled says so, and the run keeps the before/after readings.
- **CPU best** — CPU rows run through both torch and numpy, whose BLAS builds often differ;
  the CPU side of any CPU-vs-GPU comparison is the faster of the two, each BLAS named. A
  CPU figure taken while other processes kept more than 0.1 vCPU busy is marked doubtful.
- **Host↔device copies, pinned and pageable** — transfers sweep sizes in each direction
  from pinned and from pageable memory, the pinned buffer allocated once (page-locking
  per call would be timed otherwise); the GPU's PCIe link (current and max) is recorded
  to read them against.
- **One environment record per run** — software versions, CPU threads, torch's and
  numpy's BLAS, the precision switches, each device (with what NVML adds: PCIe link,
  power limit, ECC, MIG, driver) and the telemetry are written once per run, beside the
  results.
- **A speedup names both sides** — a CPU-vs-GPU speedup states each side's library,
  dtype and precision mode (fp32 as IEEE on both sides), with inputs resident and both
  sides warmed up and synchronised.
- **Memory margin** — one benchmark's buffers use at most 25 % of the device's free
  memory; sizes that do not fit are skipped with that reason, not run into an
  out-of-memory error.

Rules that concern one module are stated in its docstring: **Synchronised timing**
(``worker/timing.py``), **STREAM kernels into preallocated arrays** (``worker/memory.py``),
**Work counted by formula** (``formulas.py``) and **% of peak, checked** (``peak.py``).
"""

from __future__ import annotations

from gpu_tui.core.bench.runner import BenchRunner
from gpu_tui.core.bench.suites import build_plan, estimate_seconds

__all__ = ["BenchRunner", "build_plan", "estimate_seconds"]
