"""Run it for real: which benchmark each kitchen scenario maps to, and what the analogy covers."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from gpu_tui.core.bench.suites import build_plan
from gpu_tui.core.comm.plan import Launch, build_comm_plan
from gpu_tui.core.kitchen.figures import NULL_KERNEL_LAUNCH_SECONDS
from gpu_tui.core.kitchen.params import KitchenParams

BUDGET_SECONDS = 0.1
"""Per measurement point: the whole check takes ~5 s (2 s of it loading PyTorch) on 2 cores."""
MAX_NUMBERS = 1_000_000
"""The worker builds a Python list of N floats and loops over it: past 10⁶ that takes seconds."""
GEMM_SIZES = (16, 64, 256, 1024)
"""Small enough for the CPU to win, large enough for a GPU to; n = 1024 is ~30 ms on 2 cores."""
NICE = 10  # the measurement must not make the animation (or the user's shell) stutter
WARMUP_SHARE = 0.1  # of the budget, per GEMM size in the warm-up pass (crossover's own knob)
WARMUP_ARRAY_BYTES = 16 << 20  # STREAM's warm-up arrays: enough to start every thread
LAUNCH_US = NULL_KERNEL_LAUNCH_SECONDS * 10**6  # a bare kernel launch, in µs, for the words
HALLWAY_SIZES = (8, 64 << 10, 1 << 20, 16 << 20)
"""All-reduce sizes for the hallway: 8 B is all latency (α), 16 MiB mostly rate (β)."""


@dataclass(frozen=True)
class RealCheck:
    """The measurement that stands beside a scenario's model, and how far the analogy goes."""

    scenario: str
    title: str
    benchmarks: tuple[str, ...]
    overrides: dict[str, dict[str, Any]]
    analogy: str
    """One sentence: where the kitchen matches the hardware and where it stops matching."""
    without_gpu: str
    """What a GPU would add to the panel, shown when the worker saw none."""
    suite: str = "quick"
    """``comm`` for the hallways: an all-reduce between ranks that torchrun starts."""


def numbers_to_add(params: KitchenParams) -> int:
    """The onions become numbers to add up, one per onion, capped so the loop stays quick."""
    return max(1, min(params.phases[0].tasks, MAX_NUMBERS))


def _onions(params: KitchenParams) -> RealCheck:
    n = numbers_to_add(params)
    capped = " (capped)" if n < params.phases[0].tasks else ""
    return RealCheck(
        scenario="onions",
        title=f"Add up {n:,} numbers{capped}: one at a time vs all at once",
        benchmarks=("reduction",),
        overrides={"reduction": {"cpu": {"n": n}, "gpu": {"n": n}}},
        analogy=(
            "Holds: adding all at once beats one at a time by orders of magnitude; breaks: "
            "this CPU's brigade is a few SIMD cores, not thousands of cooks, and for a small "
            f"sum a GPU's briefing (a ~{LAUNCH_US} µs launch, then the wait for the answer) "
            "outweighs the whole job."
        ),
        without_gpu=(
            "torch sees no GPU here: on one, the GPU rows time the sum with the data on it (a "
            f"launch of ~{LAUNCH_US} µs and a sync at least) and end to end (+ the PCIe copy); "
            "for 10,000 numbers both lose to this CPU."
        ),
    )


def _complex(_: KitchenParams) -> RealCheck:
    sizes = list(GEMM_SIZES)
    return RealCheck(
        scenario="complex-recipe",
        title="One step at a time: a tiny op, and GEMM n = 16 to 1,024",
        benchmarks=("launch", "crossover"),
        overrides={"crossover": {"cpu": {"sizes": sizes}, "gpu": {"sizes": sizes}}},
        analogy=(
            "Holds: a small dependent step is done on the CPU before a GPU is even briefed "
            f"(a ~{LAUNCH_US} µs launch, then a sync), so step-by-step work stays on the CPU; "
            "breaks: a GEMM is itself parallel, so at large n the brigade wins even one step at "
            "a time."
        ),
        without_gpu=(
            "torch sees no GPU here: on one, the CPU wins the small sizes and the GPU the large "
            "ones."
        ),
    )


