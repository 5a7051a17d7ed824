"""``gpu-tui fleet --json`` and the Fleet pane's node history against a real Prometheus scraping
`gpu-tui export --demo` processes and a recorded dcgm-exporter page (its default counters, with
Kubernetes pod labels)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from gpu_tui.core.fleet.grid import grid_rows, summary
from gpu_tui.core.fleet.history import latest
from gpu_tui.core.fleet.model import FleetGpu, FleetSnapshot
from gpu_tui.core.fleet.prom_api import PrometheusApi
from gpu_tui.core.fleet.queries import PANE_FIELDS
from gpu_tui.core.fleet.reader import FleetReader
from gpu_tui.ui.app import AppConfig, make_app
from gpu_tui.ui.fleet_node import HistoryGraph
from gpu_tui.ui.fleet_pane import FleetPane, live_reader
from tests.fleet import harness
from tests.polling import until
from tests.test_json_schemas import validate
from tests.ui.conftest import fixed_inventory

FIXTURE = Path(__file__).parent / "fixtures" / "dcgm_exporter_k8s.metrics"
pytestmark = pytest.mark.timeout(90)


def fleet(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpu_tui", "fleet", "--prometheus", url, *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def fleet_json(url: str, *args: str) -> dict[str, Any]:
    done = fleet(url, "--json", *args)
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = json.loads(done.stdout)
    validate(document, "fleet")  # every answer these tests read is also held to its schema
    return document


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Prometheus scraping three demo exporters (one stopped once scraped, so it is down) and
    the recorded dcgm-exporter page, and a target where nothing ever answers; yields the
    Prometheus URL."""
    binary = harness.prometheus_binary()
    exporters = [harness.start_exporter(node) for node in ("gpu-a", "gpu-b", "gpu-c")]
    try:
        with harness.static_page(FIXTURE.read_bytes()) as dcgm_port:
            jobs = {
                "gpu-tui": [f"127.0.0.1:{port}" for _, port in exporters]
                + [f"127.0.0.1:{harness.free_port()}"],
                "dcgm-exporter": [f"127.0.0.1:{dcgm_port}"],
            }
            with harness.prometheus(binary, jobs, tmp_path_factory.mktemp("prom")) as url:
                harness.wait_until(
                    lambda: (
                        len(harness.query(url, "up == 1")) == 4
                        and len(harness.query(url, "DCGM_FI_DEV_GPU_UTIL")) == 6
                    ),
                    20,
                    "every target scraped",
                )
                harness.stop(exporters[2][0])  # gpu-c goes away: its target is down
                harness.wait_until(
                    lambda: len(harness.query(url, "up == 0")) == 2, 10, "gpu-c's target down"
                )
                yield url
    finally:
        for process, _ in exporters:
            harness.stop(process)


