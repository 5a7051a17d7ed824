"""Worker main loop: read the plan, import torch, run each benchmark on each device, report."""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
import warnings
from collections.abc import Callable
from typing import Any

from . import compute, lessons, memory
from .context import FOREIGN_LOAD_LIMIT, Context
from .parent import expected_parent, watch_parent
from .protocol import PROTOCOL_VERSION, Cancelled, Channel
from .sysinfo import LoadProbe, environment

Benchmark = Callable[[Context, str, "dict[str, Any]"], None]
BENCHMARKS: dict[str, Benchmark] = {
    "gemm": compute.gemm,
    "bandwidth": memory.bandwidth,
    "transfer": memory.transfer,
    "launch": memory.launch,
    "reduction": lessons.reduction,
    "linear": compute.linear,
    "crossover": lessons.crossover,
    "mlp": compute.mlp,
    "transformer": compute.transformer,
}
TORCH_MISSING = (
    "PyTorch is not installed for {python}: pip install 'gpu-tui[torch]' "
    "or pass --bench-python PATH to a Python that has it"
)


def resolve_devices(torch: Any, requested: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(chosen devices, visible GPUs, names that match nothing visible)."""
    cuda = (
        [f"cuda:{i}" for i in range(torch.cuda.device_count())] if torch.cuda.is_available() else []
    )
    mps = getattr(torch.backends, "mps", None)
    gpus = cuda + (["mps"] if mps is not None and mps.is_available() else [])
    chosen: list[str] = []
    unknown: list[str] = []
    for name in requested:
        if name == "all":
            chosen += ["cpu", *gpus]
        elif name == "gpu":
            chosen += gpus
        elif name == "cuda" and cuda:
            chosen.append(cuda[0])
        elif name in ("cpu", *gpus):
            chosen.append(name)
        else:
            unknown.append(name)
    return list(dict.fromkeys(chosen)), gpus, unknown


def is_out_of_memory(torch: Any, error: BaseException) -> bool:
    oom_type = getattr(torch, "OutOfMemoryError", None)
    text = str(error).lower()
    return (
        isinstance(error, MemoryError)
        or (oom_type is not None and isinstance(error, oom_type))
        or "out of memory" in text
        or "can't allocate memory" in text
    )


def _release(torch: Any) -> None:
    """Give memory back after a failed benchmark so the next one gets a fair start."""
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def run(channel: Channel, plan: dict[str, Any]) -> int:
    channel.send("hello", protocol=PROTOCOL_VERSION, python=sys.executable, pid=os.getpid())
    if plan.get("nice"):
        os.nice(int(plan["nice"]))
    channel.send("status", message="loading PyTorch (a few seconds)")
    warnings.filterwarnings("ignore", message=".*NumPy.*")
    probe = LoadProbe()  # the import takes a second or more: a free look at the neighbours
    probe.start()
    try:
        import torch
    except ImportError:
        channel.send(
            "fatal", kind="torch_missing", message=TORCH_MISSING.format(python=sys.executable)
        )
        return 3
    if plan.get("threads"):
        torch.set_num_threads(int(plan["threads"]))
    devices, gpus, unknown = resolve_devices(torch, plan.get("devices") or ["all"])
    if unknown:
        seen = ", ".join(["cpu", *gpus])
        channel.send(
            "fatal",
            kind="bad_device",
            message=f"device {', '.join(unknown)} is not visible to the worker (it sees: {seen})",
        )
        return 2
    channel.send("environment", environment=environment(torch, devices))
    foreign = probe.foreign_vcpus()
    if foreign is not None and foreign > FOREIGN_LOAD_LIMIT:
        channel.send(
            "warning",
            message=f"other processes are using {foreign:.1f} vCPU: CPU results will be low "
            "and noisy",
            detail="each result says how loaded it was",
        )
    no_gpu = None
    if not any(d != "cpu" for d in devices):
        no_gpu = "no GPU visible to the worker" if not gpus else "no GPU selected (--device)"
    ctx = Context(torch, channel, float(plan.get("budget_seconds", 0.25)))
    tasks = [
        (spec, device)
        for spec in plan["benchmarks"]
        for device in devices
        if spec.get("cpu" if device == "cpu" else "gpu") is not None
    ]
    for spec in plan["benchmarks"]:
        if no_gpu and spec.get("gpu") is not None:
            ctx.skip(spec["name"], "gpu", no_gpu)
    for index, (spec, device) in enumerate(tasks):
        name = spec["name"]
        channel.send("progress", index=index, total=len(tasks), benchmark=name, device=device)
        try:
            channel.check()
            BENCHMARKS[name](ctx, device, spec["cpu" if device == "cpu" else "gpu"])
        except Cancelled:
            channel.send("done", cancelled=True)
            return 0
        except Exception as error:  # one benchmark failing must not lose the others
            kind = "oom" if is_out_of_memory(torch, error) else "exception"
            first = (str(error).strip().splitlines() or [type(error).__name__])[0]
            channel.send(
                "error",
                benchmark=name,
                device=device,
                kind=kind,
                message=f"{type(error).__name__}: {first}",
            )
            _release(torch)
    channel.send("done", cancelled=channel.stop.is_set())
    return 0


def main() -> int:
    # Ctrl-C reaches the whole terminal group; the caller decides, and says "stop" on stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent()
    channel = Channel()
    try:
        plan = json.loads(sys.stdin.readline())
        if not isinstance(plan, dict) or not isinstance(plan.get("benchmarks"), list):
            raise ValueError("the plan must be an object with a 'benchmarks' list")
    except ValueError as error:
        channel.send("fatal", kind="bad_plan", message=f"bad plan: {error}")
        return 4
    # Started by gpu-tui, the end of stdin means gpu-tui is gone: stop. Started by hand, a plan
    # piped in ends there, and the run goes on.
    channel.listen(sys.stdin, stop_at_end=expected_parent() is not None)
    try:
        return run(channel, plan)
    except BrokenPipeError:  # the caller went away: nobody to report to
        return 0
