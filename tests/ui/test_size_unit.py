"""The app in decimal units: a GPU card on the Monitor and a GPU's memory on Specs read in GB,
from the same byte counts (NVML is nvidia-ml-py's own ``pynvml`` over the simulated driver)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from textual.widgets import DataTable, Static

from gpu_tui.core import units
from gpu_tui.core.devices.nvidia import discover_nvidia
from gpu_tui.ui.app import AppConfig, make_app
from gpu_tui.ui.monitor.gpu_card import GpuCard
from tests.conftest import SimulatedNvml
from tests.polling import until
from tests.ui.conftest import fixed_inventory


@pytest.fixture
def binary_after() -> Iterator[None]:
    """The unit is the process's: put it back for the tests that follow in this worker."""
    yield
    units.set_size_unit("binary")


@pytest.mark.usefixtures("binary_after")
async def test_decimal_on_a_gpu_card_and_on_specs(simulated_nvml: SimulatedNvml) -> None:
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
        size_unit="decimal",
    )
    app = make_app(config)
    async with app.run_test(size=(200, 50)) as pilot:  # room for the card's VRAM row

        def h200() -> str:
            return "".join(c.render().plain for c in app.query(GpuCard) if c.slot == 0)

        # A loaded machine may miss the first reading's deadline: wait for one.
        await until(pilot, lambda: "75/700" in h200(), "a reading")
        shown = h200()
        assert "0.0/150.8 GB" in shown  # the recorded 143,771 MiB (140.4 GiB)
        assert "GiB" not in shown
        await pilot.press("1")  # Specs
        table = app.query_one("#spec-table", DataTable)
        for _ in range(6):  # CPU → Memory → the H200 → the simulated GPU
            if "H200" in str(table.border_title):
                break
            await pilot.press("down")
        rows = {str(r[0]): str(r[1]) for r in (table.get_row_at(i) for i in range(table.row_count))}
        assert rows["Memory"] == "150.8 GB"


@pytest.mark.usefixtures("binary_after")
async def test_the_guides_fit_follows_the_size_unit() -> None:
    """Will it fit reads GB in decimal units and GiB in binary, from the same bytes."""
    for unit, weights, symbol, other in (
        ("decimal", "Weights      16.1 GB = 8.03B params", "GB", "GiB"),
        ("binary", "Weights     15.0 GiB = 8.03B params", "GiB", " GB"),
    ):
        config = AppConfig(
            demo=True,
            pane="guide",
            discover=lambda: fixed_inventory(demo=True),
            host="test-host",
            size_unit=unit,
        )
        app = make_app(config)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("f")
            summary = str(app.query_one("#fit-summary", Static).render())
            assert weights in summary
            assert other not in summary
            table = app.query_one("#fit-table", DataTable)
            memory = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
            assert all(cell.endswith(symbol) or cell == "—" for cell in memory)
            detail = str(app.query_one("#fit-detail", Static).render())
            assert f"Sizes are in {symbol} = " in detail
