"""Fixed-length ring buffers of past readings, each with the fixed scale it is drawn against."""

from __future__ import annotations

import math
import threading
from array import array
from collections.abc import Iterator
from contextlib import contextmanager

from gpu_tui.core.fields import Maybe, Unknown
from gpu_tui.core.samples import GpuSample, Sample

DEFAULT_CAPACITY = 600
"""Ten minutes at the default 1 s refresh; enough for a full-width graph on a large screen."""

_NAN = math.nan


def _number(value: Maybe[float] | Maybe[int]) -> float | None:
    return None if isinstance(value, Unknown) else float(value)


class Series:
    """One metric's recent history: a ring of floats that never grows past ``capacity``.

    Unknown readings are kept as gaps (``None``) so a graph shows the hole instead of a made-up
    value. ``low``/``high`` are the fixed scale to draw against (``high`` is ``None`` until a
    limit is known, e.g. a GPU's power limit); graphs must not auto-scale to the data.
    """

    __slots__ = ("_appended", "_count", "_data", "_head", "_lock", "high", "low", "name", "unit")

    def __init__(
        self,
        name: str,
        unit: str,
        capacity: int,
        *,
        low: float = 0.0,
        high: float | None = None,
        lock: threading.RLock | None = None,
    ) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self.name = name
        self.unit = unit
        self.low = low
        self.high = high
        # A preallocated array of doubles: appending never allocates, so memory is flat forever.
        self._data = array("d", [_NAN]) * capacity
        self._head = 0
        self._count = 0
        self._appended = 0
        """Readings ever appended: tells a drawing how many are new since it last looked."""
        self._lock = lock if lock is not None else threading.RLock()

    @property
    def capacity(self) -> int:
        return len(self._data)

    def __len__(self) -> int:
        return self._count

    def append(self, value: float | None) -> None:
        """Add the newest reading (``None`` for unknown), dropping the oldest when full."""
        with self._lock:
            self.put_locked(value)

    def put_locked(self, value: float | None) -> None:
        """``append`` for a caller already holding the history's lock (the sampler, per tick)."""
        data = self._data
        head = self._head
        data[head] = _NAN if value is None else value
        head += 1
        self._head = 0 if head == len(data) else head
        self._appended += 1
        if self._count < len(data):
            self._count += 1

    def values(self, last: int | None = None) -> list[float | None]:
        """The readings held, oldest first (only the newest ``last`` when given: a graph
        ``last`` cells wide need not copy the whole ring each tick); ``None`` where unknown."""
        with self._lock:
            return self._newest(self._count if last is None else last)

    def newer(self, seen: int, last: int) -> tuple[int, list[float | None]]:
        """The readings appended since the first ``seen`` (at most the newest ``last``), and
        how many have been appended in all: a graph kept from the last tick adds only these."""
        with self._lock:
            return self._appended, self._newest(min(self._appended - seen, last))

    def _newest(self, last: int) -> list[float | None]:
        size = len(self._data)
        count = max(0, min(last, self._count))
        start = (self._head - count) % size
        end = start + count
        # At most two slices of the ring (copied in C), not one index sum per reading.
        raw = self._data[start:end].tolist()
        if end > size:
            raw += self._data[: end - size].tolist()
        return [None if v != v else v for v in raw]  # NaN marks an unknown reading

    def latest(self) -> float | None:
        """The newest reading, or ``None`` when empty or unknown."""
        with self._lock:
            if self._count == 0:
                return None
            value = self._data[(self._head - 1) % len(self._data)]
        return None if math.isnan(value) else value


class GpuHistory:
    """History of one GPU slot; the scales follow the limits the GPU itself reports."""

    def __init__(self, capacity: int, lock: threading.RLock) -> None:
        def series(name: str, unit: str, high: float | None) -> Series:
            return Series(name, unit, capacity, high=high, lock=lock)

        self.utilization_percent = series("GPU utilisation", "%", 100.0)
        self.memory_utilization_percent = series("memory controller", "%", 100.0)
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
            (self.sm_clock_mhz, "sm_clock_max_mhz"),
            (self.memory_clock_mhz, "memory_clock_max_mhz"),
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
        fresh = not (gpu.stale or gpu.lost)
        for target, field in self._fields:
            value = getattr(gpu, field) if fresh else None
            target.put_locked(None if value is None or isinstance(value, Unknown) else value)


class History:
    """Everything the Monitor pane graphs, for the last ``capacity`` ticks.

    The sampler thread appends; the UI reads. Each ``Series`` read is consistent on its own;
    hold ``locked()`` to read several series of the same tick together.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY, *, max_gpus: int = 64) -> None:
        self.capacity = capacity
        self._max_gpus = max_gpus
        self._lock = threading.RLock()
        self.timestamps = self._series("time", "s", None)
        self.cpu_percent = self._series("CPU", "%", 100.0)
        self.cpu_cores: tuple[Series, ...] = ()
        self.cpu_frequency_mhz = self._series("CPU clock", "MHz", None)
        self.cpu_temperature_c = self._series("CPU temperature", "°C", 100.0)
        self.load_average_1m = self._series("load (1 min)", "", None)
        self.memory_used_bytes = self._series("memory used", "B", None)
        self.swap_used_bytes = self._series("swap used", "B", None)
        self.gpus: list[GpuHistory] = []
        """One per GPU slot, in the order of ``Sample.gpus``."""

    def _series(self, name: str, unit: str, high: float | None) -> Series:
        return Series(name, unit, self.capacity, high=high, lock=self._lock)

    @contextmanager
    def locked(self) -> Iterator[History]:
        """Hold off the sampler while reading several series of the same ticks."""
        with self._lock:
            yield self

    def all_series(self) -> tuple[Series, ...]:
        """Every ring held (for tests and memory accounting)."""
        with self._lock:
            mine = (
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

    def append(self, sample: Sample) -> None:
        """Record one tick."""
        with self._lock:
            self.timestamps.put_locked(sample.timestamp)
            self._append_host(sample)
            for slot, gpu in enumerate(sample.gpus[: self._max_gpus]):
                if slot == len(self.gpus):
                    self.gpus.append(GpuHistory(self.capacity, self._lock))
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
                self._series(f"core {i}", "%", 100.0) for i in range(len(cpu.per_core_percent))
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
