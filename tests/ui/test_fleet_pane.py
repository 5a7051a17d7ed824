"""The Fleet pane with a fixed fleet: totals, the grid, sort, filter, failures, key 6, and a
node's GPUs with their history (Enter, Esc)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static, Tab, Tabs

from gpu_tui.core.fleet.model import FleetSnapshot
from gpu_tui.core.fleet.prom_api import PrometheusError
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.fleet_node import FleetNodeView, HistoryGraph
from gpu_tui.ui.fleet_pane import CPU_SHARE, REFRESH_SECONDS, FleetPane
from tests.fleet.fake_fleet import fleet_snapshot
from tests.fleet.fake_history import FakeFleet
from tests.polling import until
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
        grid = app.query_one("#fleet-grid", DataTable)
        await pilot.pause()
        hint = str(grid.border_subtitle)  # the keys; where more nodes lie, when they do
        assert hint.endswith("s sort · / filter · r refresh")
        assert ("more rows" in hint) is (grid.max_scroll_y > 0)
        await pilot.press("s")
        assert grid_names(app) == ["dgx-h01", "dgx-h02", "dgx-h03", "dgx-h04", "dgx-h05"]
        await pilot.press("s")  # utilisation, busiest first
        assert grid_names(app)[0] == "dgx-h03"
        await pilot.press("slash", *"alice")
        assert grid_names(app) == ["dgx-h02"]
        await pilot.press("escape")
        assert isinstance(app.focused, DataTable)
        assert "jupyter-alice" in text_of(app, "#fleet-idle")


async def test_a_server_down_from_the_start_says_what_to_check_instead_of_an_empty_table() -> None:
    answers: list[object] = [PrometheusError("cannot reach it: refused")]

    def reader() -> FleetSnapshot:
        if answers:
            raise answers.pop(0)  # type: ignore[misc]
        return fleet_snapshot()

    app = fleet_app(reader, url="http://127.0.0.1:9")
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(FleetPane)
        await until(pilot, lambda: bool(pane.error), "the failure")
        await pilot.pause()
        assert not app.query_one("#fleet-grid").display
        advice = text_of(app, "#fleet-idle")
        assert "Nothing read from http://127.0.0.1:9 yet" in advice
        assert "gpu-tui fleet --help says more." in advice
        box = app.query_one("#fleet-idle")
        assert box.virtual_size.height <= box.size.height  # whole, nothing cut
        await pilot.press("r")  # the server answers now: the table comes back
        await until(pilot, lambda: pane.snapshot is not None, "a fleet")
        await pilot.pause()
        assert app.query_one("#fleet-grid").display
        assert len(grid_names(app)) == 5


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
        await pilot.press("1")
        await pilot.press("6")
        assert app.query_one(FleetPane).display
        tab = app.query_one("#tab-fleet", Tab)  # the tab is there, underlined, as for any pane
        assert tab.display
        assert app.query_one("#tabs", Tabs).active == "tab-fleet"
        assert tab.region.width > 0


async def open_pane(pilot: Pilot[int], app: GpuTuiApp) -> FleetPane:
    pane = app.query_one(FleetPane)
    while pane.snapshot is None:
        await pilot.pause(0.05)
    return pane


async def test_enter_opens_a_nodes_gpus_with_history_graphs_and_esc_goes_back() -> None:
    reader = FakeFleet()
    app = fleet_app(reader)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_pane(pilot, app)
        await pilot.press("s")  # by node; the cursor stays on dgx-h05, the last
        await pilot.press("up", "up", "up")
        grid = app.query_one("#fleet-grid", DataTable)
        assert grid_names(app)[grid.cursor_row] == "dgx-h02"
        await pilot.press("enter")
        while pane.history is None:
            await pilot.pause(0.05)
        await pilot.pause()
        view = app.query_one(FleetNodeView)
        assert view.display
        assert not app.query_one("#fleet-main").display
        assert text_of(app, "#fleet-node-title").startswith("dgx-h02 · up")
        assert "Last 15 min" in text_of(app, "#fleet-node-status")
        gpus = app.query_one("#fleet-gpus", DataTable)
        assert [str(gpus.get_row_at(i)[0]) for i in range(gpus.row_count)] == [
            str(i) for i in range(8)
        ]
        assert str(gpus.get_row_at(0)[-1]) == "alice/jupyter-alice"
        spark = str(gpus.get_row_at(2)[2])  # gpu2's utilisation over the window
        assert len(spark) >= 8
        assert set(spark) <= set("▁▂▃▄▅▆▇█")
        assert str(gpus.get_row_at(1)[2]).startswith("▁")  # gpu1: idle
        assert reader.asked == [("dgx-h02", 15, 80)]  # one read for the node, not per GPU
        util = app.query_one("#fleet-graph-utilization_percent", HistoryGraph)
        memory = app.query_one("#fleet-graph-memory_used_bytes", HistoryGraph)
        assert util.drawn
        assert memory.drawn
        assert util.gpu == "0"
        assert "gpu0 utilisation, % · now" in str(util.render())
        assert "now" in str(util.render()).splitlines()[-1]  # the time axis
        await pilot.press("down", "down")  # the graphs follow the cursor
        assert util.gpu == "2"
        assert util.points == pane.history.points("2", "utilization_percent")
        assert isinstance(app.focused, DataTable)
        assert app.focused.id == "fleet-gpus"
        await pilot.press("z")
        while pane.history.minutes != 60:
            await pilot.pause(0.05)
        assert "Last 1 h" in text_of(app, "#fleet-node-status")
        assert reader.asked[-1] == ("dgx-h02", 60, 80)
        await pilot.press("escape")
        assert not view.display
        assert app.query_one("#fleet-main").display
        assert isinstance(app.focused, DataTable)
        assert app.focused.id == "fleet-grid"
        assert grid_names(app)[app.focused.cursor_row] == "dgx-h02"


async def test_a_node_that_is_down_shows_its_last_minutes_and_a_failure_one_line() -> None:
    reader = FakeFleet()
    app = fleet_app(reader)
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await open_pane(pilot, app)
        assert grid_names(app)[0] == "dgx-h05"  # down: first by issues
        await pilot.press("enter")
        while pane.history is None:
            await pilot.pause(0.05)
        await pilot.pause()
        assert "dgx-h05 · DOWN" in text_of(app, "#fleet-node-title")
        util = app.query_one("#fleet-graph-utilization_percent", HistoryGraph)
        assert util.drawn
        assert ", 10m ago" in str(util.render())  # not "now": it stopped when the node went down
        power = app.query_one("#fleet-graph-power_watts", HistoryGraph)
        assert power.display
        assert power.drawn
        reader.fail_history = True
        await pilot.press("r")
        while not pane.history_error:
            await pilot.pause(0.05)
        status = app.query_one("#fleet-node-status", Static)
        assert str(status.render()) == (
            "cannot reach http://prometheus.example:9090: refused — trying again in 5 s"
        )
        assert status.has_class("-error")
        assert util.drawn  # the last history stays on screen
        reader.fail_history = False
        await pilot.press("r")
        while pane.history_error:
            await pilot.pause(0.05)
        assert not status.has_class("-error")


async def test_a_refresh_puts_new_readings_in_place_and_the_cursor_stays_on_its_node() -> None:
    snapshots = [fleet_snapshot(), fleet_snapshot()]
    second = snapshots[1]
    second.time += 5
    for node in second.nodes:
        node.last_scrape_time = second.time - 3
    second.nodes[3].gpus[1].xid_last = 48  # dgx-h04 gets an XID: issues put it third
    second.nodes[1].gpus[2].utilization_percent = 5.0  # dgx-h02 reads lower

    def reader() -> FleetSnapshot:
        return snapshots.pop(0) if snapshots else second

    app = fleet_app(reader)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_pane(pilot, app)
        table = app.query_one("#fleet-grid", DataTable)
        assert grid_names(app)[:3] == ["dgx-h05", "dgx-h03", "dgx-h01"]
        await pilot.press("down", "down", "down")  # dgx-h02
        assert grid_names(app)[table.cursor_row] == "dgx-h02"
        util_before = str(table.get_row("dgx-h02")[3])
        await pilot.press("r")
        while pane.snapshot is not second:
            await pilot.pause(0.05)
        await pilot.pause()
        assert grid_names(app) == ["dgx-h05", "dgx-h03", "dgx-h04", "dgx-h01", "dgx-h02"]
        assert grid_names(app)[table.cursor_row] == "dgx-h02"  # the cursor moved with its node
        assert str(table.get_row("dgx-h02")[1]) == "<15s"
        assert str(table.get_row("dgx-h02")[3]) != util_before
        assert "1xid" in str(table.get_row("dgx-h04")[7])
        assert table.row_count == 5


async def test_a_fleet_that_costs_much_to_read_is_read_less_often() -> None:
    app = fleet_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_pane(pilot, app)
        ticks = iter(range(10_000))
        pane.cpu_clock = lambda: 0.25 * next(ticks)  # each reading and each drawing: 0.25 s
        pane._costs = []
        await pilot.press("r")
        while not pane._costs:
            await pilot.pause(0.05)
        assert pane.refresh_seconds == pytest.approx(0.5 / CPU_SHARE)  # 25 s, not 5
        assert "every 25 s" in text_of(app, "#fleet-summary")
        pane.cpu_clock = lambda: 0.0
        pane._costs = [0.01]
        assert pane.refresh_seconds == REFRESH_SECONDS


@pytest.mark.parametrize("before", ["guide", "bench"])
async def test_without_a_server_keys_stay_in_the_fleet_pane(before: str) -> None:
    """Nothing in the pane takes the keyboard: a key must not reach the pane left behind."""
    from gpu_tui.ui.bench_pane import BenchPane
    from gpu_tui.ui.guide.catalog_view import CatalogView

    app = make_app(AppConfig(pane=before, discover=fixed_inventory, host="test-host"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        if before == "guide":
            await until(pilot, lambda: bool(app.query(CatalogView)), "the catalog")
            catalog = app.query_one(CatalogView)
            order = (catalog.sort_index, catalog.descending)
        await pilot.press("6")
        await pilot.pause()
        assert app.query_one(FleetPane).display
        assert app.focused is None or app.query_one(FleetPane) in app.focused.ancestors
        await pilot.press("s", "r", "a", "m", "d", "enter")
        await pilot.pause()
        if before == "guide":
            assert (catalog.sort_index, catalog.descending) == order
            assert catalog.query_text == ""
        else:
            assert app.query_one(BenchPane).runner is None  # `r` started no run out of sight
