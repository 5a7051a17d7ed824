"""The Fleet pane with a fixed fleet: totals, the grid, sort, filter, failures and key 6."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import DataTable, Static

from gpu_tui.core.fleet.model import FleetSnapshot
from gpu_tui.core.fleet.prom_api import PrometheusError
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.fleet_pane import FleetPane
from tests.fleet.fake_fleet import fleet_snapshot
from tests.ui.conftest import fixed_inventory


def fleet_app(
    reader: Callable[[], FleetSnapshot] | None = fleet_snapshot, *, url: str | None = None
) -> GpuTuiApp:
    config = AppConfig(
        pane="fleet",
        discover=fixed_inventory,
        host="test-host",
        prometheus_url=url,
        fleet_reader=reader,
    )
    return make_app(config)


def grid_names(app: GpuTuiApp) -> list[str]:
    table = app.query_one("#fleet-grid", DataTable)
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


def text_of(app: GpuTuiApp, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


async def test_totals_rows_sort_and_filter() -> None:
    app = fleet_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(FleetPane)
        await pilot.pause()
        while pane.snapshot is None:
            await pilot.pause(0.05)
        summary = text_of(app, "#fleet-summary")
        assert "5 nodes, 1 down · 32 GPUs" in summary
        assert "1 hot, 1 throttled, 1 XID · 2 idle while allocated" in summary
        # Issues first: the node that is down, then the one with an XID and a hot GPU.
        assert grid_names(app)[:2] == ["dgx-h05", "dgx-h03"]
        await pilot.press("s")
        assert grid_names(app) == ["dgx-h01", "dgx-h02", "dgx-h03", "dgx-h04", "dgx-h05"]
        await pilot.press("s")  # utilisation, busiest first
        assert grid_names(app)[0] == "dgx-h03"
        await pilot.press("slash", *"alice")
        assert grid_names(app) == ["dgx-h02"]
        await pilot.press("escape")
        assert isinstance(app.focused, DataTable)
        assert "jupyter-alice" in text_of(app, "#fleet-idle")


async def test_a_failed_refresh_says_why_and_keeps_the_last_fleet() -> None:
    answers: list[object] = [fleet_snapshot(), PrometheusError("cannot reach it: refused")]

    def reader() -> FleetSnapshot:
        answer = answers.pop(0) if answers else fleet_snapshot()
        if isinstance(answer, Exception):
            raise answer
        assert isinstance(answer, FleetSnapshot)
        return answer

    app = fleet_app(reader)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(FleetPane)
        while pane.snapshot is None:
            await pilot.pause(0.05)
        await pilot.press("r")
        while not pane.error:
            await pilot.pause(0.05)
        assert "cannot reach it: refused — trying again in 5 s" in text_of(app, "#fleet-summary")
        assert len(grid_names(app)) == 5  # the last fleet stays on screen
        await pilot.press("r")
        while pane.error:
            await pilot.pause(0.05)


async def test_without_a_server_the_pane_says_how_to_get_one() -> None:
    app = fleet_app(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = text_of(app, "#fleet-help")
        assert "gpu-tui --prometheus" in text
        assert "gpu-tui export" in text
        assert app.query_one("#tab-fleet").has_class("-hidden")
        await pilot.press("1")
        await pilot.press("6")
        assert app.query_one(FleetPane).display
