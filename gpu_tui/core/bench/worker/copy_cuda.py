"""The CUDA side of the copy matrix (``copy_matrix.py``): pinned host memory, peer access, the
staged copy's stream ordering, and CUDA events on the timing GPU's stream.

UNVERIFIED HERE: gpu-tui is developed and tested on machines without a GPU, so this layer has
been written against PyTorch's documentation and source (``torch.cuda.Event``,
``Stream.wait_event``, ``torch.cuda.can_device_access_peer``, ``torch.cuda._sleep``,
``pin_memory=True``) and never run. Everything above it (the points, buffers, chunking, timing
loop, checks and messages) runs for real in the tests with CPU tensors and the host clock.

What it relies on, from ``aten/src/ATen/native/cuda/Copy.cu``: a copy between two GPUs runs on
the *source* GPU's current stream, which first waits for the destination's current stream and
which the destination's stream then waits for; a copy between a GPU and pinned host memory with
``non_blocking=True`` is asynchronous on that GPU's current stream. So events recorded on the
source's stream around a block of copies time them, and a staged copy orders its two hops with
events between the two GPUs' streams (:class:`CudaRelay`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .copy_matrix import Relay
from .sysinfo import available_memory_bytes
from .timing import Block

HOLD_MARGIN = 2.0
"""The spin before a latency block lasts this many times the host's time to enqueue it."""
FALLBACK_CLOCK_HZ = 2.0e9
"""When torch does not report the SM clock (CUDA 13): a longer spin only costs a little time."""
ENQUEUE_SAMPLES = 20


class CudaRelay:
    """The staged copy's two hops: out of the source on its stream, into the destination on
    the destination's stream, one event per host slot each way (``copy_matrix.Relay``)."""

    def __init__(self, torch: Any, src: str, dst: str) -> None:
        cuda = torch.cuda
        self.out_stream = cuda.current_stream(src)
        self.in_stream = cuda.current_stream(dst)
        self.filled = [cuda.Event(), cuda.Event()]
        self.emptied = [cuda.Event(), cuda.Event()]
        self.done = cuda.Event()

    def before_out(self, slot: int) -> None:
        # a slot not yet used has an event never recorded: waiting on it waits for nothing
        self.out_stream.wait_event(self.emptied[slot])

    def after_out(self, slot: int) -> None:
        self.filled[slot].record(self.out_stream)
        self.in_stream.wait_event(self.filled[slot])

    def after_in(self, slot: int) -> None:
        self.emptied[slot].record(self.in_stream)

    def finish(self) -> None:
        self.done.record(self.in_stream)
        self.out_stream.wait_event(self.done)


class CudaBackend:
    """GPUs as the devices, pinned host memory, CUDA events as the timer (unverified: see the
    module's docstring)."""

    method = "cuda-events-on-source-stream"

    def __init__(self, torch: Any) -> None:
        self.torch = torch

    def buffer(self, device: str, size: int) -> Any:
        return self.torch.empty(size, dtype=self.torch.uint8, device=device)

    def host_buffer(self, size: int) -> Any:
        return self.torch.empty(size, dtype=self.torch.uint8, pin_memory=True)

    def can_access_peer(self, src: str, dst: str) -> bool:
        cuda = self.torch.cuda
        return bool(cuda.can_device_access_peer(_index(src), _index(dst)))

    def free_bytes(self, device: str) -> int:
        return int(self.torch.cuda.mem_get_info(device)[0])

    def host_free_bytes(self) -> int:
        return available_memory_bytes() or 0

    def timer(self, device: str, call: Callable[[], object], latency: bool) -> Block:
        """CUDA events on ``device``'s current stream around ``n`` calls. For a latency copy
        the stream first spins (``torch.cuda._sleep``) while the block is enqueued, so that
        the events time the copies back to back, not the host's pace of issuing them (as
        p2pBandwidthLatencyTest's delay kernel and nvbandwidth's spin kernel do)."""
        cuda = self.torch.cuda
        stream = cuda.current_stream(device)
        start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
        cycles = self._spin_cycles(device, call) if latency else 0.0
        sleep = getattr(cuda, "_sleep", None)

        def run(n: int) -> float:
            if cycles and sleep is not None:
                with cuda.device(device):
                    sleep(int(cycles * n))
            start.record(stream)
            for _ in range(n):
                call()
            end.record(stream)
            end.synchronize()
            return float(start.elapsed_time(end)) / 1e3

        return run

    def _spin_cycles(self, device: str, call: Callable[[], object]) -> float:
        """GPU clock cycles per call that outlast the host's enqueueing of it."""
        cuda = self.torch.cuda
        if getattr(cuda, "_sleep", None) is None:
            return 0.0
        cuda.synchronize(device)
        began = time.perf_counter()
        for _ in range(ENQUEUE_SAMPLES):
            call()
        per_call = (time.perf_counter() - began) / ENQUEUE_SAMPLES
        cuda.synchronize(device)
        khz = getattr(cuda.get_device_properties(device), "clock_rate", 0) or 0
        hertz = khz * 1e3 if khz else FALLBACK_CLOCK_HZ
        return per_call * HOLD_MARGIN * hertz

    def relay(self, src: str, dst: str) -> Relay:
        return CudaRelay(self.torch, src, dst)

    def sync(self, devices: list[str]) -> None:
        for device in devices:
            if device.startswith("cuda"):
                self.torch.cuda.synchronize(device)

    def release(self) -> None:
        self.torch.cuda.empty_cache()


def _index(device: str) -> int:
    return int(device.partition(":")[2] or 0)
