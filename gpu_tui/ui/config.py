"""How the app was asked to start; every pane receives it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING

from gpu_tui.core.devices.model import Inventory

if TYPE_CHECKING:  # psutil stays out of start-up until the Monitor pane opens
    from gpu_tui.core.fleet.model import FleetSnapshot
    from gpu_tui.core.monitor.host_reader import HostReader


@dataclass(frozen=True)
class AppConfig:
    """Start-up options. Tests pass a fixed ``discover`` so no real hardware is read."""

    demo: bool = False
    pane: str = "specs"
    refresh_seconds: float = 1.0
    discover: Callable[[], Inventory] | None = field(default=None, compare=False)
    host: str | None = None
    """Shown in the header; fixed in snapshot tests so they do not depend on the machine."""
    nvml: ModuleType | None = field(default=None, compare=False)
    """Monitor pane: an NVML module to sample instead of ``pynvml`` (tests pass a fake)."""
    host_reader: HostReader | None = field(default=None, compare=False)
    """Monitor pane: reads CPU and memory instead of psutil (snapshots pass fixed readings)."""
    autoplay: bool = False
    """Kitchen pane: cycle through the scenarios (for talks) until a key is pressed."""
    bench_python: str | None = None
    """Bench pane: the Python that runs the benchmark worker (``--bench-python``)."""
    prometheus_url: str | None = None
    """Fleet pane: the Prometheus server to read (``--prometheus`` or ``GPU_TUI_PROMETHEUS``)."""
    fleet_reader: Callable[[], FleetSnapshot] | None = field(default=None, compare=False)
    """Fleet pane: reads the fleet instead of Prometheus (snapshot tests pass a fixed one)."""
    read_only: bool = False
    """``--read-only``: nothing is changed on this machine (no signal sent to a process)."""
    theme: str | None = None
    """A Textual theme's name (None: Textual's default); the one chosen in the app is kept."""
    temperature_unit: str = "celsius"
    """How temperatures read (``celsius`` or ``fahrenheit``); ``make_app`` sets it."""
    size_unit: str = "binary"
    """How byte sizes read (``binary``: GiB, or ``decimal``: GB); ``make_app`` sets it."""
    startup_note: str = ""
    """Said once the app is up (the config file's problem, say)."""
