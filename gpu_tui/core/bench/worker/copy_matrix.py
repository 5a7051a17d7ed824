"""Copies between every ordered pair of devices, with and without P2P, and host↔device.

Generic over a list of torch devices and a timer (a :class:`Backend`): the points, buffers, the
staged copy's chunking, the timing loop, the byte-for-byte check and the messages are the same
whether the devices are GPUs timed with CUDA events (``copy_cuda.py``) or CPU tensors timed with
the host clock (:class:`HostBackend`), which is how gpu-tui's tests run all of this for real on a
machine without a GPU.

For each ordered pair (i, j), i ≠ j:

- ``p2p``, when i can reach j directly: ``dst.copy_(src, non_blocking=True)``;
- ``staged``: src → pinned host memory → dst, in chunks of ``STAGE_CHUNK_BYTES``, two host slots
  so that one chunk's second hop overlaps the next chunk's first: what a copy without P2P does
  (the driver stages a peer copy through host memory when peer access is off);

and for each device ``h2d`` (pinned host → device) and ``d2h``. Every copy at two sizes: 4 bytes
(latency) and the bandwidth size (256 MiB unless told less, capped so that the buffers stay
within ``MEMORY_SHARE`` of the tightest free memory). Timing follows ``timing.measure``: the
first call alone (cold start), warm-up, then blocks until the budget is spent, median and
p20–p80 per copy; a latency copy gets ``LATENCY_BUDGET_SHARE`` of the budget. After timing, one
more copy of a fresh pattern is checked byte for byte on the destination.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from .protocol import HEARTBEAT_SECONDS
from .sysinfo import available_memory_bytes
from .timing import Block, Timing, host_block, measure

BENCHMARK = "copies"
HOST = "host"
STAGE_CHUNK_BYTES = 8 << 20
CHECK_CHUNK_BYTES = 4 << 20
"""Bytes compared at a time: the pattern is made in int64, 8 × this much scratch per chunk."""
MEMORY_SHARE = 0.25
"""Buffers stay within this share of the tightest free memory ("Memory margin")."""
LATENCY_BUDGET_SHARE = 0.2
BLOCKS_PER_BUDGET = 10
PATTERN_MODULUS = 251  # a prime: a chunk landing one slot off never matches by accident

Send = Callable[..., None]


class Stopped(Exception):  # noqa: N818 - a request, not an error
    """The caller said stop."""


@dataclass(frozen=True)
class Point:
    """One copy to measure: ``path`` from ``src`` to ``dst`` (a device name or ``host``)."""

    path: str
    src: str
    dst: str
    size: int
    role: str
    """``bandwidth`` (the large copy) or ``latency`` (the 4-byte one)."""

    @property
    def timed_on(self) -> str:
        """The device whose stream times the copy: the source, or for ``h2d`` the target."""
        return self.dst if self.src == HOST else self.src

    def label(self) -> str:
        return f"copy {self.path} {self.src}→{self.dst} {self.size:,} B"


class Relay(Protocol):
    """Orders the two hops of a staged copy, each on its own device's stream."""

    def before_out(self, slot: int) -> None:
        """Before a chunk leaves the source: ``slot``'s previous chunk must have gone on."""

    def after_out(self, slot: int) -> None:
        """The chunk is in ``slot``: the hop to the destination may start."""

    def after_in(self, slot: int) -> None:
        """The chunk reached the destination: ``slot`` is free again."""

    def finish(self) -> None:
        """The source's stream waits for the last hop, so its end event covers the copy."""


class Backend(Protocol):
    """What the copies need of the devices: buffers, peer access, free memory and a timer."""

    torch: Any
    method: str

    def buffer(self, device: str, size: int) -> Any: ...
    def host_buffer(self, size: int) -> Any: ...
    def can_access_peer(self, src: str, dst: str) -> bool: ...
    def free_bytes(self, device: str) -> int: ...
    def host_free_bytes(self) -> int: ...
    def timer(self, device: str, call: Callable[[], object], latency: bool) -> Block: ...
    def relay(self, src: str, dst: str) -> Relay: ...
    def sync(self, devices: list[str]) -> None: ...
    def release(self) -> None: ...


class InOrder:
    """A relay for devices whose copies finish before ``copy_`` returns (the CPU)."""

    def before_out(self, slot: int) -> None:
        return None

    def after_out(self, slot: int) -> None:
        return None

    def after_in(self, slot: int) -> None:
        return None

    def finish(self) -> None:
        return None


