"""Bounded history of past readings: a fine ring per metric, and coarser rings of min and max."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.monitor.history_series import DEFAULT_CAPACITY, TIERS, Series
from gpu_tui.core.monitor.samples import GpuSample, Sample

__all__ = ["CORE_CAPACITY", "DEFAULT_CAPACITY", "TIERS", "GpuHistory", "History", "Series"]

CORE_CAPACITY = 600
"""Per-core rings are short and have no coarse rings: the cores are drawn as they are now."""


def _number(value: Maybe[float] | Maybe[int]) -> float | None:
    return None if isinstance(value, Unknown) else float(value)


class GpuHistory:
    """History of one GPU slot; the scales follow the limits the GPU itself reports."""

    def __init__(self, capacity: int, lock: threading.RLock, start: int, clock: Series) -> None:
        def series(name: str, unit: str, high: float | None) -> Series:
            return Series(name, unit, capacity, high=high, lock=lock, start=start, clock=clock)

        self.utilization_percent = series("GPU busy", "%", 100.0)
        self.memory_utilization_percent = series("memory controller busy", "%", 100.0)
        self.memory_used_bytes = series("VRAM used", "B", None)
        # 100 °C until the slowdown threshold is known: a fixed scale either way.
        self.temperature_c = series("temperature", "°C", 100.0)
        self.power_watts = series("power", "W", None)
        self.sm_clock_mhz = series("SM clock", "MHz", None)
        self.memory_clock_mhz = series("memory clock", "MHz", None)
        self.fan_percent = series("fan", "%", 100.0)
        self.pcie_rx_bytes_per_second = series("PCIe rx", "B/s", None)
        self.pcie_tx_bytes_per_second = series("PCIe tx", "B/s", None)
        self.encoder_percent = series("encoder", "%", 100.0)
        self.decoder_percent = series("decoder", "%", 100.0)
        # Each ring is named after the GpuSample field it records; these fields set a scale.
        self._fields = tuple((s, name) for name, s in vars(self).items() if isinstance(s, Series))
        self._limits = (
            (self.memory_used_bytes, "memory_total_bytes"),
            (self.temperature_c, "temperature_slowdown_c"),
            (self.power_watts, "power_limit_watts"),
            (self.sm_clock_mhz, "max_sm_clock_mhz"),
            (self.memory_clock_mhz, "max_memory_clock_mhz"),
        )

    def all_series(self) -> tuple[Series, ...]:
        return tuple(series for series, _ in self._fields)

    def append(self, gpu: GpuSample) -> None:
        """Record one reading; the caller holds the history's lock."""
        for target, limit_field in self._limits:
            limit = getattr(gpu, limit_field)
            if not isinstance(limit, Unknown) and limit > 0:
                target.high = float(limit)
        # A stale or lost reading repeats old values; record a gap rather than a flat line.
        fresh = not (gpu.stale or gpu.lost or gpu.not_in_job)
        for target, field in self._fields:
            value = getattr(gpu, field) if fresh else None
            target.put_locked(None if value is None or isinstance(value, Unknown) else value)


