"""One rank of the comm suite (started by torchrun): join the group, time each operation, report.

Rank 0 speaks the bench protocol on stdout (environment, progress, heartbeats, results, done)
and listens for "stop" on stdin. Every rank also says which point it has reached (``rank``
lines) and, when it fails, why (``rank_failed``): gpu-tui names the rank that died or hung from
them. The plan comes in ``$GPU_TUI_COMM_PLAN`` (the launcher put it there).
"""

from __future__ import annotations

import datetime
import json
import os
import signal
import sys
import time
from typing import Any

from . import collectives
from .comm_timing import Lineup, Stopped, measure
from .main import is_out_of_memory
from .parent import watch_parent
from .protocol import PROTOCOL_VERSION, Channel
from .sysinfo import environment

PLAN_VARIABLE = "GPU_TUI_COMM_PLAN"
MEMORY_SHARE = 0.8
"""The share of the tightest rank's free memory a point may use; larger sizes are skipped."""
PEER_WORDS = ("connection", "timed out", "timeout", "closed", "reset by peer", "broken pipe")


def _points(comm: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [
        (operation, dtype, size)
        for operation in comm["operations"]
        for dtype, sizes in comm["dtypes"].items()
        for size in sizes
    ]


def _free_bytes(torch: Any, dist: Any, device: str) -> int:
    """Free memory on the tightest rank: every rank skips the same sizes, or a collective would
    wait for a rank that skipped it."""
    tightest = torch.tensor([_local_free_bytes(torch, device)], dtype=torch.int64, device=device)
    dist.all_reduce(tightest, op=dist.ReduceOp.MIN)
    return int(tightest.item())


def _local_free_bytes(torch: Any, device: str) -> int:
    if device.startswith("cuda"):
        return int(torch.cuda.mem_get_info()[0])
    # the ranks on this node share its memory
    available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return available // max(1, int(os.environ.get("LOCAL_WORLD_SIZE", "1")))


def _binary(count: int) -> str:
    """Bytes in GiB, MiB or KiB (the worker runs without gpu-tui's own formatters)."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} B"


def _classify(torch: Any, error: BaseException) -> str:
    if is_out_of_memory(torch, error):
        return "oom"
    dist_error = getattr(torch.distributed, "DistError", ())
    text = str(error).lower()
    if isinstance(error, dist_error) or any(word in text for word in PEER_WORDS):
        return "peer"
    return "exception"


def run(channel: Channel, comm: dict[str, Any], budget: float) -> int:
    import torch
    import torch.distributed as dist

    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    device = "cpu"
    if comm["device"] == "cuda":
        device = f"cuda:{local_rank}"
        torch.cuda.set_device(device)
    timeout = datetime.timedelta(seconds=float(comm["timeout_seconds"]))
    dist.init_process_group(comm["backend"], timeout=timeout)
    ranks = dist.get_world_size()
    lead = rank == 0  # collects the results
    speaker = local_rank == 0
    if speaker:  # one per node: says what it runs on, and how far the run is
        record = environment(torch, [device])
        record["comm"] = {
            "backend": comm["backend"],
            "world_size": ranks,
            "nnodes": comm.get("nnodes", 1),
            "local_world_size": int(os.environ.get("LOCAL_WORLD_SIZE", ranks)),
            "hostname": os.uname().nodename,
        }
        channel.send("environment", environment=record)
    points = _points(comm)
    free = _free_bytes(torch, dist, device)
    line = Lineup(torch, dist, device, channel.stop.is_set)
    for index, (operation, dtype, size) in enumerate(points):
        channel.send("rank", rank=rank, point=index, pid=os.getpid())
        label = f"{operation} {dtype} {size} B"
        if speaker:
            channel.send(
                "progress", index=index, total=len(points), benchmark=operation, device=device
            )
            channel.send("heartbeat", label=label, fraction=0.0)
        if operation == "send_recv" and ranks < 2:
            line()
            if lead:
                channel.send(
                    "skip",
                    benchmark="comm",
                    device=device,
                    reason="send/recv needs two ranks",
                    params={"operation": operation},
                )
            continue
        item = collectives.ITEM_BYTES[dtype]
        need = collectives.footprint_bytes(size, item)
        if need > MEMORY_SHARE * free:
            if lead:
                channel.send(
                    "skip",
                    benchmark="comm",
                    device=device,
                    reason=f"{size:,} B needs about {_binary(need)} per rank; the "
                    f"tightest rank has {_binary(free)} free",
                    params={"operation": operation, "bytes": size, "dtype": dtype},
                )
            continue
        count = collectives.count_for(operation, size, ranks, item)
        op = collectives.build(torch, dist, operation, count, dtype, device)
        op.fill()
        timing = measure(line, op.call, budget, _beat(channel, label) if speaker else _quiet)
        op.fill()
        op.call()
        line.sync()
        per_rank = _wrong_per_rank(torch, dist, device, op.check())
        if lead:
            params = {
                "operation": operation,
                "bytes": count * item,
                "ranks": ranks,
                "nodes": int(comm.get("nnodes", 1)),
                "backend": comm["backend"],
            }
            bad = [r for r, n in enumerate(per_rank) if n]
            checks = {
                "ok": not bad,
                "wrong_elements": int(sum(per_rank)),
                "wrong_ranks": bad,
                "ranks_checked": ranks,
            }
            channel.send(
                "result",
                benchmark="comm",
                variant=operation,
                device=device,
                dtype=dtype,
                params=params,
                timing=timing.as_dict(),
                checks=checks,
                warnings=[] if not bad else [f"wrong results on rank(s) {bad}"],
                scope="resident",
                ended_seconds_ago=time.monotonic() - timing.timed_end,
            )
        del op
    line()
    if speaker:
        channel.send("done", cancelled=False)
    dist.destroy_process_group()
    return 0


def _wrong_per_rank(torch: Any, dist: Any, device: str, wrong: int) -> list[int]:
    tensor = torch.zeros(dist.get_world_size(), dtype=torch.int64, device=device)
    tensor[dist.get_rank()] = wrong
    dist.all_reduce(tensor)
    return [int(v) for v in tensor.tolist()]


def _beat(channel: Channel, label: str) -> Any:
    def beat(fraction: float) -> None:
        if channel.heartbeat_due():
            channel.send("heartbeat", label=label, fraction=fraction)

    return beat


def _quiet(fraction: float) -> None:
    return None


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the launcher's caller decides
    watch_parent()
    rank = int(os.environ.get("RANK", "0"))
    # each node's first rank talks the protocol to its gpu-tui (rank 0's carries the results);
    # the others only say where they are and why they failed
    speaker = int(os.environ.get("LOCAL_RANK", "0")) == 0
    channel = Channel()
    plan = json.loads(os.environ[PLAN_VARIABLE])
    if speaker:
        channel.send("hello", protocol=PROTOCOL_VERSION, python=sys.executable, pid=os.getpid())
        channel.listen(sys.stdin, stop_at_end=True)
    import torch

    try:
        return run(channel, plan["comm"], float(plan["budget_seconds"]))
    except Stopped:
        if speaker:
            channel.send("done", cancelled=True)
        return 0
    except BrokenPipeError:
        return 0
    except Exception as error:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        channel.send(
            "rank_failed",
            rank=rank,
            kind=_classify(torch, error),
            message=f"{type(error).__name__}: {first[:300]}",
        )
        return 1
