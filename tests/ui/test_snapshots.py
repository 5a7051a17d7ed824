"""Snapshots of the Specs and Guide panes from a fixed inventory (sync tests)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpu_tui.ui.app import GpuTuiApp
from tests.polling import settle

# Colour and Textual settings from the shell must not leak into snapshots (tests/ui/conftest.py).
pytestmark = pytest.mark.usefixtures("plain_environment")


def test_specs_cpu_80x24(snap_compare: Any, app_factory: Callable[..., GpuTuiApp]) -> None:
    assert snap_compare(app_factory(demo=True), terminal_size=(80, 24), run_before=settle)


def test_specs_simulated_gpu_160x48(
    snap_compare: Any, app_factory: Callable[..., GpuTuiApp]
) -> None:
    app = app_factory(demo=True)
    assert snap_compare(app, press=["down", "down"], terminal_size=(160, 48), run_before=settle)


def test_guide_fit_80x24(snap_compare: Any, app_factory: Callable[..., GpuTuiApp]) -> None:
    app = app_factory(demo=True, pane="guide")
    assert snap_compare(app, press=["f", "escape"], terminal_size=(80, 24), run_before=settle)


def test_guide_catalog_160x48(snap_compare: Any, app_factory: Callable[..., GpuTuiApp]) -> None:
    app = app_factory(demo=True, pane="guide")
    assert snap_compare(app, press=["c"], terminal_size=(160, 48), run_before=settle)
