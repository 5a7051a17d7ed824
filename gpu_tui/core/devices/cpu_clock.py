"""The clock the CPU cores really run at, measured: a timed chain of dependent adds.

A CPU's peak is cores × clock × FLOP per cycle, and the clock is the uncertain part: in a VM
``/proc/cpuinfo`` gives the nominal clock (2.6 GHz) while the cores boost well past it, and a
GEMM then reaches "128 % of peak". Each ``add`` in the chain needs the one before it, so the chain
runs at one add per cycle whatever the core's width: adds per second is cycles per second. The
adds take a register, not a constant: Intel's cores since Golden Cove fold a chain of
add-a-constant at register renaming, several per cycle (an Emerald Rapids Xeon "ran at 10 GHz").
The
chain is a few bytes of machine code (x86-64 or AArch64) called through ctypes, which lets go of
the GIL, so it runs on every core at once, as a GEMM loads them; each thread keeps its best of
many short runs (a run the hypervisor paused counts for nothing), and the clock is the median
thread's. It measures the scalar clock: a core that slows down for wide vector work runs a GEMM
slower still, so a peak from this clock is, if anything, high, and a figure over it is a real
finding. Where no code can be made executable (another architecture, a hardened kernel), the
clock is not measured and the caller keeps the clock it was told.
"""

from __future__ import annotations

import ctypes
import functools
import mmap
import platform
import statistics
import struct
import threading
import time
from collections.abc import Callable

ADDS_PER_PASS = 64
PASSES_PER_RUN = 20_000
"""About 0.4 ms per run at 3 GHz: short enough that most runs are not interrupted."""
RUNS_PER_THREAD = 25
FASTEST_MHZ = 7000
"""No CPU holds a clock above this: a chain that ran faster was shortened by the core (a kind
of folding not known here), so it measured no clock."""


def _x86_64() -> bytes:
    add = b"\x48\x01\xd0"  # add rax, rdx
    body = add * ADDS_PER_PASS + b"\x48\xff\xc9"  # dec rcx
    back = struct.pack("<i", -(len(body) + 6))  # jnz rel32 to the first add
    # mov rcx, rdi (the pass count); xor eax, eax; mov edx, 1
    start = b"\x48\x89\xf9" + b"\x31\xc0" + b"\xba\x01\x00\x00\x00"
    return start + body + b"\x0f\x85" + back + b"\xc3"


def _aarch64() -> bytes:
    def word(value: int) -> bytes:
        return struct.pack("<I", value)

    body = word(0x8B020000) * ADDS_PER_PASS + word(0xF1000421)  # add x0, x0, x2; subs x1, x1, #1
    back = (-(len(body) // 4)) & 0x7FFFF
    branch = word(0x54000001 | back << 5)  # b.ne to the first add
    start = word(0xAA0003E1) + word(0xD2800000) + word(0xD2800022)  # x1 = passes, x0 = 0, x2 = 1
    return start + body + branch + word(0xD65F03C0)  # ret


_CODE = {"x86_64": _x86_64, "amd64": _x86_64, "aarch64": _aarch64, "arm64": _aarch64}


def _chain() -> tuple[mmap.mmap, Callable[[int], int]] | None:
    """The add chain as a function of its pass count (and the memory it lives in), or None."""
    make = _CODE.get(platform.machine().lower())
    if make is None:
        return None
    try:
        memory = mmap.mmap(
            -1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC
        )
    except (OSError, AttributeError, ValueError):  # no PROT_EXEC here, or refused (SELinux)
        return None
    memory.write(make())
    address = ctypes.addressof(ctypes.c_char.from_buffer(memory))
    function = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64)(address)
    if function(3) != 3 * ADDS_PER_PASS:  # the code did not do what it says: do not trust it
        return None
    return memory, function


def _best_mhz(chain: Callable[[int], int], runs: int) -> float:
    best = 0.0
    for _ in range(runs):
        started = time.perf_counter()
        chain(PASSES_PER_RUN)
        took = time.perf_counter() - started
        if took > 0:
            best = max(best, PASSES_PER_RUN * ADDS_PER_PASS / took / 1e6)
    return best


@functools.lru_cache(maxsize=8)
def sustained_clock_mhz(threads: int, runs: int = RUNS_PER_THREAD) -> float | None:
    """The cores' clock with ``threads`` of them busy at once, in MHz; None when it cannot be
    measured here. Takes about ``runs`` × 0.5 ms, once per process: the inventory is read
    again and again (each bench run's peak), and the clock a loaded moment gave would make
    each peak differ."""
    made = _chain()
    if made is None:
        return None
    _memory, chain = made  # the memory must outlive every call
    found: list[float] = []
    workers = [
        threading.Thread(target=lambda: found.append(_best_mhz(chain, runs)), daemon=True)
        for _ in range(max(1, threads))
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    mhz = statistics.median(found) if found else None
    return mhz if mhz is not None and mhz < FASTEST_MHZ else None
