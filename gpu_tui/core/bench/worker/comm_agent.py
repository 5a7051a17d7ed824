"""The comm suite's launcher: PyTorch's own torchrun (``torch.distributed.run``), in-process.

gpu-tui starts this process (under ``--bench-python`` when given) with torchrun's arguments and
the plan on stdin. It watches gpu-tui as every worker does, names itself as the parent the ranks
watch, and then runs torchrun's ``main``: the ranks are its children, and die with it. A single
node listens on loopback only: torchrun's rendezvous stores are bound to 127.0.0.1 and Gloo and
NCCL are told to use the loopback interface. What torchrun says of failed ranks comes back as
one ``ranks_failed`` line; a launch that cannot happen is one ``fatal`` line. Before the ranks
start it measures the GPU-to-GPU copies itself when the plan asks for them (``comm_copies.py``),
and with no collectives planned it starts no ranks at all.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from typing import Any

from .comm_rank import PLAN_VARIABLE
from .parent import PARENT_VARIABLE, watch_parent
from .protocol import PROTOCOL_VERSION, Channel

TORCH_MISSING = (
    "PyTorch is not installed for {python}: pip install 'gpu-tui[torch]' "
    "or pass --bench-python PATH to a Python that has it"
)
_HELD: list[socket.socket] = []  # listening sockets handed to the stores: kept open


def read_plan_line() -> str:
    """The plan line, read byte by byte: what follows ("stop") is left for rank 0 to read."""
    data = bytearray()
    while True:
        byte = os.read(0, 1)
        if not byte or byte == b"\n":
            return data.decode("utf-8", "replace")
        data += byte


def bind_stores_to_loopback(dist: Any) -> None:
    """Every TCP store torchrun serves from here listens on 127.0.0.1 only: the store binds all
    interfaces by itself, so it is handed a socket already bound to loopback."""
    base = dist.TCPStore
    names = ("host_name", "port", "world_size", "is_master")

    class LoopbackStore(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.update(zip(names, args, strict=False))
            if kwargs.get("is_master") and kwargs.get("master_listen_fd") is None:
                held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                held.bind(("127.0.0.1", int(kwargs.get("port") or 0)))
                held.listen(1024)
                _HELD.append(held)
                kwargs["port"] = held.getsockname()[1]
                kwargs["master_listen_fd"] = held.fileno()
            super().__init__(**kwargs)

    dist.TCPStore = LoopbackStore
    from torch.distributed.elastic.rendezvous import c10d_rendezvous_backend

    c10d_rendezvous_backend.TCPStore = LoopbackStore  # type: ignore[attr-defined]


def _backend_problem(torch: Any, comm: dict[str, Any], nproc: int) -> str | None:
    dist = torch.distributed
    if not dist.is_available():
        return "this PyTorch was built without torch.distributed"
    if comm["backend"] == "gloo" and not dist.is_gloo_available():
        return "this PyTorch has no Gloo backend (torch.distributed on the CPU)"
    if comm["device"] == "cuda":
        if not torch.cuda.is_available():
            return "no CUDA GPU is visible to this PyTorch: use --device cpu (Gloo)"
        if not dist.is_nccl_available():
            return "this PyTorch has no NCCL backend: use --device cpu (Gloo)"
        if nproc > torch.cuda.device_count():
            return (
                f"--nproc {nproc} asks for more ranks than the {torch.cuda.device_count()} "
                "GPU(s) this node has"
            )
    return None


def _failures(error: Any) -> list[dict[str, Any]]:
    found = []
    for rank, failure in sorted(getattr(error, "failures", {}).items()):
        found.append(
            {
                "rank": int(rank),
                "exitcode": getattr(failure, "exitcode", None),
                "pid": getattr(failure, "pid", None),
            }
        )
    return found


def run(channel: Channel, plan: dict[str, Any], torchrun_args: list[str], entry: str) -> int:
    comm = plan["comm"]
    collectives = bool(comm.get("operations"))  # none: the copies alone, no torchrun
    channel.send(
        "status", message="loading PyTorch" + (" and torch.distributed.run" if collectives else "")
    )
    try:
        import torch

        if collectives:
            import torch.distributed.run as torchrun
    except ImportError:
        message = TORCH_MISSING.format(python=sys.executable)
        channel.send("fatal", kind="torch_missing", message=message)
        return 3
    problem = _backend_problem(torch, comm, int(comm["nproc"])) if collectives else None
    if problem:
        channel.send("fatal", kind="bad_device", message=problem)
        return 2
    if comm.get("copies"):  # in this process, before any rank holds a GPU
        from . import comm_copies

        if comm_copies.run(channel, torch, comm, float(plan["budget_seconds"])):
            channel.send("done", cancelled=True)
            return 0
    if not collectives:
        channel.send("done", cancelled=False)
        return 0
    os.environ[PLAN_VARIABLE] = json.dumps(plan)
    os.environ[PARENT_VARIABLE] = str(os.getpid())  # the ranks watch this process
    if comm.get("loopback"):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
        os.environ.setdefault("NCCL_SOCKET_IFNAME", "lo")
        bind_stores_to_loopback(torch.distributed)
    channel.send("status", message=f"starting {comm['nproc']} rank(s) on this node (torchrun)")
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

    try:
        torchrun.main([*torchrun_args, entry, "rank"])
    except ChildFailedError as error:
        channel.send("ranks_failed", failures=_failures(error))
        return 1
    except Exception as error:
        text = f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0]}"
        if "address already in use" in text.lower():
            channel.send("fatal", kind="start", message=f"the rendezvous port is in use ({text})")
            return 2
        if "rendezvoustimeout" in text.lower().replace(" ", ""):
            where = next((a.split("=", 1)[1] for a in torchrun_args if "rdzv-endpoint" in a), "")
            message = (
                f"the rendezvous at {where} did not complete: not every node joined within "
                f"{comm['timeout_seconds']:g} s (--rank-timeout)"
            )
            channel.send("fatal", kind="rendezvous", message=message)
            return 1
        channel.send("fatal", kind="launch", message=f"torchrun could not start the ranks: {text}")
        return 1
    return 0


def main(torchrun_args: list[str], entry: str) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # gpu-tui decides, and says "stop" to rank 0
    watch_parent()
    channel = Channel()
    channel.send("hello", protocol=PROTOCOL_VERSION, python=sys.executable, pid=os.getpid())
    try:
        plan = json.loads(read_plan_line())
        if not isinstance(plan, dict) or not isinstance(plan.get("comm"), dict):
            raise ValueError("the plan must be an object with a 'comm' object")
    except ValueError as error:
        channel.send("fatal", kind="bad_plan", message=f"bad plan: {error}")
        return 4
    try:
        return run(channel, plan, torchrun_args, entry)
    except BrokenPipeError:
        return 0
