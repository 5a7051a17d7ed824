"""The app in Fahrenheit: a GPU card on the Monitor and a GPU's limits on Specs read in °F, from
the same °C readings (NVML is nvidia-ml-py's own ``pynvml`` over the simulated driver)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from textual.widgets import DataTable

from gpu_tui.core import units
from gpu_tui.core.devices.nvidia import discover_nvidia
from gpu_tui.ui.app import AppConfig, make_app
from gpu_tui.ui.monitor.gpu_card import GpuCard
from tests.conftest import SimulatedNvml
from tests.polling import until
from tests.ui.conftest import fixed_inventory


@pytest.fixture
def celsius_after() -> Iterator[None]:
    """The unit is the process's: put it back for the tests that follow in this worker."""
    yield
    units.set_temperature_unit("celsius")


@pytest.mark.usefixtures("celsius_after")
async def test_fahrenheit_on_a_gpu_card_and_on_specs(simulated_nvml: SimulatedNvml) -> None:
    nvml = simulated_nvml("h200").binding
    found, _ = discover_nvidia(nvml)
    inventory = fixed_inventory(demo=True)
    inventory = replace(inventory, accelerators=found + inventory.accelerators)
    config = AppConfig(
        demo=True,
        pane="monitor",
        discover=lambda: inventory,
        host="test-host",
        nvml=nvml,
        refresh_seconds=0.1,
        temperature_unit="fahrenheit",
    )
    app = make_app(config)
    async with app.run_test(size=(80, 24)) as pilot:

        def h200() -> str:
            return "".join(c.render().plain for c in app.query(GpuCard) if c.slot == 0)

        # A loaded machine may miss the first reading's deadline: wait for one.
        await until(pilot, lambda: "75/700" in h200(), "a reading")
        shown = h200()
        assert "82°F" in shown  # the recorded 28 °C
        assert "°C" not in shown
        await pilot.press("1")  # Specs
        table = app.query_one("#spec-table", DataTable)
        for _ in range(6):  # CPU → Memory → the H200 → the simulated GPU
            if "SIMULATED" in str(table.border_title):
                break
            await pilot.press("down")
        rows = {str(r[0]): str(r[1]) for r in (table.get_row_at(i) for i in range(table.row_count))}
        assert rows["Slowdown temp"] == "189 °F"  # 87 °C
        assert rows["Shutdown temp"] == "203 °F"  # 95 °C