def _pantry(_: KitchenParams) -> RealCheck:
    return RealCheck(
        scenario="pantry-bound",
        title="Memory bandwidth (STREAM): the pantry's delivery rate",
        benchmarks=("bandwidth",),
        overrides={},
        analogy=(
            "Holds: a vector add moves 12 bytes per FLOP, so it runs at memory speed and a GPU's "
            "edge is its bandwidth (H100 ~7× an EPYC 9654), not its lane count; breaks: caches "
            "serve small arrays far faster than this streaming rate."
        ),
        without_gpu=(
            "torch sees no GPU here: a GPU column would give its rate (H100 HBM3: 3.35 TB/s peak)."
        ),
    )


def _hallway(scenario: str) -> RealCheck:
    return RealCheck(
        scenario=scenario,
        title="All-reduce between 2 processes (Gloo on this CPU): the hallway, measured",
        benchmarks=("comm",),
        overrides={},
        analogy=(
            "Holds: the kitchens agree on the stock pot with an all-reduce, and each one costs "
            "a latency α plus size ÷ β, so small messages are latency-bound; breaks: here the "
            "two kitchens are processes on one machine talking over loopback, not GPUs over "
            "NVLink or InfiniBand."
        ),
        without_gpu=(
            "torch sees no GPU here: the hallway is Gloo between two CPU processes; with two or "
            "more GPUs, gpu-tui bench --suite comm --device cuda times the same all-reduce with "
            "NCCL over NVLink or PCIe."
        ),
        suite="comm",
    )


def real_check(scenario: str, params: KitchenParams) -> RealCheck:
    """The measurement for ``scenario`` with the pane's current ``params``."""
    if scenario == "onions":
        return _onions(params)
    if scenario == "complex-recipe":
        return _complex(params)
    if scenario == "pantry-bound":
        return _pantry(params)
    return _hallway(scenario)


def warmup_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """A light copy of ``spec`` for the untimed warm-up pass: the same code on the same
    devices (thread pools started, kernels loaded, a GPU's clock ramped up from idle, pages
    touched), cut down where a full second pass would double the wait."""
    warm = copy.deepcopy(spec)
    for kind in ("cpu", "gpu"):
        params = warm.get(kind)
        if params is None:
            continue
        if spec["name"] == "crossover":
            params["budget_share"] = WARMUP_SHARE
        elif spec["name"] == "bandwidth":
            params.update(kernels=["copy"], array_bytes=WARMUP_ARRAY_BYTES)
        elif spec["name"] == "transfer":
            params["sizes"] = sorted(params["sizes"])[:2]
    return warm


def real_plan(
    check: RealCheck, *, budget: float = BUDGET_SECONDS, devices: list[str] | None = None
) -> dict[str, Any]:
    """The bench worker's plan: the quick suite's settings, only these benchmarks, niced, each
    run twice: a warm-up pass first, whose results the panel drops, then the timed pass.

    The worker warms up before each measurement, but briefly (25 ms on a CPU, at most 0.1 s
    on a GPU at this budget): a first press could still time what a second press finds warm,
    such as thread pools, lazily loaded kernels, caches and a GPU clock coming up from idle.
    A whole pass of the same work first leaves the timed pass as warm as a second press.
    """
    if check.suite == "comm":  # torchrun's ranks warm up before every size: no second pass
        return build_comm_plan(
            Launch(nproc=2),
            device="cpu",
            operations=["all_reduce"],
            sizes=list(HALLWAY_SIZES),
            budget_seconds=budget,
        )
    plan = build_plan(
        "quick",
        only=list(check.benchmarks),
        devices=devices or ["all"],
        budget_seconds=budget,
        overrides=check.overrides,
        nice=NICE,
    )
    plan["benchmarks"] = [*map(warmup_spec, plan["benchmarks"]), *plan["benchmarks"]]
    return plan


def in_warmup(index: int, total: int, check: RealCheck | None = None) -> bool:
    """Whether the worker's task ``index`` of ``total`` is part of the warm-up pass: the plan
    lists every benchmark twice on the same devices, so the warm-up is the first half (a comm
    check has no such pass)."""
    if check is not None and check.suite == "comm":
        return False
    return index < total // 2
