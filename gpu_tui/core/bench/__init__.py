"""Benchmarks: the suite catalog, the worker process runner, results, peaks and saved runs.

The TUI and the CLI use :class:`BenchRunner` with a plan from :func:`build_plan`; torch is only
ever imported inside the worker process (``worker/``).
"""

from __future__ import annotations

from gpu_tui.core.bench.runner import BenchRunner
from gpu_tui.core.bench.suites import build_plan, estimate_seconds

__all__ = ["BenchRunner", "build_plan", "estimate_seconds"]
