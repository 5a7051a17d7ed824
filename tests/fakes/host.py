"""A host reader with scripted CPU and memory readings: the same numbers on every machine."""

from __future__ import annotations

import threading

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.monitor.samples import CpuSample, MemorySample

GIB = 1024**3


class ScriptedHost:
    """Reading ``n`` gives every core a load that drifts with ``n``; memory wanders a little.

    Deterministic by call count, so a test that ticks the sampler itself gets the same history
    (and the same picture) every time. The first read waits until ``first_read`` is set, so a
    test decides what the sampler's own first tick carries (the GPUs, once NVML has opened).
    """

    def __init__(self, cores: int = 8, *, swap: bool = True) -> None:
        self.cores = cores
        self.swap = swap
        self.reads = 0
        self.first_read = threading.Event()
        self.first_read.set()

    def read(self) -> tuple[CpuSample, MemorySample]:
        if not self.first_read.wait(timeout=30):
            raise TimeoutError("the test never let the first reading through")
        n = self.reads
        self.reads += 1
        per_core = tuple(float((13 * core + 7 * n) % 97) for core in range(self.cores))
        cpu = CpuSample(
            percent=round(sum(per_core) / self.cores, 1),
            per_core_percent=per_core,
            frequency_mhz=2950.0,
            load_average=(3.25, 2.5, 1.75),
            temperature_c=Unknown("no temperature sensors are visible"),
        )
        used = (20 + n % 6) * GIB
        memory = MemorySample(
            total_bytes=64 * GIB,
            used_bytes=used,
            available_bytes=64 * GIB - used,
            swap_total_bytes=8 * GIB if self.swap else 0,
            swap_used_bytes=GIB if self.swap else 0,
        )
        return cpu, memory