class History:
    """Everything the Monitor pane graphs: the last ``capacity`` ticks in full, older ones as
    the lowest and highest reading per bucket (``TIERS``), in memory fixed at the first tick.

    Time on the graphs is sampling time: each tick lasts the refresh interval it was taken at
    (``elapsed``), so a graph's time axis stays right when the interval changes, and ticks a
    test or benchmark drives by hand are spaced as the live ones are.

    The sampler thread appends; the UI reads. Each ``Series`` read is consistent on its own;
    hold ``locked()`` to read several series of the same tick together.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY, *, max_gpus: int = 64) -> None:
        self.capacity = capacity
        self._max_gpus = max_gpus
        self._lock = threading.RLock()
        self.elapsed = Series("sampling time", "ms", capacity, lock=self._lock)
        """When each tick began, in milliseconds of sampling (the sum of the intervals before)."""
        self.now_ms = 0.0
        """When the newest tick ends: its start plus its interval."""
        self.timestamps = self._series("time", "s", None)
        self.cpu_percent = self._series("CPU", "%", 100.0)
        self.cpu_cores: tuple[Series, ...] = ()
        self.cpu_frequency_mhz = self._series("CPU clock", "MHz", None)
        self.cpu_temperature_c = self._series("CPU temperature", "°C", 100.0)
        self.load_average_1m = self._series("load (1 min)", "", None)
        self.memory_used_bytes = self._series("RAM used", "B", None)
        self.swap_used_bytes = self._series("swap used", "B", None)
        self.gpus: list[GpuHistory] = []
        """One per GPU slot, in the order of ``Sample.gpus``."""

    def _series(self, name: str, unit: str, high: float | None) -> Series:
        return Series(name, unit, self.capacity, high=high, lock=self._lock, clock=self.elapsed)

    @contextmanager
    def locked(self) -> Iterator[History]:
        """Hold off the sampler while reading several series of the same ticks."""
        with self._lock:
            yield self

    @property
    def ticks(self) -> int:
        """Ticks recorded in all."""
        return self.elapsed.end

    def all_series(self) -> tuple[Series, ...]:
        """Every ring held (for tests and memory accounting)."""
        with self._lock:
            mine = (
                self.elapsed,
                self.timestamps,
                self.cpu_percent,
                self.cpu_frequency_mhz,
                self.cpu_temperature_c,
                self.load_average_1m,
                self.memory_used_bytes,
                self.swap_used_bytes,
            )
            gpus = tuple(s for gpu in self.gpus for s in gpu.all_series())
            return mine + self.cpu_cores + gpus

    def append(self, sample: Sample, interval: float = 1.0) -> None:
        """Record one tick, taken at a refresh ``interval`` (seconds)."""
        with self._lock:
            tick = self.elapsed.end
            self.elapsed.put_locked(self.now_ms)
            self.now_ms += round(interval * 1000)
            self.timestamps.put_locked(sample.timestamp)
            self._append_host(sample)
            for slot, gpu in enumerate(sample.gpus[: self._max_gpus]):
                if slot == len(self.gpus):
                    self.gpus.append(GpuHistory(self.capacity, self._lock, tick, self.elapsed))
                self.gpus[slot].append(gpu)
            # A slot missing from this tick gets a gap, so all rings stay aligned in time.
            for gpu_history in self.gpus[len(sample.gpus) :]:
                for missing in gpu_history.all_series():
                    missing.put_locked(None)

    def _append_host(self, sample: Sample) -> None:
        cpu, memory = sample.cpu, sample.memory
        if not self.cpu_cores:
            # The core count is fixed at the first tick; hot-plugged cores are not tracked.
            self.cpu_cores = tuple(
                Series(
                    f"core {i}",
                    "%",
                    min(self.capacity, CORE_CAPACITY),
                    high=100.0,
                    lock=self._lock,
                    tiers=(),
                    start=self.elapsed.end - 1,
                    clock=self.elapsed,
                )
                for i in range(len(cpu.per_core_percent))
            )
            # Load equal to the core count means every core busy: the natural full scale.
            self.load_average_1m.high = float(len(self.cpu_cores)) or None
        self.cpu_percent.put_locked(cpu.percent)
        cores = cpu.per_core_percent
        for i, core in enumerate(self.cpu_cores):
            core.put_locked(cores[i] if i < len(cores) else None)
        self.cpu_frequency_mhz.put_locked(_number(cpu.frequency_mhz))
        self.cpu_temperature_c.put_locked(_number(cpu.temperature_c))
        load = cpu.load_average
        self.load_average_1m.put_locked(None if isinstance(load, Unknown) else load[0])
        self.memory_used_bytes.high = float(memory.total_bytes) or None
        self.memory_used_bytes.put_locked(float(memory.used_bytes))
        self.swap_used_bytes.high = float(memory.swap_total_bytes) or None
        self.swap_used_bytes.put_locked(float(memory.swap_used_bytes))
