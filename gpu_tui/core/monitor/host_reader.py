"""Reads CPU load, clock, temperature, memory and swap for one sampler tick.

psutil does the reading, except on Linux for CPU times, memory and swap, which come from
descriptors held open on /proc/stat and /proc/meminfo (``procfs``: why, and what it costs).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, cast

import psutil

from gpu_tui.core.devices.fields import Maybe, Unknown, attempt
from gpu_tui.core.monitor import procfs
from gpu_tui.core.monitor.samples import CpuSample, MemorySample

T = TypeVar("T")

SLOW_SECONDS = 5.0
"""How often readings that change slowly are read again, not every tick: the CPU clock (psutil
reads a file per core, or all of /proc/cpuinfo: milliseconds a tick with hundreds of cores) and,
where psutil reads it, swap (all of /proc/vmstat: a fifth of a millisecond from cold caches)."""

# Sensor names, most specific first, that report the CPU package rather than a disk or NIC.
_CPU_SENSORS = ("coretemp", "k10temp", "zenpower", "cpu_thermal", "cpu-thermal", "acpitz")


class HostReader(Protocol):
    """What the sampler needs to read the host (a fake in tests)."""

    def read(self) -> tuple[CpuSample, MemorySample]: ...


def _busy_and_total(times: Any) -> tuple[float, float]:
    """Busy and total time of one CPU from psutil, counted the way psutil's cpu_percent does."""
    return procfs.busy_and_total(
        float(sum(times)),
        idle=times.idle + getattr(times, "iowait", 0.0),
        guest=getattr(times, "guest", 0.0) + getattr(times, "guest_nice", 0.0),
    )


def _percent(before: tuple[float, float], after: tuple[float, float]) -> float:
    busy = after[0] - before[0]
    total = after[1] - before[1]
    if total <= 0:
        return 0.0  # no time has passed on this CPU's clock: nothing ran
    return round(min(100.0, max(0.0, 100.0 * busy / total)), 1)


def _describe(error: Exception) -> str:
    return f"psutil could not read it ({type(error).__name__}: {error})"


class LiveHostReader:
    """Reads this machine, keeping its own CPU-time baseline.

    psutil's ``cpu_percent(interval=None)`` shares one module-wide baseline with every other
    caller in the process; diffing our own CPU times keeps the sampler's numbers exact.
    The baseline is taken at construction, so the first ``read`` covers the time since then.
    ``use_procfs=False`` reads everything through psutil, as on other platforms.
    """

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, *, use_procfs: bool = True
    ) -> None:
        self._stat = _held("/proc/stat") if use_procfs else None
        self._meminfo = _held("/proc/meminfo") if use_procfs else None
        self._previous = self._cpu_times()
        self._sensor: tuple[str, str] | Unknown | None = None
        self._frequency_known = True
        self._clock = clock
        self._slow: dict[str, tuple[float, Any]] = {}
        """Slow readings by name: when each was read, and what it said (``SLOW_SECONDS``)."""

    def _cpu_times(self) -> list[tuple[float, float]]:
        if self._stat is not None:
            return procfs.cpu_times(self._stat.read())
        return [_busy_and_total(t) for t in psutil.cpu_times(percpu=True)]

    def read(self) -> tuple[CpuSample, MemorySample]:
        """One reading of CPU and memory."""
        return self.read_cpu(), self.read_memory()

    def read_cpu(self) -> CpuSample:
        now = self._cpu_times()
        before = self._previous
        self._previous = now
        per_core = tuple(_percent(b, a) for b, a in zip(before, now, strict=False)) + (0.0,) * max(
            0, len(now) - len(before)
        )
        overall = _percent(
            (sum(b for b, _ in before), sum(t for _, t in before)),
            (sum(b for b, _ in now), sum(t for _, t in now)),
        )
        return CpuSample(
            percent=overall,
            per_core_percent=per_core,
            frequency_mhz=self._slowly("frequency", self._frequency),
            load_average=attempt(os.getloadavg, _describe),
            temperature_c=self._temperature(),
        )

    def read_memory(self) -> MemorySample:
        found = procfs.memory(self._meminfo.read()) if self._meminfo is not None else None
        if found is not None:
            return MemorySample(
                total_bytes=found.total,
                used_bytes=found.used,
                available_bytes=found.available,
                swap_total_bytes=found.swap_total,
                swap_used_bytes=found.swap_used,
            )
        memory = psutil.virtual_memory()
        swap = self._slowly("swap", psutil.swap_memory)
        return MemorySample(
            total_bytes=int(memory.total),
            used_bytes=int(memory.used),
            available_bytes=int(memory.available),
            swap_total_bytes=int(swap.total),
            swap_used_bytes=int(swap.used),
        )

    def _slowly(self, name: str, read: Callable[[], T]) -> T:
        """``read()``, or what it said less than ``SLOW_SECONDS`` ago."""
        now = self._clock()
        kept = self._slow.get(name)
        if kept is None or now - kept[0] >= SLOW_SECONDS:
            kept = self._slow[name] = now, read()
        return cast(T, kept[1])

    def _frequency(self) -> Maybe[float]:
        if not self._frequency_known:
            return Unknown("this system does not report the CPU clock")
        try:
            frequency = psutil.cpu_freq()
        except Exception as error:  # psutil raises different errors per platform
            return Unknown(_describe(error))
        if frequency is None or frequency.current <= 0:
            self._frequency_known = False  # it will not appear later; stop asking each tick
            return Unknown("this system does not report the CPU clock")
        return round(float(frequency.current), 1)

    def _temperature(self) -> Maybe[float]:
        if isinstance(self._sensor, Unknown):
            return self._sensor
        read = getattr(psutil, "sensors_temperatures", None)
        if read is None:
            self._sensor = Unknown("psutil cannot read temperatures on this platform")
            return self._sensor
        try:
            sensors: dict[str, Sequence[Any]] = read()
        except Exception as error:
            return Unknown(_describe(error))
        if self._sensor is None:
            self._sensor = _pick_sensor(sensors)
            if isinstance(self._sensor, Unknown):
                return self._sensor
        name, label = self._sensor
        for entry in sensors.get(name, ()):
            if entry.label == label:
                return round(float(entry.current), 1)
        return Unknown(f"sensor {name} {label!r} stopped reporting")


def _held(path: str) -> procfs.ProcFile | None:
    """``path`` held open, or None where it cannot be read."""
    try:
        return procfs.ProcFile(path)
    except OSError:  # not Linux, or /proc not mounted: psutil knows the other ways
        return None


def _pick_sensor(sensors: dict[str, Sequence[Any]]) -> tuple[str, str] | Unknown:
    """The CPU package sensor (its first entry is the package on coretemp and k10temp)."""
    for name in _CPU_SENSORS:
        entries = sensors.get(name)
        if entries:
            return name, str(entries[0].label)
    if not sensors:
        return Unknown("no temperature sensors are visible (common in VMs and containers)")
    return Unknown(f"no CPU sensor among {', '.join(sorted(sensors))}")
