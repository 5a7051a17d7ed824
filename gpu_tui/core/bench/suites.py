"""The benchmark catalog and the quick/full suites: what runs, at which sizes, for how long."""

from __future__ import annotations

import copy
import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from gpu_tui.core.devices.model import CpuInfo, MemoryInfo
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
            "numpy": True,  # the fp32 rows again through numpy: "CPU best" (bench/__init__.py)
        },
        "gpu": {
            "dtypes": {
                "fp32": [1024, 4096, 8192],
                "tf32": [8192],
                "fp16": [8192],
                "bf16": [1024, 4096, 8192],
                "fp8": [8192],
            },
            # the same GEMM with L2 flushed before each call, beside its hot row ("Hot or cold
            # caches, said which" in the bench package docstring)
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
        raise UsageError(f"--budget must be between 0.001 and 600 seconds, got '{budget:g}'")
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
    if name == "reduction":  # python loop, sum(), torch, numpy (and the list-to-tensor row)
        return 4 + bool(params.get("with_conversion")) if kind == "cpu" else 3
    if name == "crossover":
        return 2 * len(params["sizes"])
    if name in ("mlp", "transformer"):
        return len(params["batches"]) * len(params["dtypes"])
    return len(params.get("dtypes", [1])) + (1 if params.get("numpy") else 0)


@dataclass(frozen=True)
class HostSpeed:
    """What an estimate knows of the machine (the Specs inventory, or modest defaults)."""

    cpu_gflops: float = 100.0
    """The CPU's theoretical fp32 peak; a tuned GEMM reaches ~85 % of it."""
    cores: int = 4
    cache_bytes: int = 32 * MIB
    """The largest CPU cache: the CPU bandwidth arrays are 4× this ("Hot or cold caches, said
    which" in the bench package docstring)."""
    free_bytes: int = 16 << 30
    """Memory available now: the worker halves those arrays until three fit in a quarter."""

    @classmethod
    def of(cls, cpu: CpuInfo, memory: MemoryInfo) -> HostSpeed:
        """From the inventory; an unknown figure keeps its default."""
        default = cls()
        gflops, cores = cpu.peak.gflops, cpu.physical_cores
        return cls(
            cpu_gflops=gflops if isinstance(gflops, (int, float)) and gflops > 0 else 100.0,
            cores=cores if isinstance(cores, int) and cores > 0 else cpu.logical_cores or 4,
            cache_bytes=max(cpu.cache_bytes.values(), default=default.cache_bytes),
            free_bytes=memory.available_bytes or default.free_bytes,
        )


GEMM_EFFICIENCY = 0.85
"""Share of the fp32 peak a tuned CPU GEMM reaches (MKL: 90–99 % at n ≥ 512 on the test VM)."""
FILL_CORE_SECONDS_PER_GIB = 6.6
"""Seconds × cores to allocate and fill 1 GiB with random numbers (first touch + RNG): 3.3 s per
GiB on the 2-vCPU test VM; it scales with cores up to ``FILL_CORES``."""
FILL_CORES = 8
CPU_GBPS_PER_CORE = 10.0  # STREAM on a few cores: the 2-vCPU VM copies at 26 GB/s
STARTUP_SECONDS = 1.0  # the worker's interpreter and ``import torch`` (1.0 s on the VM)
CUDA_STARTUP_SECONDS = 3.0  # a CUDA context per run, and cuBLAS's first handle
NUMPY_IDLE_SECONDS = 0.2  # worker/cpu_best.py: OPENBLAS_IDLE_SECONDS after each numpy row
POINT_SECONDS = 0.01  # per result: the check against float64, the message, the save
WARMUP_SECONDS = 0.025  # worker/timing.py: WARMUP_MIN_SECONDS
BUDGET_SHARE = {"launch": 0.5, "reduction": 0.5, "crossover": 0.5, "mlp": 0.5, "transformer": 0.5}
"""Each benchmark's budget per point as a share of the plan's (see the worker's ``ctx.time``)."""


def point_seconds(call: float, budget: float, *, setup: float = 0.0) -> float:
    """One timed measurement (worker/timing.py ``measure``): the cold call and warm-up (2 calls,
    25 ms at least), then blocks until the budget is spent and 3 repeats are in; short calls
    often stop at 60–90 % of it (a tight spread ends early)."""
    warm = max(2 * call, WARMUP_SECONDS + call)
    timed = max(3 * call, 0.8 * budget + call)
    return setup + warm + timed + POINT_SECONDS


def _fill(host: HostSpeed, nbytes: float) -> float:
    """Seconds to allocate and fill ``nbytes`` with random numbers on the CPU."""
    return nbytes / (1 << 30) * FILL_CORE_SECONDS_PER_GIB / max(1, min(host.cores, FILL_CORES))


def cpu_array_bytes(params: dict[str, Any], host: HostSpeed) -> int:
    """The size of each CPU bandwidth array, as worker/memory.py chooses it."""
    size = int(params.get("array_bytes") or max(4 * host.cache_bytes, 64 * MIB))
    while size > MIB and 3 * size > host.free_bytes / 4:
        size //= 2
    return size


def cpu_points(spec: dict[str, Any], budget: float, host: HostSpeed) -> list[float]:
    """Expected seconds of each measurement of one benchmark on the CPU, in the worker's order
    (what it sets up first is counted in the measurement that waits for it).

    Calibrated on the 2-vCPU test VM (quick suite, budget 0.25 s: 40–51 s measured): each
    point is a :func:`point_seconds` with a call time from the sizes (FLOP over ~85 % of the
    peak, bytes over the memory bandwidth) plus what the worker sets up first.
    """
    params = spec.get("cpu")
    if params is None:
        return []
    name = spec["name"]
    share = budget * BUDGET_SHARE.get(name, 1.0)
    flops = host.cpu_gflops * 1e9 * GEMM_EFFICIENCY
    gbps = max(10.0, min(200.0, host.cores * CPU_GBPS_PER_CORE)) * 1e9

    def gemm(n: int, *, numpy: bool = False) -> float:
        setup = 0.0 if numpy else _fill(host, 2 * 4 * n * n)
        extra = NUMPY_IDLE_SECONDS if numpy else 0.0
        return point_seconds(2 * n**3 / flops, share, setup=setup) + extra

    if name == "gemm":
        numpy = bool(params.get("numpy"))
        return [
            seconds
            for dtype, sizes in params["dtypes"].items()
            for n in sizes
            for seconds in (
                [gemm(n), gemm(n, numpy=True)] if numpy and dtype == "fp32" else [gemm(n)]
            )
        ]
    if name == "bandwidth":
        # Free memory moves while the app and the worker start: near the worker's limit it may
        # halve the arrays or not, so the estimate takes the mean of ±5 % free memory.
        sizes = [
            cpu_array_bytes(params, dataclasses.replace(host, free_bytes=int(host.free_bytes * f)))
            for f in (0.95, 1.05)
        ]
        moved = {"copy": 2, "scale": 2, "add": 3, "triad": 3}
        points = [
            sum(point_seconds(moved.get(k, 3) * size / gbps, share) for size in sizes) / 2
            for k in params["kernels"]
        ]
        points[0] += sum(_fill(host, 3 * size) for size in sizes) / 2  # before the first kernel
        return points
    if name == "linear":
        batch, width = params["batch"], params["features"]
        call = 2 * batch * width * width / flops
        weights = 4 * width * width
        # torch: Linear's init and the float64 reference; numpy: the transposed weight copy
        # and its slower first call (measured: 0.75 s and 2.3 s for 10000 × 10000 on the VM)
        points = []
        for dtype in params["dtypes"]:
            points.append(point_seconds(call, share, setup=_fill(host, 0.6 * weights)))
            if params.get("numpy") and dtype == "fp32":
                numpy_row = point_seconds(call, share, setup=_fill(host, 1.8 * weights))
                points.append(numpy_row + NUMPY_IDLE_SECONDS)
        return points
    if name == "crossover":
        return [seconds for n in params["sizes"] for seconds in (gemm(n), gemm(n, numpy=True))]
    if name == "mlp":
        d = params["d"]
        return [
            point_seconds(16 * d * d * batch / flops, share)
            for _ in params["dtypes"]
            for batch in params["batches"]
        ]
    if name == "transformer":
        d, seq = params["d"], params["seq"]
        per_token = 24 * d * d + 4 * seq * d
        layer = 0.3  # building the layer and its first attention call
        return [
            point_seconds(per_token * seq * batch / flops, share, setup=layer if at == 0 else 0.0)
            for _ in params["dtypes"]
            for at, batch in enumerate(params["batches"])
        ]
    # launch, reduction: tiny calls, each point about its budget (and numpy's pause)
    points = [point_seconds(0.0, share)] * measurement_points(spec, "cpu")
    if name == "reduction" and len(points) >= 4:
        points[3] += NUMPY_IDLE_SECONDS
    return points


def gpu_points(spec: dict[str, Any], budget: float) -> list[float]:
    """Expected seconds of each measurement of one benchmark on one GPU: the warm-up until the
    clock has ramped (at most the budget), the timed budget, and a graph replay for short
    kernels (not calibrated on a GPU yet: the ETA corrects itself with the measured pace)."""
    share = budget * (0.25 if spec["name"] == "transfer" else BUDGET_SHARE.get(spec["name"], 1.0))
    return [1.5 * share + 0.2] * measurement_points(spec, "gpu")


def task_points(
    spec: dict[str, Any], kind: str, budget: float, host: HostSpeed | None = None
) -> list[float]:
    """Expected seconds of each measurement of one benchmark on one device kind."""
    if spec.get(kind) is None:
        return []
    if kind == "cpu":
        return cpu_points(spec, budget, host or HostSpeed())
    return gpu_points(spec, budget)


def task_seconds(
    spec: dict[str, Any], kind: str, budget: float, host: HostSpeed | None = None
) -> float:
    """Expected seconds of one benchmark on one device kind (``cpu`` or ``gpu``)."""
    return sum(task_points(spec, kind, budget, host))


def startup_seconds(gpus: int = 0) -> float:
    """From starting the worker to its first benchmark."""
    return STARTUP_SECONDS + (CUDA_STARTUP_SECONDS if gpus else 0.0)


def estimate_seconds(
    plan: dict[str, Any], *, gpus: int = 0, host: HostSpeed | None = None
) -> float:
    """Expected wall time of a plan: the worker's start, then each benchmark on the CPU (when
    the plan runs there) and on each of ``gpus`` GPUs, from its sizes and the budget."""
    budget = float(plan["budget_seconds"])
    devices = set(plan.get("devices") or ["all"])
    on_cpu = bool(devices & {"all", "cpu"})
    total = startup_seconds(gpus)
    for spec in plan["benchmarks"]:
        if on_cpu:
            total += task_seconds(spec, "cpu", budget, host)
        total += gpus * task_seconds(spec, "gpu", budget, host)
    return total
