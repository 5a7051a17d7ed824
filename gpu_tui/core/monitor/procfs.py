"""Linux's /proc/stat and /proc/meminfo, re-read each tick through descriptors held open.

Why not psutil for these two: psutil opens the file on every call. On a VM, the first open
after the sampler's one-second sleep costs a third to half a millisecond of CPU, while
re-reading a descriptor already open costs a tenth of that (``scripts/bench_host_read.py``). The
sampler reads both files every tick, so this was most of its cost. Everything else, and every
other platform, stays with psutil; so does any /proc/meminfo that psutil would have to estimate.
"""

from __future__ import annotations

import os
import weakref
from dataclasses import dataclass

_FIRST_READ_BYTES = 16384
"""Enough for /proc/stat of a few dozen cores and for /proc/meminfo; larger files double it."""

# The fields of a "cpuN" line of /proc/stat, in order (proc(5)); psutil counts them the same.
_IDLE, _IOWAIT, _GUEST, _GUEST_NICE = 3, 4, 8, 9
_CPU_FIELDS = 10


class ProcFile:
    """One /proc file, opened once and read from the start on each ``read``.

    /proc files are generated afresh whenever they are read from offset 0, so a held
    descriptor sees new figures every time. It is closed by ``close`` or when collected.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDONLY)  # not inherited by child processes (PEP 446)
        self._size = _FIRST_READ_BYTES
        self._closer = weakref.finalize(self, os.close, self._fd)

    def read(self) -> bytes:
        data = os.pread(self._fd, self._size, 0)
        while len(data) == self._size:  # it may go on: read it again, whole, into more room
            self._size *= 2
            data = os.pread(self._fd, self._size, 0)
        return data

    def close(self) -> None:
        self._closer()


def busy_and_total(total: float, idle: float, guest: float) -> tuple[float, float]:
    """Busy and total time of one CPU from its summed times, counted as psutil counts them.

    Linux counts guest time inside user time too, so it is taken out of the total once.
    """
    total -= guest
    return total - idle, total


def cpu_times(stat: bytes) -> list[tuple[float, float]]:
    """Busy and total jiffies of each CPU in /proc/stat, in the order listed (online CPUs)."""
    times = []
    for line in stat.splitlines()[1:]:  # the first line sums all CPUs
        if not line.startswith(b"cpu"):
            break  # the per-CPU lines come together, straight after the first
        fields = [int(value) for value in line.split()[1 : _CPU_FIELDS + 1]]
        fields += [0] * (_CPU_FIELDS - len(fields))  # older kernels list fewer fields
        times.append(
            busy_and_total(
                sum(fields),
                idle=fields[_IDLE] + fields[_IOWAIT],
                guest=fields[_GUEST] + fields[_GUEST_NICE],
            )
        )
    return times


_MEMINFO_FIELDS = frozenset({b"MemTotal", b"MemAvailable", b"SwapTotal", b"SwapFree"})


@dataclass(frozen=True)
class Memory:
    """Memory and swap from /proc/meminfo, in bytes, as psutil reports them."""

    total: int
    available: int
    swap_total: int
    swap_free: int

    @property
    def used(self) -> int:
        return self.total - self.available  # as psutil 7 and procps's ``free`` count it

    @property
    def swap_used(self) -> int:
        return self.swap_total - self.swap_free


def memory(meminfo: bytes) -> Memory | None:
    """The figures in /proc/meminfo, or None where psutil would estimate one (old kernels,
    a zero MemAvailable, a container's distorted figures): let psutil do it then."""
    fields = {}
    for line in meminfo.splitlines():
        name, _, rest = line.partition(b":")
        if name in _MEMINFO_FIELDS:
            fields[name] = int(rest.split()[0]) * 1024  # listed in kB
    try:
        found = Memory(
            total=fields[b"MemTotal"],
            available=fields[b"MemAvailable"],
            swap_total=fields[b"SwapTotal"],
            swap_free=fields[b"SwapFree"],
        )
    except KeyError:
        return None
    if not 0 < found.available <= found.total:
        return None
    return found
