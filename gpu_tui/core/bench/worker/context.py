"""What a benchmark function gets: timing per device, inputs, and results/skips to report."""

from __future__ import annotations

import time as clock
from collections.abc import Callable
from typing import Any

from .clock_ramp import ClockRamp
from .graphs import GRAPH_BELOW_SECONDS, calls_per_graph, capture, per_call, why_not_captured
from .protocol import Channel
from .sysinfo import LoadProbe, available_memory_bytes, precision_flags
from .timing import (
    Timing,
    cold_event_block,
    cuda_event_block,
    host_block,
    measure,
    timer_overhead_seconds,
)

# The rules named in quotes below are stated in the bench package docstring (bench/__init__.py).
FOREIGN_LOAD_LIMIT = 0.1  # vCPUs busy with other work before a CPU figure is doubtful ("CPU best")
CUDA_BLOCK_SECONDS = 1e-4  # kernels of 100 µs or more: one call per event pair ("Short kernels")
MEMORY_MARGIN = 0.25  # at most this share of free memory for one benchmark ("Memory margin")

DTYPES = {"fp32": "float32", "tf32": "float32", "fp16": "float16", "bf16": "bfloat16"}


class Context:
    """Shared by every benchmark of one run."""

    def __init__(self, torch: Any, channel: Channel, budget: float) -> None:
        self.torch = torch
        self.channel = channel
        self.budget = budget
        self.label = ""
        self._overhead = timer_overhead_seconds()

    # --- devices -----------------------------------------------------------------------
    @staticmethod
    def is_cuda(device: str) -> bool:
        return device.startswith("cuda")

    def sync(self, device: str) -> None:
        if self.is_cuda(device):
            self.torch.cuda.synchronize(device)
        elif device == "mps":
            self.torch.mps.synchronize()

    def free_bytes(self, device: str) -> int | None:
        if self.is_cuda(device):
            return int(self.torch.cuda.mem_get_info(device)[0])
        if device == "cpu":
            return available_memory_bytes()
        return None

    def fits(self, device: str, needed_bytes: float) -> bool:
        free = self.free_bytes(device)
        return free is None or needed_bytes <= free * MEMORY_MARGIN

    def randn(self, shape: tuple[int, ...], device: str, dtype: str = "float32") -> Any:
        """Seeded random input, never zeros: they run faster than real data ("Real inputs,
        checked results")."""
        torch = self.torch
        generator = torch.Generator(device=device if self.is_cuda(device) else "cpu")
        generator.manual_seed(1234)
        base = torch.randn(shape, generator=generator, device=device, dtype=torch.float32)
        return base.to(getattr(torch, dtype)) if dtype != "float32" else base

    # --- timing --------------------------------------------------------------------------
    def time(
        self,
        device: str,
        fn: Callable[[], object],
        *,
        host: bool = False,
        budget: float | None = None,
        min_repeats: int = 3,
        flush: Any = None,
    ) -> tuple[Timing, float | None]:
        """Time ``fn`` on ``device``: CUDA events for device time, else a synchronised host clock
        (``host=True`` forces the host clock, for end-to-end rows); ``flush`` (CUDA only) is
        zeroed before every call for "cold" rows. Returns the timing and the foreign CPU load
        seen meanwhile."""
        budget = self.budget if budget is None else budget
        if self.is_cuda(device) and not host:
            block = (
                cuda_event_block(self.torch, fn)
                if flush is None
                else cold_event_block(self.torch, fn, flush)
            )
            target, warmup = CUDA_BLOCK_SECONDS, max(0.025, min(0.2, budget / 2))
            settle = min(1.0, budget)  # warm until the clock ramps, capped (warm-up rule)
            ramp = ClockRamp.for_device(self.torch, device)
        else:
            sync = None if device == "cpu" else (lambda: self.sync(device))
            block = host_block(fn, sync)
            # torch.utils.benchmark's rule: timer overhead ≤ 1e-4 of a block, block ≥ budget/1000
            target, warmup = max(self._overhead * 1e4, budget / 1000), 0.025
            settle = 0.0  # a CPU has no idle-clock ramp worth the quick suite's time
            ramp = None
        probe = LoadProbe()
        probe.start()
        timing = measure(
            block,
            budget=budget,
            target_block_seconds=target,
            check=self.channel.check,
            heartbeat=self._heartbeat,
            warmup_min_seconds=warmup,
            min_repeats=min_repeats,
            settle_max_seconds=settle,
            ramped=None if ramp is None else ramp.ramped,
        )
        if ramp is not None:
            timing.extra.update(ramp.record())
        if self.is_cuda(device) and not host:
            timing.method = "cuda-events" if flush is None else "cuda-events-cold"
            if flush is None and timing.median < GRAPH_BELOW_SECONDS:
                timing = self._replayed(device, fn, timing, budget)
        return timing, probe.foreign_vcpus()

    def _replayed(
        self, device: str, fn: Callable[[], object], eager: Timing, budget: float
    ) -> Timing:
        """A short kernel timed again as a CUDA-graph replay, launch overhead out ("Short kernels
        as a graph replay")."""
        calls = calls_per_graph(eager.median)
        try:
            graph = capture(self.torch, fn, device, calls)
        except Exception as error:  # not capturable: the eager figure, launch included, stands
            eager.graph_skipped = why_not_captured(error)
            return eager
        replay = measure(
            cuda_event_block(self.torch, graph.replay),
            budget=budget / 2,
            target_block_seconds=CUDA_BLOCK_SECONDS,
            check=self.channel.check,
            heartbeat=self._heartbeat,
        )
        return per_call(replay, calls, eager)

    def _heartbeat(self, fraction: float) -> None:
        if self.channel.heartbeat_due():
            self.channel.send("heartbeat", label=self.label, fraction=fraction)

    # --- reporting -----------------------------------------------------------------------
    def result(
        self,
        benchmark: str,
        variant: str,
        device: str,
        dtype: str | None,
        params: dict[str, Any],
        measured: tuple[Timing, float | None],
        *,
        checks: dict[str, Any] | None = None,
        warnings: list[str] | None = None,
        scope: str = "resident",
        cache: str = "hot",
    ) -> None:
        timing, foreign = measured
        notes = list(timing.warnings) + list(warnings or [])
        if (
            foreign is not None
            and foreign > FOREIGN_LOAD_LIMIT
            and (device == "cpu" or scope != "resident")
        ):
            notes.append(
                f"foreign CPU load {foreign:.2f} vCPU during the run: CPU figures are doubtful"
            )
        if checks and checks.get("ok") is False:
            error = checks.get("relative_error", checks.get("abs_error"))
            notes.append(
                f"result check FAILED: error {error} > tolerance {checks.get('tolerance')}"
            )
        self.channel.send(
            "result",
            benchmark=benchmark,
            variant=variant,
            device=device,
            dtype=dtype,
            params=params,
            timing=timing.as_dict(),
            foreign_cpu_vcpus=foreign,
            checks=checks,
            warnings=notes,
            scope=scope,
            cache=cache,
            # the caller matches NVML readings to [end - timed_wall_seconds, end] ("GPU telemetry")
            ended_seconds_ago=clock.monotonic() - timing.timed_end,
            precision=precision_flags(self.torch) if self.is_cuda(device) else None,
        )

    def skip(self, benchmark: str, device: str, reason: str, **params: Any) -> None:
        self.channel.send("skip", benchmark=benchmark, device=device, reason=reason, params=params)

    def progress(self, label: str) -> None:
        self.label = label
        self.channel.send("heartbeat", label=label, fraction=0.0)


def relative_error(torch: Any, got: Any, reference: Any) -> float:
    """‖got − ref‖ / ‖ref‖ in float64 (Frobenius): one number per check, robust to size."""
    got64 = got.detach().to("cpu", torch.float64)
    ref64 = reference.detach().to("cpu", torch.float64)
    norm = float(torch.linalg.vector_norm(ref64))
    return float(torch.linalg.vector_norm(got64 - ref64)) / (norm or 1.0)


def check(torch: Any, got: Any, reference: Any, tolerance: float) -> dict[str, Any]:
    error = relative_error(torch, got, reference)
    return {"relative_error": error, "tolerance": tolerance, "ok": error <= tolerance}
