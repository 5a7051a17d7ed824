"""What a comm run measures (operations, sizes, dtypes, budget) and how its ranks start."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpu_tui.core.comm.bandwidth import OPERATIONS
from gpu_tui.core.comm.copies import BANDWIDTH_BYTES, COPIES, LATENCY_BYTES
from gpu_tui.core.errors import UsageError

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
SUITE = "comm"
DEFAULT_BUDGET_SECONDS = 0.1
"""Timed seconds per point (after warm-up): about ten blocks of calls."""
DEFAULT_TIMEOUT_SECONDS = 60.0
"""A collective (or a rank's start) that takes longer than this ends the run on every rank."""
CPU_SIZES = [8, 1 * KIB, 64 * KIB, 1 * MIB, 8 * MIB, 64 * MIB]
GPU_SIZES = [*(8 * 4**i for i in range(14)), GIB]  # 8 B, 32 B, … 512 MiB, 1 GiB
DTYPES = ("fp32", "bf16", "fp16")
ITEM_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}


@dataclass(frozen=True)
class Launch:
    """How the ranks are started: torchrun's own options, as a user passes them to torchrun."""

    nproc: int
    nnodes: int = 1
    node_rank: int | None = None
    rdzv_endpoint: str | None = None
    monitor_seconds: float = 0.1
    join_timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS

    @property
    def single_node(self) -> bool:
        return self.nnodes == 1

    def torchrun_args(self) -> list[str]:
        """torchrun's arguments: a single node rendezvous on 127.0.0.1 (a free port unless one
        is given); many nodes with the c10d rendezvous at the endpoint the user named."""
        endpoint = self.rdzv_endpoint or "127.0.0.1:0"
        args = [
            f"--nnodes={self.nnodes}",
            f"--nproc-per-node={self.nproc}",
            "--rdzv-backend=c10d",
            f"--rdzv-endpoint={endpoint}",
            f"--rdzv-conf=join_timeout={max(1, round(self.join_timeout_seconds))}",
            f"--monitor-interval={self.monitor_seconds:g}",
            "--max-restarts=0",
        ]
        if self.node_rank is not None:
            args.append(f"--node-rank={self.node_rank}")
        return args


def check_endpoint(text: str) -> str:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise UsageError(f"--rdzv-endpoint must be HOST:PORT, got {text!r}")
    return text


def check_launch(launch: Launch, device: str, *, ranks: bool = True) -> Launch:
    """``ranks`` False: only the copies run (one process, no torchrun), the rank count is moot."""
    if launch.nnodes < 1:
        raise UsageError(f"--nnodes must be at least 1, got '{launch.nnodes}'")
    least = 2 if launch.single_node else 1
    if ranks and launch.nproc < least:
        raise UsageError(
            f"--nproc must be at least {least} on a single node (a collective needs two ranks), "
            f"got '{launch.nproc}'"
        )
    if launch.nproc > 512:
        raise UsageError(f"--nproc {launch.nproc} is more ranks than one node can hold")
    if not launch.single_node:
        if launch.rdzv_endpoint is None:
            raise UsageError("--nnodes above 1 needs --rdzv-endpoint HOST:PORT (as torchrun does)")
        if launch.node_rank is not None and not 0 <= launch.node_rank < launch.nnodes:
            raise UsageError(
                f"--node-rank must be between 0 and {launch.nnodes - 1}, got '{launch.node_rank}'"
            )
    if launch.rdzv_endpoint is not None:
        check_endpoint(launch.rdzv_endpoint)
    if device not in ("cpu", "cuda"):
        raise UsageError(f"the comm suite runs on cpu (Gloo) or cuda (NCCL), not {device!r}")
    return launch


def default_sizes(device: str, max_bytes: int | None = None) -> list[int]:
    sizes = CPU_SIZES if device == "cpu" else GPU_SIZES
    if max_bytes is not None:
        if max_bytes < 8:
            raise UsageError(f"--max-bytes must be at least 8, got '{max_bytes}'")
        sizes = [s for s in sizes if s <= max_bytes] or [max_bytes]
    return list(sizes)


