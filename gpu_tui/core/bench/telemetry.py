"""GPU clocks, power, temperature and throttle reasons from NVML during a bench run.

This is the rule "GPU telemetry while timed", stated in the bench package docstring
(``gpu_tui/core/bench/__init__.py``).
"""

from __future__ import annotations

import statistics
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from gpu_tui.core.bench.gpu_match import identities, match
from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.model import BackendStatus
from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.devices.nvml_guard import GATE, NotAnsweringError
from gpu_tui.core.devices.nvml_process import open_nvml
from gpu_tui.core.monitor.gpu_reader import DeviceReader
from gpu_tui.core.monitor.samples import GpuSample
from gpu_tui.core.units import format_temperature

INTERVAL_SECONDS = 0.25
READ_DEADLINE_SECONDS = 0.25
"""How long one reading waits for the driver (it runs on the runner's thread too, between the
worker's messages); a call still in flight keeps its own thread and the next reading waits no
longer than this for it."""
LIVE_SECONDS = 0.5  # the live line is redrawn at most twice a second
KEEP_READINGS = 4096  # ~17 min per GPU at 0.25 s: no result's window reaches further back
CALM = frozenset({"idle"})  # the one clocks-event reason that does not hold a busy GPU back
NOT_LOOKED_UP = Unknown("not looked up during a benchmark")


@dataclass(frozen=True)
class Reading:
    """One NVML reading of one GPU; None where NVML could not say."""

    at: float
    sm_clock_mhz: float | None = None
    memory_clock_mhz: float | None = None
    power_watts: float | None = None
    power_limit_watts: float | None = None
    temperature_c: float | None = None
    reasons: tuple[str, ...] = ()
    lost: bool = False

    @property
    def throttled(self) -> tuple[str, ...]:
        return tuple(r for r in self.reasons if r not in CALM)

    def to_dict(self) -> dict[str, Any]:
        return {
            "sm_clock_mhz": self.sm_clock_mhz,
            "memory_clock_mhz": self.memory_clock_mhz,
            "power_watts": self.power_watts,
            "power_limit_watts": self.power_limit_watts,
            "temperature_c": self.temperature_c,
            "throttle_reasons": list(self.reasons),
            "lost": self.lost,
        }

    def line(self) -> str:
        """``SM 1980 MHz · 612/700 W · 64 °C · power cap``; what NVML cannot say is left out."""
        if self.lost:
            return "GPU lost: NVML no longer answers for it"
        parts = []
        if self.sm_clock_mhz is not None:
            parts.append(f"SM {self.sm_clock_mhz:.0f} MHz")
        if self.power_watts is not None:
            limit = f"/{self.power_limit_watts:.0f}" if self.power_limit_watts else ""
            parts.append(f"{self.power_watts:.0f}{limit} W")
        if self.temperature_c is not None:
            parts.append(format_temperature(self.temperature_c))
        return " · ".join([*parts, *self.throttled])


def _number(value: Maybe[float]) -> float | None:
    return None if isinstance(value, Unknown) or value is None else float(value)


def reading_from(sample: GpuSample, at: float) -> Reading:
    reasons = sample.throttle_reasons
    return Reading(
        at=at,
        sm_clock_mhz=_number(sample.sm_clock_mhz),
        memory_clock_mhz=_number(sample.memory_clock_mhz),
        power_watts=_number(sample.power_watts),
        power_limit_watts=_number(sample.power_limit_watts),
        temperature_c=_number(sample.temperature_c),
        reasons=() if isinstance(reasons, Unknown) else tuple(reasons),
        lost=sample.lost,
    )


def summarise(readings: Sequence[Reading], start: float, end: float) -> dict[str, Any] | None:
    """What the GPU did between ``start`` and ``end``: SM/memory clock min and median, power and
    temperature max, every throttle reason seen. None when no reading falls inside."""
    inside = [r for r in readings if start <= r.at <= end]
    if not inside:
        return None
    live = [r for r in inside if not r.lost]

    def values(name: str) -> list[float]:
        return [v for v in (getattr(r, name) for r in live) if v is not None]

    def spread(name: str) -> dict[str, float] | None:
        found = values(name)
        return {"min": min(found), "median": statistics.median(found)} if found else None

    power, limit, temperature = (
        values("power_watts"),
        values("power_limit_watts"),
        values("temperature_c"),
    )
    reasons = list(dict.fromkeys(word for r in live for word in r.throttled))
    return {
        "samples": len(inside),
        "window_seconds": round(end - start, 4),
        "sm_clock_mhz": spread("sm_clock_mhz"),
        "memory_clock_mhz": spread("memory_clock_mhz"),
        "power_watts": {"max": max(power), "limit": max(limit) if limit else None}
        if power
        else None,
        "temperature_c": {"max": max(temperature)} if temperature else None,
        "throttle_reasons": reasons,
        "lost": len(live) < len(inside),
    }


