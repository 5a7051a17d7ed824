"""The comm suite's operations on torch.distributed: buffers, one call, and a check of the result.

Each rank's input holds small whole numbers (``i % 4 + 1 + rank``) so that every expected result
is exact in fp32, fp16 and bf16 alike (sums stay far below 256): a check counts wrong elements
with no tolerance, as nccl-tests' ``#wrong`` column does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp64": "float64"}
ITEM_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2, "fp64": 8}


@dataclass
class Operation:
    """One collective ready to run: ``call()`` runs it once, ``check()`` counts wrong elements."""

    call: Callable[[], object]
    fill: Callable[[], None]
    check: Callable[[], int]


def count_for(operation: str, size_bytes: int, ranks: int, item_bytes: int) -> int:
    """Elements of the whole array for a requested size: at least one per rank, and a multiple
    of the ranks where the array is split (gpu-tui's ``core.comm.bandwidth.elements``)."""
    count = max(1, size_bytes // item_bytes)
    if operation in ("all_gather", "reduce_scatter", "all_to_all"):
        count = max(ranks, count - count % ranks)
    return count


def footprint_bytes(size_bytes: int, item_bytes: int) -> int:
    """Memory one rank needs for a point of ``size_bytes``: its input and output buffers, and
    the float64 copies of the result and the exact answer that the check compares."""
    return 2 * size_bytes + 2 * (size_bytes // item_bytes) * 8


def _pattern(torch: Any, count: int, rank: int, dtype: Any, device: str) -> Any:
    return (torch.arange(count, device=device) % 4 + 1 + rank).to(dtype)


def _wrong(torch: Any, got: Any, expected: Any) -> int:
    return int((got.to(torch.float64) != expected.to(torch.float64)).sum().item())


def _api(dist: Any, new: str, old: str) -> Any:
    # torch 2.13 renamed the tensor forms (all_gather_single, reduce_scatter_single)
    return getattr(dist, new, None) or getattr(dist, old)


def build(torch: Any, dist: Any, name: str, count: int, dtype_name: str, device: str) -> Operation:
    """``count`` elements of the whole array (a multiple of the ranks where it is split)."""
    rank, ranks = dist.get_rank(), dist.get_world_size()
    dtype = getattr(torch, DTYPES[dtype_name])
    part = count // ranks
    if name == "all_reduce":
        buf = torch.empty(count, dtype=dtype, device=device)
        total = sum(range(ranks))

        def fill() -> None:
            buf.copy_(_pattern(torch, count, rank, dtype, device))

        def expected() -> Any:
            base = torch.arange(count, device=device) % 4 + 1
            return base * ranks + total

        return Operation(lambda: dist.all_reduce(buf), fill, lambda: _wrong(torch, buf, expected()))
    if name == "broadcast":
        buf = torch.empty(count, dtype=dtype, device=device)

        def fill() -> None:
            buf.copy_(_pattern(torch, count, rank, dtype, device))

        return Operation(
            lambda: dist.broadcast(buf, 0),
            fill,
            lambda: _wrong(torch, buf, _pattern(torch, count, 0, dtype, device)),
        )
    if name == "all_gather":
        send = torch.empty(part, dtype=dtype, device=device)
        recv = torch.empty(count, dtype=dtype, device=device)
        gather = _api(dist, "all_gather_single", "all_gather_into_tensor")

        def fill() -> None:
            send.copy_(_pattern(torch, part, rank, dtype, device))
            recv.zero_()

        def expected() -> Any:
            return torch.cat([_pattern(torch, part, r, dtype, device) for r in range(ranks)])

        return Operation(lambda: gather(recv, send), fill, lambda: _wrong(torch, recv, expected()))
    if name == "reduce_scatter":
        send = torch.empty(count, dtype=dtype, device=device)
        recv = torch.empty(part, dtype=dtype, device=device)
        scatter = _api(dist, "reduce_scatter_single", "reduce_scatter_tensor")
        total = sum(range(ranks))

        def fill() -> None:
            send.copy_(_pattern(torch, count, rank, dtype, device))
            recv.zero_()

        def expected() -> Any:
            base = torch.arange(count, device=device) % 4 + 1
            return (base * ranks + total)[rank * part : (rank + 1) * part]

        return Operation(lambda: scatter(recv, send), fill, lambda: _wrong(torch, recv, expected()))
    if name == "all_to_all":
        send = torch.empty(count, dtype=dtype, device=device)
        recv = torch.empty(count, dtype=dtype, device=device)

        def fill() -> None:
            # part j of rank r's input goes to rank j: tag it with the sender
            send.copy_(_pattern(torch, count, rank, dtype, device))
            recv.zero_()

        def expected() -> Any:
            return torch.cat(
                [
                    _pattern(torch, count, r, dtype, device)[rank * part : (rank + 1) * part]
                    for r in range(ranks)
                ]
            )

        return Operation(
            lambda: dist.all_to_all_single(recv, send),
            fill,
            lambda: _wrong(torch, recv, expected()),
        )
    if name == "send_recv":
        # as nccl-tests' sendrecv: every rank sends to the next and receives from the previous
        send = torch.empty(count, dtype=dtype, device=device)
        recv = torch.empty(count, dtype=dtype, device=device)
        after, before = (rank + 1) % ranks, (rank - 1) % ranks

        def call() -> None:
            ops = [dist.P2POp(dist.isend, send, after), dist.P2POp(dist.irecv, recv, before)]
            for request in dist.batch_isend_irecv(ops):
                request.wait()

        def fill() -> None:
            send.copy_(_pattern(torch, count, rank, dtype, device))
            recv.zero_()

        return Operation(
            call, fill, lambda: _wrong(torch, recv, _pattern(torch, count, before, dtype, device))
        )
    raise ValueError(f"unknown operation {name!r}")
