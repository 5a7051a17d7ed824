"""% of theoretical peak, using gpu-tui's inventory and peak tables when present.

**% of peak, checked** — a figure is shown against the device's theoretical peak for the
same kind of work (the dtype's compute rate, memory bandwidth, or the PCIe link), and a
percentage above 100 % (a wrong peak, work count or a cache effect) or under 10 % (a small
problem, or something misconfigured) carries a warning instead of passing silently.
"""

from __future__ import annotations

from typing import Any

from gpu_tui.core.bench.formulas import Figure, pcie_gbps
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.units import format_reading_percent

ABOVE = 100.0
BELOW = 10.0


def _known(value: Any) -> float | None:
    return None if value is None or isinstance(value, Unknown) else float(value)


def cpu_peak_gflops() -> float | None:
    """The CPU's fp32 peak from the inventory (None while unknown or not yet available)."""
    try:
        from gpu_tui.core.devices.cpu import read_cpu
    except ImportError:  # the inventory lands separately; until then the peak is just unknown
        return None
    try:
        return _known(read_cpu().peak.gflops)
    except Exception:  # a peak is a nicety: never let it break a benchmark run
        return None


def gpu_peaks(device: dict[str, Any]) -> Any:
    """``Peaks`` for a worker device record, or None when gpu-tui's peak tables are missing."""
    try:
        from gpu_tui.core.devices.peaks import gpu_peaks as compute
    except ImportError:
        return None
    try:
        return compute(
            vendor=device.get("vendor") or "NVIDIA",
            name=device.get("name") or "",
            compute_capability=device.get("compute_capability") or Unknown("not reported"),
            sm_count=device.get("sm_count") or Unknown("not reported by torch"),
            max_sm_clock_mhz=_mhz(device.get("max_sm_clock_mhz")),
            max_memory_clock_mhz=_mhz(device.get("max_memory_clock_mhz")),
            memory_bus_width_bits=device.get("memory_bus_width_bits")
            or Unknown("not reported by torch"),
        )
    except Exception:
        return None


def _mhz(value: Any) -> int | Unknown:
    # torch reports kHz (the worker divides); CUDA 13 no longer fills these fields
    return round(float(value)) if value else Unknown("clock not reported by torch")


class PeakTable:
    """Peaks per device of one run, looked up once from the worker's environment record."""

    def __init__(
        self, environment: dict[str, Any], *, pcie: dict[str, float] | None = None
    ) -> None:
        self._peaks: dict[tuple[str, str], float] = {}
        for device in environment.get("devices") or []:
            name = device.get("device", "")
            if name == "cpu":
                gflops = cpu_peak_gflops()
                if gflops:
                    self._peaks[("cpu", "fp32")] = gflops
                continue
            peaks = gpu_peaks(device)
            if peaks is None:
                continue
            for kind in ("fp32", "tf32", "fp16", "bf16", "fp8"):
                value = _known(getattr(peaks, f"{kind}_tflops", None))
                if value:
                    self._peaks[(name, kind)] = value
            bandwidth = _known(getattr(peaks, "memory_bandwidth_gb_per_second", None))
            if bandwidth:
                self._peaks[(name, "memory")] = bandwidth
        for name, gbps in (pcie or {}).items():
            self._peaks[(name, "pcie")] = gbps

    def set(self, device: str, kind: str, value: float) -> None:
        self._peaks[(device, kind)] = value

    def lookup(self, device: str, kind: str | None) -> float | None:
        return None if kind is None else self._peaks.get((device, kind))

    def percent(self, device: str, figure: Figure) -> tuple[float | None, list[str]]:
        """% of peak and the warnings it raises (above 100 %, below 10 %)."""
        peak = self.lookup(device, figure.peak_kind)
        if not peak:
            return None, []
        percent = 100.0 * figure.value / peak
        if percent > ABOVE:
            return percent, [
                f"{format_reading_percent(percent)} of peak: above 100 % means a wrong peak "
                "(sparse figure, clock assumption), a wrong work count, or a cache effect"
            ]
        if percent < BELOW:
            share = format_reading_percent(percent, 1)
            return percent, [f"{share} of peak: a small problem, or misconfigured"]
        return percent, []


NVML_FIELDS = (
    "pci_bus_id",
    "pcie_generation_current",
    "pcie_generation_max",
    "pcie_width_current",
    "pcie_width_max",
    "power_limit_watts",
    "ecc_enabled",
    "mig_enabled",
    "persistence_mode",
    "vbios_version",
)


def nvml_facts(environment: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """What NVML adds to the worker's record (see the package docstring's "Host↔device copies,
    pinned and pageable" and "One environment record per run"), per cuda device matched by UUID:
    PCIe link (current and max), power limit, ECC, MIG, driver. Empty without NVML."""
    uuids = {d.get("uuid"): d["device"] for d in environment.get("devices") or [] if d.get("uuid")}
    if not uuids:
        return {}
    try:
        from gpu_tui.core.devices import discover

        inventory = discover()
    except Exception:  # no NVML, or no inventory: these facts stay unknown, the run goes on
        return {}
    nvml = getattr(inventory, "backends", {}).get("nvml")
    driver = dict(getattr(nvml, "details", None) or {})
    found: dict[str, dict[str, Any]] = {}
    for gpu in getattr(inventory, "accelerators", []):
        uuid = _known_str(getattr(gpu, "uuid", None))
        device = next((dev for u, dev in uuids.items() if uuid and uuid in str(u)), None)
        if device:
            facts = {name: _plain(getattr(gpu, name, None)) for name in NVML_FIELDS}
            found[device] = {**facts, **driver}
    return found


def pcie_peaks(facts: dict[str, dict[str, Any]]) -> dict[str, float]:
    """One-direction PCIe peak per device from its maximum link (links downtrain at idle)."""
    found: dict[str, float] = {}
    for device, fact in facts.items():
        generation, lanes = fact.get("pcie_generation_max"), fact.get("pcie_width_max")
        gbps = pcie_gbps(int(generation), int(lanes)) if generation and lanes else None
        if gbps:
            found[device] = gbps
    return found


def _plain(value: Any) -> Any:
    return None if isinstance(value, Unknown) else value


def _known_str(value: Any) -> str | None:
    return None if value is None or isinstance(value, Unknown) else str(value).replace("GPU-", "")