def warning(summary: dict[str, Any] | None) -> str | None:
    """ "throttled: power cap (...)" when anything but idle held the clocks back, or a lost GPU."""
    if not summary:
        return None
    if summary.get("lost"):
        return "GPU lost during the measurement: NVML stopped answering for it"
    reasons = summary.get("throttle_reasons") or []
    if not reasons:
        return None
    facts = []
    clock, power = summary.get("sm_clock_mhz"), summary.get("power_watts")
    if clock:
        facts.append(f"SM clock down to {clock['min']:.0f} MHz")
    if power:
        limit = f"/{power['limit']:.0f}" if power.get("limit") else ""
        facts.append(f"up to {power['max']:.0f}{limit} W")
    if summary.get("temperature_c"):
        # Celsius whatever the unit shown: this note is stored with the result.
        facts.append(f"{summary['temperature_c']['max']:.0f} °C")
    return f"throttled: {', '.join(reasons)} ({', '.join(facts)}): the figure is held back"


def _no_process_names(pid: int) -> tuple[Maybe[str], Maybe[str]]:
    return NOT_LOOKED_UP, NOT_LOOKED_UP


class Telemetry:
    """Samples NVML for the run's GPUs on a daemon thread; never changes clocks or limits.

    Each GPU is read on a thread of its own with a deadline (``gpu_reader.DeviceReader``), so a
    driver that stops answering costs the readings, never the run: opening gives up after the
    NVML call limit, and a reading after ``READ_DEADLINE_SECONDS``.
    """

    def __init__(
        self, session: NvmlSession, devices: dict[str, int], interval: float = INTERVAL_SECONDS
    ) -> None:
        self.devices = devices
        self.interval = interval
        self._session = session
        self._readers = {
            device: DeviceReader(session, index, f"bench-telemetry-gpu{index}")
            for device, index in devices.items()
        }
        self._readings: dict[str, deque[Reading]] = {
            d: deque(maxlen=KEEP_READINGS) for d in devices
        }
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def open(
        cls,
        environment: dict[str, Any],
        nvml: ModuleType | None = None,
        interval: float = INTERVAL_SECONDS,
    ) -> tuple[Telemetry | None, dict[str, dict[str, Any]]]:
        """Telemetry for the ``cuda:N`` devices of a worker's environment record (with a
        "before" reading each), and one record per GPU for the environment. (None, {}) on a
        CPU-only run; None and the reason per GPU without NVML. Never raises."""
        gpus = [
            d for d in environment.get("devices") or [] if str(d.get("device")).startswith("cuda")
        ]
        if not gpus:
            return None, {}

        def unmatched(reason: str) -> dict[str, dict[str, Any]]:
            return {str(d["device"]): {"nvml_index": None, "reason": reason} for d in gpus}

        def start() -> tuple[NvmlSession | None, dict[str, dict[str, Any]]]:
            module, failure = open_nvml(nvml)
            if module is None:
                return None, unmatched((failure and failure.reason) or "NVML is not available")
            records = match(environment, identities(module))
            session = NvmlSession(module, BackendStatus("nvml", True), _no_process_names)
            return session, records

        try:
            session, records = GATE.run(start)
        except NotAnsweringError as hung:
            return None, unmatched(hung.reason)
        matched = {d: r["nvml_index"] for d, r in records.items() if r["nvml_index"] is not None}
        if session is None or not matched:
            if session is not None:
                session.close()
            return None, records
        telemetry = cls(session, matched, interval)
        for device in matched:
            records[device]["before"] = telemetry.sample(device).to_dict()
        return telemetry, records

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="bench-telemetry", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            for device in self.devices:
                self.sample(device)

    def sample(self, device: str) -> Reading:
        """Read this GPU now (thread-safe), waiting at most ``READ_DEADLINE_SECONDS``. A lost
        GPU is not asked again: it does not return. A driver that did not answer in time adds
        no reading (the last one comes back, or an empty one when there is none)."""
        with self._lock:
            kept = self._readings[device]
            if kept and kept[-1].lost:
                return kept[-1]
            reader = self._readers[device]
            gpu = reader.finish(READ_DEADLINE_SECONDS, wait=reader.begin())
            if gpu.stale:
                return kept[-1] if kept else Reading(at=time.monotonic())
            reading = reading_from(gpu, time.monotonic())
            kept.append(reading)
            return reading

    def latest(self) -> dict[str, Reading]:
        with self._lock:
            return {d: kept[-1] for d, kept in self._readings.items() if kept}

    def summary(self, device: str, start: float, end: float) -> dict[str, Any] | None:
        with self._lock:
            kept = list(self._readings.get(device, ()))
        return summarise(kept, start, end)

    def stop(self) -> dict[str, dict[str, Any]]:
        """Stop sampling; one last ("after") reading per GPU; close NVML (unless a reading is
        stuck in the driver: a shutdown racing it could hang too)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2 * self.interval + 1)
        after = {device: self.sample(device).to_dict() for device in self.devices}
        stuck = any(reader.busy for reader in self._readers.values())
        for reader in self._readers.values():
            reader.close()
        if not stuck:
            self._session.close()
        return after