class HostBackend:
    """CPU tensors as the devices and the host clock as the timer: a copy between CPU tensors is
    done when ``copy_`` returns, so a ``perf_counter`` around a block of them times them."""

    method = "host-clock"

    def __init__(self, torch: Any, peer: Callable[[str, str], bool] | None = None) -> None:
        self.torch = torch
        self._peer = peer

    def buffer(self, device: str, size: int) -> Any:
        return self.torch.empty(size, dtype=self.torch.uint8, device=device)

    def host_buffer(self, size: int) -> Any:
        return self.torch.empty(size, dtype=self.torch.uint8)

    def can_access_peer(self, src: str, dst: str) -> bool:
        return True if self._peer is None else self._peer(src, dst)

    def free_bytes(self, device: str) -> int:
        return self.host_free_bytes()

    def host_free_bytes(self) -> int:
        return available_memory_bytes() or 1 << 30

    def timer(self, device: str, call: Callable[[], object], latency: bool) -> Block:
        return host_block(call)

    def relay(self, src: str, dst: str) -> Relay:
        return InOrder()

    def sync(self, devices: list[str]) -> None:
        return None

    def release(self) -> None:
        return None


def names_for(devices: list[str]) -> dict[str, str]:
    """Name → torch device. Devices keep their own names (``cuda:3``); the same device given
    twice (two CPUs in a test) is told apart as ``cpu#0``, ``cpu#1``."""
    if len(set(devices)) == len(devices):
        return {device: device for device in devices}
    return {f"{device}#{index}": device for index, device in enumerate(devices)}


def plan_points(
    names: list[str], peer: Callable[[str, str], bool], latency_bytes: int, bandwidth_bytes: int
) -> tuple[list[Point], list[tuple[str, str]]]:
    """Every copy in the order they run (bandwidth, then latency; within each P2P pairs, staged
    pairs, then the host), and the ordered pairs without peer access."""
    blocked = [(s, d) for s in names for d in names if s != d and not peer(s, d)]
    points: list[Point] = []
    for role, size in (("bandwidth", bandwidth_bytes), ("latency", latency_bytes)):
        if size <= 0:
            continue
        pairs = [(s, d) for s in names for d in names if s != d]
        points += [Point("p2p", s, d, size, role) for s, d in pairs if (s, d) not in blocked]
        points += [Point("staged", s, d, size, role) for s, d in pairs]
        for name in names:
            points += [
                Point("h2d", HOST, name, size, role),
                Point("d2h", name, HOST, size, role),
            ]
    return points, blocked


def fitting_size(
    backend: Backend, devices: dict[str, str], requested: int
) -> tuple[int, str | None]:
    """The bandwidth size that fits, and a note when it is smaller than ``requested``. Each
    device holds a source and a destination buffer; the host one buffer and two stage slots."""
    per_device: dict[str, int] = {}
    for device in devices.values():
        per_device[device] = per_device.get(device, 0) + 2
    cap = min(MEMORY_SHARE * backend.free_bytes(d) / n for d, n in per_device.items())
    cap = min(cap, MEMORY_SHARE * backend.host_free_bytes() - 2 * STAGE_CHUNK_BYTES)
    if requested <= cap:
        return requested, None
    size = 1 << int(math.log2(cap)) if cap >= 1 else 0
    return size, (
        f"copied {size:,} B, not {requested:,} B: the buffers stay within "
        f"{MEMORY_SHARE * 100:.0f} % of the tightest free memory"  # as format_percent writes it
    )


class Buffers:
    """Allocated once for the largest copy: per device a source and a destination, on the host
    one buffer (pinned where the backend pins) and two stage slots."""

    def __init__(self, backend: Backend, devices: dict[str, str], size: int) -> None:
        self.out = {name: backend.buffer(device, size) for name, device in devices.items()}
        self.into = {name: backend.buffer(device, size) for name, device in devices.items()}
        self.host = backend.host_buffer(size)
        self.slots = [backend.host_buffer(max(1, min(size, STAGE_CHUNK_BYTES))) for _ in "ab"]

    def source(self, name: str) -> Any:
        return self.host if name == HOST else self.out[name]

    def target(self, name: str) -> Any:
        return self.host if name == HOST else self.into[name]


def staged_copy(src: Any, dst: Any, slots: list[Any], relay: Relay) -> None:
    """src → host slot → dst, chunk by chunk, alternating between the two slots."""
    total, chunk = src.numel(), slots[0].numel()
    for index, start in enumerate(range(0, total, chunk)):
        end, slot = min(start + chunk, total), index % 2
        held = slots[slot][: end - start]
        relay.before_out(slot)
        held.copy_(src[start:end], non_blocking=True)
        relay.after_out(slot)
        dst[start:end].copy_(held, non_blocking=True)
        relay.after_in(slot)
    relay.finish()


def copier(
    backend: Backend, buffers: Buffers, devices: dict[str, str], point: Point
) -> Callable[[], None]:
    """One copy of ``point``, ready to call."""
    src = buffers.source(point.src)[: point.size]
    dst = buffers.target(point.dst)[: point.size]
    if point.path == "staged":
        relay = backend.relay(devices[point.src], devices[point.dst])
        return lambda: staged_copy(src, dst, buffers.slots, relay)

    def copy() -> None:
        dst.copy_(src, non_blocking=True)

    return copy


def _chunks(total: int) -> Iterator[tuple[int, int]]:
    for start in range(0, total, CHECK_CHUNK_BYTES):
        yield start, min(start + CHECK_CHUNK_BYTES, total)


