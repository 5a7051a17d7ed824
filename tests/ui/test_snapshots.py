"""Snapshots of the Specs and Guide panes from a fixed inventory (sync tests)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from gpu_tui.ui.app import GpuTuiApp
from gpu_tui.ui.specs_pane import SpecsPane
from tests.polling import settle, until

# Colour and Textual settings from the shell must not leak into snapshots (tests/ui/conftest.py).
pytestmark = pytest.mark.usefixtures("plain_environment")


def test_specs_cpu_80x24(snap_compare: Any, app_factory: Callable[..., GpuTuiApp]) -> None:
    assert snap_compare(app_factory(demo=True), terminal_size=(80, 24), run_before=settle)


async def on_the_gpu(pilot: Pilot[Any]) -> None:
    """The simulated GPU's section, and settled again: its comparison bars narrow the table,
    whose rows are then laid out once more (a frame later on a loaded machine)."""
    await settle(pilot)
    await pilot.press("down", "down")
    pane = pilot.app.query_one(SpecsPane)
    await until(pilot, lambda: pane._value_width == pane.value_width(), "the table refitted")
    await settle(pilot)


def test_specs_simulated_gpu_160x48(
    snap_compare: Any, app_factory: Callable[..., GpuTuiApp]
) -> None:
    app = app_factory(demo=True)
    assert snap_compare(app, terminal_size=(160, 48), run_before=on_the_gpu)


def test_guide_fit_80x24(snap_compare: Any, app_factory: Callable[..., GpuTuiApp]) -> None:
    app = app_factory(demo=True, pane="guide")
    assert snap_compare(app, press=["f", "escape"], terminal_size=(80, 24), run_before=settle)


def test_guide_catalog_160x48(snap_compare: Any, app_factory: Callable[..., GpuTuiApp]) -> None:
    app = app_factory(demo=True, pane="guide")
    assert snap_compare(app, press=["c"], terminal_size=(160, 48), run_before=settle)