def build_comm_plan(
    launch: Launch,
    *,
    device: str = "cpu",
    operations: list[str] | None = None,
    dtypes: list[str] | None = None,
    sizes: list[int] | None = None,
    budget_seconds: float | None = None,
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
) -> dict[str, Any]:
    """The plan the launcher and every rank read (it is also saved with the results). The
    copies (``copies`` among ``operations``, and by default on a single node) run first, in
    the launcher's own process; the collectives then run on torchrun's ranks."""
    # Written as the prose and nccl-tests write them (all-reduce) or as Python does (all_reduce).
    named = [name.replace("-", "_") for name in operations or ()]
    for name in named:
        if name not in (*OPERATIONS, COPIES):
            choices = ", ".join((*OPERATIONS, COPIES))
            raise UsageError(f"no operation named {name!r} (choose from: {choices})")
    chosen = [o for o in named if o != COPIES] if named else list(OPERATIONS)
    copies = COPIES in named or (not named and launch.single_node)
    if copies and not launch.single_node:
        raise UsageError("copies run on one node, in one process: drop --nnodes for them")
    check_launch(launch, device, ranks=bool(chosen))
    kinds = list(dtypes or (["fp32"] if device == "cpu" else ["bf16", "fp32"]))
    for dtype in kinds:
        if dtype not in DTYPES:
            raise UsageError(
                f"no dtype {dtype!r} for the comm suite (choose from: fp32, bf16, fp16)"
            )
    budget = DEFAULT_BUDGET_SECONDS if budget_seconds is None else budget_seconds
    if not 0.001 <= budget <= 600:
        raise UsageError(f"--budget must be between 0.001 and 600 seconds, got '{budget:g}'")
    if not 1 <= timeout_seconds <= 86400:
        raise UsageError(f"--rank-timeout must be 1 to 86400 seconds, got {timeout_seconds:g}")
    points = sizes or default_sizes(device)
    # on the CPU, bf16 and fp16 sums run in software: one mid size says what they cost
    by_dtype = {
        dtype: points if dtype == kinds[0] or device != "cpu" else [min(points[-1], MIB)]
        for dtype in kinds
    }
    comm = {
        "device": device,
        "backend": "gloo" if device == "cpu" else "nccl",
        "nproc": launch.nproc,
        "nnodes": launch.nnodes,
        "loopback": launch.single_node,
        "operations": chosen,
        "dtypes": by_dtype,
        "copies": {
            "latency_bytes": LATENCY_BYTES,
            "bandwidth_bytes": min(BANDWIDTH_BYTES, max(sizes)) if sizes else BANDWIDTH_BYTES,
        }
        if copies
        else None,
        "timeout_seconds": timeout_seconds,
        "bandwidth_definitions": "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md",
    }
    return {
        "suite": SUITE,
        "budget_seconds": budget,
        "devices": [device],
        "benchmarks": [{"name": "comm", device if device == "cpu" else "gpu": comm}],
        "comm": comm,
        "torchrun": launch.torchrun_args(),
    }


def copy_points(comm: dict[str, Any]) -> int:
    """Copies a cuda run measures if it sees ``nproc`` GPUs: per size, every ordered pair with
    and without P2P, and each GPU to and from the host (none on the CPU: they are skipped)."""
    gpus = int(comm["nproc"]) if comm.get("copies") and comm["device"] == "cuda" else 0
    return 2 * (2 * gpus * (gpus - 1) + 2 * gpus)


def point_count(plan: dict[str, Any]) -> int:
    comm = plan["comm"]
    return len(comm["operations"]) * sum(len(s) for s in comm["dtypes"].values()) + copy_points(
        comm
    )


STARTUP_SECONDS = 4.0
"""torchrun, its ranks' ``import torch`` and the rendezvous (about 2.5 s for 2 ranks on the VM)."""
CPU_LINK_GBPS = 1.0  # Gloo over loopback on the 2-vCPU VM: ≈ 1 GB/s busbw for large messages


def estimate_seconds(plan: dict[str, Any]) -> float:
    """Expected wall time: start-up, then per point the warm-up, the budget and the check."""
    comm, budget = plan["comm"], float(plan["budget_seconds"])
    gbps = CPU_LINK_GBPS if comm["device"] == "cpu" else 50.0
    total = STARTUP_SECONDS if comm["operations"] else 0.0
    # copies: half large (warm-up, the budget, a check of 256 MiB), half 4 bytes (a fifth)
    total += copy_points(comm) / 2 * ((budget + 0.1) + (0.2 * budget + 0.05))
    for _ in comm["operations"]:
        for sizes in comm["dtypes"].values():
            for size in sizes:
                call = 1e-4 + size / (gbps * 1e9)
                total += 0.03 + budget + 6 * call  # warm-up, timed blocks, check, (3 min blocks)
    return total
