"""A fixed inventory (recorded CPU, fixed memory, the simulated GPU): UI tests read no hardware."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gpu_tui.core.devices.cpu import CpuSources, build_cpu_info
from gpu_tui.core.devices.model import BackendStatus, Inventory, MemoryInfo
from gpu_tui.core.devices.nvidia import discover_nvidia
from gpu_tui.core.devices.simulated import simulated_accelerator
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app

CPU_FIXTURE = Path(__file__).parent.parent / "fixtures" / "cpu" / "this-vm-zen4"


def fixed_inventory(*, demo: bool = True) -> Inventory:
    cpu = build_cpu_info(
        CpuSources(
            cpuinfo=(CPU_FIXTURE / "proc_cpuinfo").read_text(),
            machine="x86_64",
            sys_root=CPU_FIXTURE / "sys",
        )
    )
    memory = MemoryInfo(
        total_bytes=24 * 1024**3,
        available_bytes=20 * 1024**3,
        swap_total_bytes=0,
        swap_used_bytes=0,
    )
    nvml = BackendStatus(
        name="nvml",
        available=False,
        reason="NVML library not found: no NVIDIA driver on this machine",
        fix="Install the NVIDIA driver (it ships libnvidia-ml.so.1)",
    )
    accelerators = (simulated_accelerator(index=0),) if demo else ()
    return Inventory(cpu=cpu, memory=memory, accelerators=accelerators, backends={"nvml": nvml})


@pytest.fixture
def app_factory() -> Callable[..., GpuTuiApp]:
    def build(
        *, demo: bool = True, pane: str = "specs", nvml: Any = None, refresh: float = 1
    ) -> GpuTuiApp:
        inventory = fixed_inventory(demo=demo)
        if nvml is not None:  # discovered now, before the app starts, so no race on the driver
            found, _ = discover_nvidia(nvml)
            inventory = replace(inventory, accelerators=found + inventory.accelerators)
        config = AppConfig(
            demo=demo,
            pane=pane,
            discover=lambda: inventory,
            host="test-host",
            nvml=nvml,
            refresh_seconds=refresh,
        )
        return make_app(config)

    return build


@pytest.fixture
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Colour and Textual settings from the developer's shell must not leak into snapshots."""
    for name in list(os.environ):
        textual = name.startswith("TEXTUAL_") and not name.startswith("TEXTUAL_SNAPSHOT")
        if textual or name in ("NO_COLOR", "COLORTERM", "FORCE_COLOR"):
            monkeypatch.delenv(name)