def _pattern(torch: Any, start: int, end: int, seed: int, device: Any) -> Any:
    return (torch.arange(start, end, dtype=torch.int64, device=device) + seed) % PATTERN_MODULUS


def fill(torch: Any, tensor: Any, seed: int) -> None:
    for start, end in _chunks(tensor.numel()):
        tensor[start:end].copy_(_pattern(torch, start, end, seed, tensor.device))


def wrong_bytes(torch: Any, tensor: Any, seed: int) -> int:
    wrong = 0
    for start, end in _chunks(tensor.numel()):
        expected = _pattern(torch, start, end, seed, tensor.device)
        wrong += int((tensor[start:end].to(torch.int64) != expected).sum().item())
    return wrong


def check_copy(
    backend: Backend,
    buffers: Buffers,
    devices: dict[str, str],
    point: Point,
    call: Callable[[], None],
    seed: int,
) -> int:
    """Bytes that arrived wrong in one copy of a fresh pattern (0 when the copy is right)."""
    torch = backend.torch
    src = buffers.source(point.src)[: point.size]
    dst = buffers.target(point.dst)[: point.size]
    fill(torch, src, seed)
    dst.zero_()
    touched = [devices[n] for n in (point.src, point.dst) if n != HOST]
    backend.sync(touched)
    call()
    backend.sync(touched)
    return wrong_bytes(torch, dst, seed)


def measure_point(
    backend: Backend,
    devices: dict[str, str],
    point: Point,
    call: Callable[[], None],
    budget: float,
    stop: Callable[[], bool],
    heartbeat: Callable[[float], None],
) -> Timing:
    latency = point.role == "latency"
    share = budget * (LATENCY_BUDGET_SHARE if latency else 1.0)

    def check() -> None:
        if stop():
            raise Stopped

    block = backend.timer(devices[point.timed_on], call, latency)
    timing = measure(
        block,
        budget=share,
        target_block_seconds=share / BLOCKS_PER_BUDGET,
        check=check,
        heartbeat=heartbeat,
    )
    timing.method = backend.method
    return timing


def run(
    backend: Backend,
    devices: list[str],
    *,
    latency_bytes: int,
    bandwidth_bytes: int,
    budget: float,
    send: Send,
    stop: Callable[[], bool] = lambda: False,
) -> int:
    """Measure every copy among ``devices`` and report each (``result``, ``skip``, progress and
    heartbeats through ``send``, the protocol's ``Channel.send``); the number of copies
    measured. Raises :class:`Stopped` when ``stop()`` turns true."""
    named = names_for(devices)
    names = list(named)
    size, note = fitting_size(backend, named, bandwidth_bytes)
    if note and size < latency_bytes:
        size = 0
    points, blocked = plan_points(names, backend.can_access_peer, latency_bytes, size)
    for src, dst in blocked:
        send(
            "skip",
            benchmark=BENCHMARK,
            device=src,
            reason=f"{src} cannot reach {dst} directly (no peer access): only the copy staged "
            "through host memory is measured between them",
            params={"path": "p2p", "src": src, "dst": dst},
        )
    if size == 0:
        send(
            "skip",
            benchmark=BENCHMARK,
            device=names[0],
            reason=note or "no memory for the bandwidth copies",
            params={"role": "bandwidth"},
        )
    buffers = Buffers(backend, named, max(size, latency_bytes))
    done = 0
    last_beat = [time.monotonic()]
    try:
        for index, point in enumerate(points):
            if stop():
                raise Stopped
            label = point.label()
            send(
                "progress",
                index=index,
                total=len(points),
                benchmark=BENCHMARK,
                device=point.timed_on,
            )
            send("heartbeat", label=label, fraction=0.0)
            call = copier(backend, buffers, named, point)

            def beat(fraction: float, label: str = label) -> None:
                if time.monotonic() - last_beat[0] >= HEARTBEAT_SECONDS:  # not once per block
                    last_beat[0] = time.monotonic()
                    send("heartbeat", label=label, fraction=fraction)

            timing = measure_point(backend, named, point, call, budget, stop, beat)
            wrong = check_copy(backend, buffers, named, point, call, index % 250 + 1)
            warnings = list(timing.warnings)
            if note and point.role == "bandwidth":
                warnings.append(note)
            if wrong:
                warnings.append(f"{wrong:,} of {point.size:,} bytes arrived wrong")
            send(
                "result",
                benchmark=BENCHMARK,
                variant=point.path,
                device=point.timed_on,
                dtype=None,
                params={
                    "src": point.src,
                    "dst": point.dst,
                    "bytes": point.size,
                    "role": point.role,
                },
                timing=timing.as_dict(),
                checks={"ok": wrong == 0, "wrong_bytes": wrong, "bytes_checked": point.size},
                warnings=warnings,
                scope="transfer",
                ended_seconds_ago=time.monotonic() - timing.timed_end,
            )
            done += 1
    finally:
        del buffers
        backend.release()
    return done