def by_node(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {node["node"]: node for node in document["nodes"]}


def test_demo_exporters_show_as_nodes_with_their_simulated_gpu(cluster: str) -> None:
    document = fleet_json(cluster)
    assert document["schema_version"] == 1
    nodes = by_node(document)
    for name in ("gpu-a", "gpu-b"):
        node = nodes[name]
        assert node["up"] is True
        assert node["last_scrape_age_seconds"] < 5
        (gpu,) = node["gpus"]
        assert gpu["simulated"] is True
        assert "SIMULATED" in gpu["model"]
        assert gpu["memory_total_bytes"] == pytest.approx(81559 * 1024**2, rel=1e-3)
        assert gpu["power_limit_watts"] == 700
        assert gpu["temperature_slowdown_c"] == 87
        assert 0 <= gpu["utilization_percent"] <= 100
        assert gpu["labels"]["job"] == "gpu-tui"


def test_a_stopped_exporter_is_shown_down_not_missing(cluster: str) -> None:
    nodes = by_node(fleet_json(cluster))
    assert nodes["gpu-c"]["up"] is False
    assert nodes["gpu-c"]["gpus"] == []
    assert fleet_json(cluster)["totals"]["nodes_down"] == 2


def test_a_target_that_never_answered_is_shown_down_under_its_address(cluster: str) -> None:
    document = fleet_json(cluster)
    (never,) = [n for n in document["nodes"] if n["node"].startswith("127.0.0.1:")]
    assert never["up"] is False
    assert never["gpus"] == []
    assert never["last_scrape_age_seconds"] < 5
    narrowed = fleet_json(cluster, "--match", 'Hostname=~"gpu-.*"')
    assert not [n for n in narrowed["nodes"] if n["node"].startswith("127.0.0.1:")]


def test_the_recorded_dcgm_exporter_page_reads_with_its_units_and_pod_labels(
    cluster: str,
) -> None:
    document = fleet_json(cluster)
    node = by_node(document)["dgx-a07"]
    assert node["up"] is True
    gpus = {gpu["gpu"]: gpu for gpu in node["gpus"]}
    assert sorted(gpus) == ["0", "1", "2"]
    training = gpus["0"]
    assert training["model"] == "NVIDIA A100-SXM4-80GB"
    assert training["memory_used_bytes"] == 71787 * 1024**2
    assert training["memory_total_bytes"] == (71787 + 9133) * 1024**2
    assert training["power_watts"] == pytest.approx(312.456)
    assert training["power_limit_watts"] is None  # not among dcgm-exporter's default counters
    assert training["labels"]["pod"] == "llama-ft-7d9f8-0"
    assert training["labels"]["namespace"] == "research"
    hot = gpus["2"]
    assert hot["hot"] is True
    assert hot["erroring"] is True
    assert hot["xid_last"] == 79
    assert "pod" not in hot["labels"]  # the exporter's empty pod label is no pod
    idle = [(g["node"], g["gpu"], g["pod"]) for g in document["idle_while_allocated"]]
    assert idle == [("dgx-a07", "1", "jupyter-alice")]
    totals = document["totals"]
    assert totals["hot"] == 1
    assert totals["erroring"] == 1
    assert totals["idle_while_allocated"] == 1


def test_match_narrows_to_the_selected_nodes(cluster: str) -> None:
    document = fleet_json(cluster, "--match", 'Hostname=~"gpu-.*"')
    assert set(by_node(document)) == {"gpu-a", "gpu-b", "gpu-c"}
    document = fleet_json(cluster, "--match", '{namespace="alice"}')
    assert [(n["node"], [g["gpu"] for g in n["gpus"]]) for n in document["nodes"]] == [
        ("dgx-a07", ["1"])
    ]


def test_human_output_lists_nodes_and_flags(cluster: str) -> None:
    done = fleet(cluster)
    assert done.returncode == 0, done.stderr
    assert "gpu-c  DOWN" in done.stdout
    assert "XID 79" in done.stdout
    assert "HOT" in done.stdout
    assert "SIMULATED" in done.stdout


def test_a_selector_prometheus_rejects_is_bad_input(cluster: str) -> None:
    done = fleet(cluster, "--match", 'Hostname=~"("')
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert "rejected" in done.stderr


def test_a_nodes_history_is_one_range_query_per_reading_with_a_series_per_gpu(
    cluster: str,
) -> None:
    _, history_of = live_reader(cluster)  # the pane's reader, with its time limits
    # The range query's steps are aligned to whole multiples of the step: a target scraped for
    # the first time seconds ago shows from the next step on.
    harness.wait_until(
        lambda: (
            history_of("dgx-a07", 15, 80).gpu_names() == ["0", "1", "2"]
            and all(history_of(name, 15, 80).gpu_names() == ["0"] for name in ("gpu-a", "gpu-b"))
        ),
        30,
        "every node's first scrape inside a step of the range query",
    )
    recorded = history_of("dgx-a07", 15, 80)
    assert recorded.gpu_names() == ["0", "1", "2"]
    assert recorded.end - recorded.start == pytest.approx(900)
    used = latest(recorded.points("0", "memory_used_bytes"))
    assert used is not None
    assert used[1] == 71787 * 1024**2
    assert used[0] >= recorded.end - 2 * recorded.step  # a reading of now, not an old one
    power = latest(recorded.points("0", "power_watts"))
    assert power is not None
    assert power[1] == pytest.approx(312.456)
    for name in ("gpu-a", "gpu-b"):
        demo = history_of(name, 15, 80)
        assert demo.gpu_names() == ["0"]  # the demo exporter's one GPU, however often scraped
        utilisation = [v for _, v in demo.points("0", "utilization_percent")]
        assert utilisation
        assert all(0 <= v <= 100 for v in utilisation)
        temperature = latest(demo.points("0", "temperature_c"))
        assert temperature is not None
        assert 20 < temperature[1] < 100
    assert history_of("no-such-node", 15, 80).gpus == {}


def test_a_stopped_exporters_history_ends_when_it_stopped(cluster: str) -> None:
    _, history_of = live_reader(cluster)

    def stopped() -> bool:  # a one-minute window: steps of a quarter of a second
        history = history_of("gpu-c", 1, 240)
        newest = latest(history.points("0", "utilization_percent"))
        return newest is not None and newest[0] < history.end - 1.0

    harness.wait_until(stopped, 10, "gpu-c's series to stop")


async def test_the_pane_opens_a_node_and_draws_its_history_from_the_server(cluster: str) -> None:
    app = make_app(
        AppConfig(pane="fleet", discover=fixed_inventory, host="test", prometheus_url=cluster)
    )
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(FleetPane)
        while pane.snapshot is None:
            await pilot.pause(0.05)
        names = [node.name for node in pane.snapshot.nodes]
        grid = app.query_one("#fleet-grid", DataTable)
        grid.move_cursor(row=[row.name for row in grid_rows(pane.snapshot, 0)].index("dgx-a07"))
        assert "dgx-a07" in names
        await pilot.press("enter")
        while pane.history is None and not pane.history_error:
            await pilot.pause(0.05)
        assert pane.history_error == ""
        await pilot.pause()
        gpus = app.query_one("#fleet-gpus", DataTable)
        assert gpus.row_count == 3
        util = app.query_one("#fleet-graph-utilization_percent", HistoryGraph)
        memory = app.query_one("#fleet-graph-memory_used_bytes", HistoryGraph)
        # A server started seconds ago may hold no step of the range yet: the pane asks again.
        await until(pilot, lambda: util.drawn and memory.drawn, "both graphs drawn")
        assert "gpu0 memory, GiB · now 70" in str(memory.render())  # 71,787 MiB
        await pilot.press("escape")
        assert app.query_one("#fleet-main").display


def test_the_panes_refreshes_show_what_asking_everything_shows(cluster: str) -> None:
    at = time.time() - 1  # one instant for every reader: the same answers
    api = PrometheusApi(cluster, timeout=10)
    everything = FleetReader(api, clock=lambda: at).read()
    pane = FleetReader(
        api, fields=PANE_FIELDS, slow_seconds=3600, flagged_only=True, clock=lambda: at
    )
    for snapshot in (pane.read(), pane.read()):  # the second from the slow answers kept
        assert grid_rows(snapshot, at) == grid_rows(everything, at)
        assert summary(snapshot) == summary(everything)
        assert snapshot.idle_while_allocated == everything.idle_while_allocated
        hot = by_gpu(snapshot)[("dgx-a07", "2")]
        assert hot.xid_last == 79
        assert hot.hot
    quiet = by_gpu(everything)[("dgx-a07", "0")]
    assert quiet.xid_last == 0  # asked of every GPU here; the pane asks only where it is set
    assert by_gpu(pane.read())[("dgx-a07", "0")].xid_last is None


def by_gpu(snapshot: FleetSnapshot) -> dict[tuple[str, str], FleetGpu]:
    return {(gpu.node, gpu.gpu): gpu for node in snapshot.nodes for gpu in node.gpus}
