"""The comm suite's copies, run by its launcher in one process before any rank starts (no
torchrun needed): which GPUs, or why none, then ``copy_matrix.run``.

A stop ("stop" on stdin) is read here without blocking and byte by byte, so that once the
copies are done nothing beyond a whole line has been taken from stdin: rank 0 reads what
follows.
"""

from __future__ import annotations

import os
import select
from typing import Any

from . import copy_matrix
from .main import is_out_of_memory
from .protocol import Channel
from .sysinfo import environment


class StdinStop:
    """True once "stop" (or the end of stdin: gpu-tui went away) has been read from fd 0."""

    def __init__(self, fd: int = 0) -> None:
        self.fd = fd
        self.line = bytearray()
        self.stopped = False

    def __call__(self) -> bool:
        while not self.stopped and select.select([self.fd], [], [], 0)[0]:
            byte = os.read(self.fd, 1)
            if not byte:
                self.stopped = True
            elif byte == b"\n":
                self.stopped = self.line.decode("utf-8", "replace").strip() == "stop"
                self.line.clear()
            else:
                self.line += byte
        return self.stopped


def why_not(torch: Any, comm: dict[str, Any]) -> str | None:
    """Why the copies cannot run here, or None."""
    if comm.get("device") != "cuda":
        return "GPU-to-GPU copies need --device cuda and 2 GPUs or more; this run is on the CPU"
    if not torch.cuda.is_available():
        return "GPU-to-GPU copies need 2 GPUs or more; this PyTorch sees no CUDA GPU"
    count = int(torch.cuda.device_count())
    if count < 2:
        return f"GPU-to-GPU copies need 2 GPUs or more; this PyTorch sees {count}"
    return None


def backend_and_devices(
    torch: Any, comm: dict[str, Any]
) -> tuple[copy_matrix.Backend, list[str]] | str:
    """What copies the data and between which devices: every CUDA GPU; or why not."""
    reason = why_not(torch, comm)
    if reason:
        return reason
    from .copy_cuda import CudaBackend

    return CudaBackend(torch), [f"cuda:{i}" for i in range(int(torch.cuda.device_count()))]


def run(channel: Channel, torch: Any, comm: dict[str, Any], budget: float) -> bool:
    """The copies part of a comm run: results, or one skip saying why not; True when stopped.
    A failure (out of memory, a driver error) is one error, and the collectives still run."""
    copies = comm["copies"]
    chosen = backend_and_devices(torch, comm)
    if isinstance(chosen, str):
        device = comm.get("device")
        channel.send(
            "skip", benchmark=copy_matrix.BENCHMARK, device=device, reason=chosen, params={}
        )
        return False
    backend, devices = chosen
    channel.send("status", message=f"copies between {len(devices)} devices and the host")
    channel.send("environment", environment=environment(torch, sorted(set(devices))))
    try:
        copy_matrix.run(
            backend,
            devices,
            latency_bytes=int(copies["latency_bytes"]),
            bandwidth_bytes=int(copies["bandwidth_bytes"]),
            budget=budget,
            send=channel.send,
            stop=StdinStop(),
        )
    except copy_matrix.Stopped:
        return True
    except Exception as error:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        channel.send(
            "error",
            kind="oom" if is_out_of_memory(torch, error) else "exception",
            benchmark=copy_matrix.BENCHMARK,
            device=devices[0],
            message=f"the copies stopped: {type(error).__name__}: {first[:300]}",
        )
    return False
