"""The comm suite in the Bench pane: chosen with s, run for real (2 Gloo ranks), plotted log-log."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_tui.core.comm.bandwidth import OPERATIONS
from gpu_tui.ui.app import AppConfig, make_app
from gpu_tui.ui.bench import plot_data
from gpu_tui.ui.bench.chooser import BenchChooser
from gpu_tui.ui.bench_pane import BenchPane
from tests import needs
from tests.polling import until
from tests.ui.conftest import fixed_inventory

needs.module("torch.distributed")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.mark.timeout(60)
async def test_the_comm_suite_runs_from_the_pane_and_plots_busbw_by_size() -> None:
    inventory = fixed_inventory(demo=False)
    app = make_app(AppConfig(pane="bench", discover=lambda: inventory, host="test"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        pane = app.query_one(BenchPane)
        chooser = pane.query_one(BenchChooser)
        while chooser.suite != "comm":
            await pilot.press("s")
        assert "collectives" in str(chooser.query_one("#bench-settings").render())
        chooser.overrides = {"comm": {"sizes": [8, 1024]}}
        chooser.budget = 0.02
        await pilot.press("r")
        await until(pilot, lambda: pane.runner is None, "the comm run to end", timeout=40)
        assert pane.document is not None
        assert not pane.document.errors
        assert {r.variant for r in pane.results} == set(OPERATIONS)
        spec = plot_data.build(plot_data.VIEWS[pane.plot_index], pane.results)
        assert spec.view == "comm"
        assert spec.xlog
        assert spec.ylog
        assert {s.label for s in spec.series} == {f"{op} fp32" for op in OPERATIONS}
        assert all(s.xs == (8.0, 1024.0) for s in spec.series if s.label != "all_gather fp32")
        assert "2 ranks" in spec.note
