"""Collective sizes and bandwidths as nccl-tests defines them: algbw = S / t, busbw = algbw × f.

Source: https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md — S is the bytes of
the whole operation (for all-gather and reduce-scatter the full array, n × the per-rank part), t
the time of one operation on the slowest rank, and the bus-bandwidth factor makes the figure
comparable with a link's hardware bandwidth whatever the number of ranks. Send/recv has factor 1
(nccl-tests ``src/sendrecv.cu``).
"""

from __future__ import annotations

from collections.abc import Callable

GB = 1e9  # decimal, as nccl-tests prints GB/s
SOURCE_URL = "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md"

OPERATIONS = (
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "broadcast",
    "all_to_all",
    "send_recv",
)
"""Every operation the comm suite measures, in the order it runs them."""

_FACTOR: dict[str, Callable[[int], float]] = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "all_to_all": lambda n: (n - 1) / n,
    "send_recv": lambda n: 1.0,
}

_SPLIT = frozenset({"all_gather", "reduce_scatter", "all_to_all"})
"""Operations whose array is cut into one equal part per rank."""


def busbw_factor(operation: str, ranks: int) -> float:
    """nccl-tests' correction from algorithm to bus bandwidth for ``ranks`` ranks."""
    if ranks < 1:
        raise ValueError(f"a collective needs at least one rank, got {ranks}")
    try:
        return _FACTOR[operation](ranks)
    except KeyError:
        raise ValueError(f"unknown operation {operation!r}") from None


def elements(operation: str, size_bytes: int, ranks: int, item_bytes: int) -> int:
    """Elements of the operation's whole array for a requested size: at least one per rank,
    and a multiple of ``ranks`` where the array is split between them."""
    count = max(1, size_bytes // item_bytes)
    if operation in _SPLIT:
        count = max(ranks, count - count % ranks)
    return count


def algbw_gbps(size_bytes: float, seconds: float) -> float:
    """Algorithm bandwidth in GB/s: S / t."""
    if seconds <= 0:
        raise ValueError(f"a time per operation must be positive, got {seconds}")
    return size_bytes / seconds / GB


def busbw_gbps(operation: str, size_bytes: float, seconds: float, ranks: int) -> float:
    """Bus bandwidth in GB/s: algbw × the operation's factor."""
    return algbw_gbps(size_bytes, seconds) * busbw_factor(operation, ranks)
