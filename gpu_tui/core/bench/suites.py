"""The benchmark catalog and the quick/full suites: what runs, at which sizes, for how long."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from gpu_tui.core.errors import UsageError

SUITES = ("quick", "full")
DEFAULT_BUDGET_SECONDS = {"quick": 0.25, "full": 1.0}
"""Time budget per measurement point (warm-up not included)."""

KIB, MIB = 1 << 10, 1 << 20


@dataclass(frozen=True)
class Benchmark:
    name: str
    title: str
    explains: str


CATALOG = (
    Benchmark(
        "gemm", "GEMM per dtype", "matrix multiply 2·n³ FLOP over a size sweep; % of dense peak"
    ),
    Benchmark(
        "bandwidth", "Memory bandwidth", "STREAM copy/scale/add/triad into preallocated arrays"
    ),
    Benchmark(
        "transfer", "Host↔device copies", "pinned vs pageable, both directions, 4 KiB to 1 GiB"
    ),
    Benchmark(
        "launch", "Launch latency", "the fixed cost of one tiny operation (dispatch, sync, graph)"
    ),
    Benchmark(
        "reduction", "Add up 10,000 numbers", "Python loop vs vectorised CPU vs GPU: the CPU wins"
    ),
    Benchmark(
        "linear", "Linear(10000,10000), batch 1000", "the classic CPU-vs-GPU snippet, done right"
    ),
    Benchmark(
        "crossover",
        "CPU/GPU crossover",
        "GEMM time vs size on both sides: where the GPU starts to win",
    ),
    Benchmark("mlp", "MLP inference", "Linear(d,4d)→GELU→Linear(4d,d) at several batch sizes"),
    Benchmark(
        "transformer", "Transformer layer", "one encoder layer forward pass, tokens per second"
    ),
)
NAMES = tuple(b.name for b in CATALOG)

_P2 = [2**i for i in range(4, 15)]  # 16 … 16384
_QUICK: dict[str, dict[str, Any]] = {
    "gemm": {
        "cpu": {
            "dtypes": {"fp32": [256, 512, 1024, 2048], "bf16": [1024], "fp16": [256]},
            "numpy": True,  # the fp32 rows again through numpy: "CPU best" (rule R11)
        },
        "gpu": {
            "dtypes": {
                "fp32": [1024, 4096, 8192],
                "tf32": [8192],
                "fp16": [8192],
                "bf16": [1024, 4096, 8192],
                "fp8": [8192],
            },
            # the same GEMM with L2 flushed before each call, beside its hot row (rule R5)
            "cold": {"bf16": [4096]},
        },
    },
    "bandwidth": {
        "cpu": {"kernels": ["copy", "triad"]},
        "gpu": {"kernels": ["copy", "triad"], "array_bytes": 512 * MIB},
    },
    "transfer": {"cpu": None, "gpu": {"sizes": [4 * KIB, 1 * MIB, 64 * MIB, 256 * MIB]}},
    "launch": {"cpu": {}, "gpu": {"graph_kernels": 100}},
    "reduction": {"cpu": {"n": 10_000}, "gpu": {"n": 10_000}},
    "linear": {
        "cpu": {"batch": 1000, "features": 10_000, "dtypes": ["fp32"], "numpy": True},
        "gpu": {"batch": 1000, "features": 10_000, "dtypes": ["fp32", "tf32", "bf16"]},
    },
    "crossover": {"cpu": {"sizes": _P2[:6]}, "gpu": {"sizes": _P2[:6]}},
    "mlp": {
        "cpu": {"d": 1024, "batches": [1, 64, 512], "dtypes": ["fp32"]},
        "gpu": {"d": 4096, "batches": [1, 64, 4096], "dtypes": ["fp32", "bf16"]},
    },
    "transformer": {
        "cpu": {"d": 512, "heads": 8, "seq": 256, "batches": [4], "dtypes": ["fp32"]},
        "gpu": {"d": 1024, "heads": 16, "seq": 512, "batches": [8], "dtypes": ["bf16"]},
    },
}
_FULL: dict[str, dict[str, Any]] = copy.deepcopy(_QUICK)
_FULL["gemm"]["cpu"]["dtypes"] = {"fp32": _P2[4:9], "bf16": _P2[4:9], "fp16": [256, 512]}
_FULL["gemm"]["gpu"]["dtypes"] = {d: _P2[4:] for d in ("fp32", "tf32", "fp16", "bf16", "fp8")}
_FULL["bandwidth"]["cpu"] = {"kernels": ["copy", "scale", "add", "triad"], "array_bytes": 256 * MIB}
_FULL["bandwidth"]["gpu"]["kernels"] = ["copy", "scale", "add", "triad"]
_FULL["transfer"]["gpu"]["sizes"] = [4 * KIB * 4**i for i in range(10)]  # 4 KiB … 1 GiB
_FULL["reduction"]["cpu"]["with_conversion"] = True
_FULL["crossover"]["cpu"]["sizes"] = _P2[:8]
_FULL["crossover"]["gpu"]["sizes"] = _P2[:10]
_FULL["mlp"]["cpu"]["batches"] = [1, 8, 64, 512]
_FULL["mlp"]["gpu"]["batches"] = [1, 8, 64, 512, 4096]
_FULL["transformer"]["gpu"] = {
    "d": 4096,
    "heads": 32,
    "seq": 2048,
    "batches": [8],
    "dtypes": ["fp32", "bf16"],
}
SUITE_PARAMS = {"quick": _QUICK, "full": _FULL}

_DEVICE = re.compile(r"all|cpu|gpu|cuda(:\d+)?|mps")


def check_devices(devices: list[str]) -> list[str]:
    for device in devices:
        if not _DEVICE.fullmatch(device):
            raise UsageError(f"unknown device {device!r}: use cpu, cuda, cuda:N, mps, gpu or all")
    return devices


def check_names(names: list[str]) -> list[str]:
    for name in names:
        if name not in NAMES:
            raise UsageError(f"no benchmark named {name!r} (choose from: {', '.join(NAMES)})")
    return names


def build_plan(
    suite: str = "quick",
    *,
    only: list[str] | None = None,
    devices: list[str] | None = None,
    budget_seconds: float | None = None,
    overrides: dict[str, dict[str, Any]] | None = None,
    threads: int | None = None,
    nice: int = 0,
) -> dict[str, Any]:
    """The JSON plan the worker runs. ``overrides`` replace params per benchmark and device kind,
    e.g. ``{"reduction": {"cpu": {"n": 1000}}}`` (the kitchen's "run it for real")."""
    if suite not in SUITES:
        raise UsageError(f"no suite named {suite!r} (choose from: {', '.join(SUITES)})")
    budget = DEFAULT_BUDGET_SECONDS[suite] if budget_seconds is None else budget_seconds
    if not 0.001 <= budget <= 600:
        raise UsageError(f"--budget must be between 0.001 and 600 seconds, got {budget:g}")
    chosen = check_names(list(only)) if only else list(NAMES)
    specs = []
    for name in NAMES:
        if name not in chosen:
            continue
        params = copy.deepcopy(SUITE_PARAMS[suite][name])
        for kind, extra in (overrides or {}).get(name, {}).items():
            params[kind] = None if extra is None else {**(params.get(kind) or {}), **extra}
        specs.append({"name": name, **params})
    return {
        "suite": suite,
        "budget_seconds": budget,
        "devices": check_devices(list(devices or ["all"])),
        "benchmarks": specs,
        "threads": threads,
        "nice": nice,
    }


def measurement_points(spec: dict[str, Any], kind: str) -> int:
    """How many timed measurements one benchmark makes on one device kind (an upper bound)."""
    params = spec.get(kind)
    if params is None:
        return 0
    name = spec["name"]
    if name == "gemm":
        cold = params.get("cold") or {}
        numpy = len(params["dtypes"].get("fp32", [])) if params.get("numpy") else 0
        return numpy + sum(len(sizes) for sizes in [*params["dtypes"].values(), *cold.values()])
    if name == "bandwidth":
        return len(params["kernels"])
    if name == "transfer":
        return 4 * len(params["sizes"])
    if name == "launch":
        return 1 if kind == "cpu" else 4
    if name == "reduction":
        return 5 if kind == "cpu" else 3
    if name == "crossover":
        return 2 * len(params["sizes"])
    if name in ("mlp", "transformer"):
        return len(params["batches"]) * len(params["dtypes"])
    return len(params.get("dtypes", [1])) + (1 if params.get("numpy") else 0)


def estimate_seconds(plan: dict[str, Any], *, gpus: int = 0) -> float:
    """Rough wall time: import, then per point budget + warm-up and set-up, plus the known long
    CPU call (Linear(10000, 10000) takes ~1–3 s per call on a small CPU: at least 4 calls)."""
    budget = float(plan["budget_seconds"])
    total = 4.0  # interpreter start + import torch
    for spec in plan["benchmarks"]:
        total += measurement_points(spec, "cpu") * (budget * 1.2 + 0.05)
        total += gpus * measurement_points(spec, "gpu") * (budget * 1.2 + 0.2)
        if spec["name"] == "linear" and spec.get("cpu"):
            flop = 2 * spec["cpu"]["batch"] * spec["cpu"]["features"] ** 2
            calls = 8 if spec["cpu"].get("numpy") else 4  # torch, then numpy (R11)
            total += calls * flop / 100e9  # ~100 GFLOP/s: a small server CPU
    return total
