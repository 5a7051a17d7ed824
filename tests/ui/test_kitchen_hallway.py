"""The slow hallway's "measure for real": an all-reduce between two Gloo ranks beside the model."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from textual.widgets import Static

from gpu_tui.core.kitchen.scenarios import SCENARIOS
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.kitchen.measure_panel import MeasurePanel
from gpu_tui.ui.kitchen_pane import KitchenPane
from tests import needs
from tests.polling import until
from tests.ui.conftest import fixed_inventory

needs.module("torch.distributed")


def panel_text(app: GpuTuiApp) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(app.query_one("#measure-body", Static).content)
    return console.export_text()


@pytest.mark.timeout(60)
async def test_the_slow_hallway_measures_an_all_reduce_beside_the_model() -> None:
    inventory = fixed_inventory(demo=False)
    app = make_app(AppConfig(pane="kitchen", discover=lambda: inventory, host="t"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        pane = app.query_one(KitchenPane)
        pane.load(SCENARIOS["slow-hallway"])
        panel = app.query_one(MeasurePanel)
        panel.budget = 0.01
        await pilot.press("m")
        await until(pilot, lambda: panel.finished, "the measurement to finish", timeout=40)
        shown = panel_text(app)
        assert "measured: 4 results" in shown, shown
        assert [r.params["bytes"] for r in panel.results] == [8, 65536, 1 << 20, 16 << 20]
        assert all(r.benchmark == "comm" and r.checks and r.checks["ok"] for r in panel.results)
        assert "This machine's hallway: α ≈ " in shown
        assert "Model: 2 kitchens run at" in shown
        assert "Holds: " in shown
