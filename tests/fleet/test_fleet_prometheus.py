"""``gpu-tui fleet --json`` and the Fleet pane's node history against a real Prometheus scraping
`gpu-tui export --demo` processes and recorded exporter pages (``fixtures/*.metrics``):
dcgm-exporter with its default counters and Kubernetes pod labels; its main branch's lowercase
``hostname``; ``--use-old-namespace``; a kube-prometheus scrape that does not honor the
exporter's labels; MIG instances (and gpu-tui export's MIG page); its README's sample of three
counters."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from textual.widgets import DataTable

from gpu_tui.commands.check import report_json
from gpu_tui.core.check import last_check
from gpu_tui.core.check.findings import FAIL, OK, Finding, Report
from gpu_tui.core.fleet.fleet_json import snapshot_json
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

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE = FIXTURES / "dcgm_exporter_k8s.metrics"
PAGES = {
    # job → the recorded pages its targets serve
    "dcgm-exporter": [
        "dcgm_exporter_k8s",
        "dcgm_exporter_main_hostname",
        "dcgm_exporter_old_namespace",
        "dcgm_exporter_mig",
        "dcgm_exporter_readme_sample",
    ],
    "gpu-tui": ["gpu_tui_export_mig"],
    "nvidia-dcgm-exporter": ["dcgm_exporter_kube_prometheus"],
}
EXPORTER_POD = {
    "namespace": "gpu-operator",
    "pod": "nvidia-dcgm-exporter-x7k2p",
    "container": "nvidia-dcgm-exporter",
}
"""What service discovery labels the kube-prometheus job's target with: the exporter's pod."""
MIB = 1024**2
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


def read_json(url: str, selector: str = "", idle_minutes: float = 15) -> dict[str, Any]:
    """What ``fleet_json`` gives, read in this process (no interpreter to start: for the
    checks that ask many times)."""
    reader = FleetReader(PrometheusApi(url, timeout=10), selector, idle_minutes)
    document = json.loads(json.dumps(snapshot_json(reader.read()), allow_nan=False))
    validate(document, "fleet")
    return document


def kept_check(folder: Path, status: int, age_seconds: float) -> Path:
    """A data dir holding a node's last ``gpu-tui check``: healthy, or GPU 0's PCIe link
    failed, ``age_seconds`` ago."""
    failing = Finding("pcie-link", FAIL, "Gen4 x8", "Gen5 x16", gpu=0)
    findings = (failing,) if status == 1 else (Finding("pcie-link", OK, "Gen5 x16", gpu=0),)
    document = report_json(Report(findings, gpu_count=1), time.time() - age_seconds)
    assert last_check.save(document, folder / "checks" / "last.json") is None
    return folder


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Prometheus scraping three demo exporters (one stopped once scraped, so it is down), the
    recorded pages (``PAGES``) and a target where nothing ever answers; yields the Prometheus
    URL."""
    binary = harness.prometheus_binary()
    checked = {
        node: kept_check(tmp_path_factory.mktemp(node), status, age)
        for node, status, age in (("gpu-a", 0, 2 * 86400.0), ("gpu-b", 1, 600.0))
    }
    exporters = [
        harness.start_exporter(node, data_dir=checked.get(node))
        for node in ("gpu-a", "gpu-b", "gpu-c")
    ]
    pages = [name for names in PAGES.values() for name in names]
    bodies = {name: (FIXTURES / f"{name}.metrics").read_bytes() for name in pages}
    utilisation = 3 + sum(body.count(b"\nDCGM_FI_DEV_GPU_UTIL{") for body in bodies.values())
    try:
        with contextlib.ExitStack() as served:
            ports = {
                name: served.enter_context(harness.static_page(bodies[name])) for name in pages
            }
            jobs = {
                job: [f"127.0.0.1:{ports[name]}" for name in names] for job, names in PAGES.items()
            }
            jobs["gpu-tui"] += [f"127.0.0.1:{port}" for _, port in exporters]
            jobs["gpu-tui"].append(f"127.0.0.1:{harness.free_port()}")
            workdir = tmp_path_factory.mktemp("prom")
            labels = {"nvidia-dcgm-exporter": EXPORTER_POD}
            with harness.prometheus(binary, jobs, workdir, labels) as url:
                harness.wait_until(
                    lambda: (
                        len(harness.query(url, "up == 1")) == 3 + len(pages)
                        and len(harness.query(url, "DCGM_FI_DEV_GPU_UTIL")) == utilisation
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
    assert document["schema_version"] == 2
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


def test_a_node_whose_last_check_failed_or_is_stale_is_flagged_on_that_node(
    cluster: str,
) -> None:
    nodes = by_node(fleet_json(cluster))
    failed, stale = nodes["gpu-b"]["check"], nodes["gpu-a"]["check"]
    assert (failed["status"], failed["problem"]) == (1, "check failed")
    assert 590 < failed["age_seconds"] < 900
    assert (stale["status"], stale["problem"]) == (0, "check stale")
    assert nodes["dgx-a07"]["check"] is None  # dcgm-exporter serves no check: none is shown
    text = subprocess.run(
        [sys.executable, "-m", "gpu_tui", "fleet", "--prometheus", cluster],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    (line,) = [line for line in text.splitlines() if line.startswith("gpu-b  ")]
    assert line.endswith(", CHECK FAILED")


def test_a_stopped_exporter_is_shown_down_not_missing(cluster: str) -> None:
    nodes = by_node(fleet_json(cluster))
    assert nodes["gpu-c"]["up"] is False
    assert nodes["gpu-c"]["gpus"] == []
    assert fleet_json(cluster)["totals"]["nodes_down"] == 2


def test_a_target_that_never_answered_is_shown_down_under_its_address(cluster: str) -> None:
    document = fleet_json(cluster)
    (never,) = [n for n in document["nodes"] if n["node"].startswith("127.0.0.1:") and not n["up"]]
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
    assert hot["temperature_slowdown_c"] is None
    assert hot["hot"] is True  # 86 °C: at or above the fixed 85 used without a slowdown temperature
    assert hot["erroring"] is True
    assert hot["xid_last"] == 79
    assert "pod" not in hot["labels"]  # the exporter's empty pod label is no pod
    assert gpus["1"]["hot"] is False
    totals = fleet_json(cluster, "--match", 'Hostname="dgx-a07"')["totals"]
    assert (totals["gpus"], totals["hot"], totals["erroring"]) == (3, 1, 1)


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
        grid.move_cursor(
            row=[row.name for row in grid_rows(pane.snapshot, time.time())].index("dgx-a07")
        )
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


def gpus_of(document: dict[str, Any], node: str) -> dict[str, dict[str, Any]]:
    return {gpu["gpu"]: gpu for gpu in by_node(document)[node]["gpus"]}


def readme_node(document: dict[str, Any]) -> dict[str, Any]:
    """The node of the README sample's page: the one with a Tesla T4."""
    (node,) = [n for n in document["nodes"] if any(g["model"] == "Tesla T4" for g in n["gpus"])]
    return node


def test_a_node_is_named_by_hostname_in_either_case_else_by_its_target(cluster: str) -> None:
    document = fleet_json(cluster)
    lowercase = by_node(document)["hgx-h100-07"]  # dcgm-exporter's main branch: `hostname`
    assert lowercase["up"] is True
    (address,) = lowercase["instances"]
    gpus = {gpu["gpu"]: gpu for gpu in lowercase["gpus"]}
    assert sorted(gpus) == ["0", "1"]
    assert [gpus[i]["utilization_percent"] for i in ("0", "1")] == [88, 12]
    assert gpus["0"]["memory_used_bytes"] == 61440 * MIB
    assert gpus["0"]["memory_total_bytes"] == (61440 + 19531 + 588) * MIB
    assert gpus["0"]["labels"] == {"job": "dcgm-exporter", "instance": address}
    assert address not in by_node(document)  # not also a node under its target's address
    unnamed = readme_node(document)  # --no-hostname: the target names the node
    assert unnamed["instances"] == [unnamed["node"]]
    assert unnamed["node"].startswith("127.0.0.1:")
    assert list(by_node(fleet_json(cluster, "--match", 'Hostname=~"hgx-.*"'))) == ["hgx-h100-07"]
    for selector in ('hostname="hgx-h100-07"', '{Hostname=~"h.*",job!=""}'):
        assert list(by_node(read_json(cluster, selector))) == ["hgx-h100-07"]
    assert list(by_node(read_json(cluster, 'Hostname="dgx-a07"'))) == ["dgx-a07"]
    # A negative matcher holds where the label is not set, as in PromQL: the unnamed node stays.
    kept = set(by_node(read_json(cluster, 'Hostname!~"[^h].*"')))
    assert kept == {"hgx-h100-07", unnamed["node"]}


def test_the_old_namespace_labels_name_the_uuid_and_the_pod(cluster: str) -> None:
    gpus = gpus_of(fleet_json(cluster), "dgx-b02")
    serving = gpus["0"]
    assert serving["uuid"] == "GPU-0b1c2d3e-4f50-4a61-9b72-c8d9e0f1a2b3"
    assert {k: serving["labels"][k] for k in ("namespace", "pod", "container")} == {
        "namespace": "inference",
        "pod": "bert-serve-5c8d9-2xk4q",
        "container": "triton",
    }
    assert gpus["1"]["uuid"] == "GPU-9e8d7c6b-5a49-4b38-a27c-16f05e4d3c2b"
    assert set(gpus["1"]["labels"]) == {"job", "instance"}
    narrowed = fleet_json(cluster, "--match", 'pod_namespace="inference"')
    assert [(n["node"], [g["gpu"] for g in n["gpus"]]) for n in narrowed["nodes"]] == [
        ("dgx-b02", ["0"])
    ]


def test_without_honor_labels_the_workload_is_the_exported_one_never_the_exporter_pod(
    cluster: str,
) -> None:
    document = fleet_json(cluster)
    gpus = gpus_of(document, "k8s-gpu-3")
    assert gpus["0"]["labels"] == {
        "job": "nvidia-dcgm-exporter",
        "instance": by_node(document)["k8s-gpu-3"]["instances"][0],
        "namespace": "serving",
        "pod": "vllm-llama-70b-0",
        "container": "vllm",
    }
    assert set(gpus["1"]["labels"]) == {"job", "instance"}  # held by no pod
    # The exporter pod labels every series of its target, yet is nobody's workload.
    assert EXPORTER_POD["pod"] not in json.dumps(document)
    human = fleet(cluster)
    assert "serving/vllm-llama-70b-0" in human.stdout
    assert EXPORTER_POD["pod"] not in human.stdout


def test_a_mig_gpu_adds_up_its_instances_and_lists_each_with_its_workload(cluster: str) -> None:
    document = fleet_json(cluster)
    split, whole = (gpus_of(document, "dgx-mig-01")[i] for i in ("0", "1"))
    assert split["memory_used_bytes"] == (30720 + 8192 + 13) * MIB
    assert split["memory_total_bytes"] == (40192 + 19968 + 9728) * MIB
    assert split["utilization_percent"] is None  # DCGM reads none for a MIG instance
    assert split["temperature_c"] == 47
    assert set(split["labels"]) == {"job", "instance"}  # each instance has its own pod
    assert split["mig_instances"] == [
        {
            "instance_id": "1",
            "profile": "3g.40gb",
            "memory_used_bytes": 30720 * MIB,
            "memory_total_bytes": 40192 * MIB,
            "labels": {"namespace": "research", "pod": "train-small-0", "container": "trainer"},
        },
        {
            "instance_id": "5",
            "profile": "2g.20gb",
            "memory_used_bytes": 8192 * MIB,
            "memory_total_bytes": 19968 * MIB,
            "labels": {"namespace": "bob", "pod": "notebook-bob", "container": "notebook"},
        },
        {
            "instance_id": "13",
            "profile": "1g.10gb",
            "memory_used_bytes": 13 * MIB,
            "memory_total_bytes": 9728 * MIB,
            "labels": {},
        },
    ]
    assert whole["mig_instances"] == []
    assert whole["memory_used_bytes"] == 52224 * MIB
    assert whole["memory_total_bytes"] == (52224 + 28452 + 844) * MIB
    # gpu-tui export writes the GPU's own series beside its instances': counted once.
    (exported,) = by_node(document)["export-mig-1"]["gpus"]
    assert exported["memory_used_bytes"] == (16384 + 8192) * MIB
    assert exported["memory_total_bytes"] == 2 * 40192 * MIB
    assert [(m["instance_id"], m["profile"]) for m in exported["mig_instances"]] == [
        ("1", "3g.40gb"),
        ("2", "3g.40gb"),
    ]
    human = fleet(cluster).stdout
    assert "    MIG 3g.40gb #1    30/39GiB  research/train-small-0" in human.splitlines()
    at = time.time() - 1
    rows = {row.name: row for row in grid_rows(FleetReader(PrometheusApi(cluster)).read(), at)}
    assert "research/train-small-0 bob/notebook-bob" in rows["dgx-mig-01"].who


def test_power_limits_and_the_slowdown_temperature_read_under_dcgm_names(cluster: str) -> None:
    document = fleet_json(cluster)
    enforced = gpus_of(document, "hgx-h100-07")
    assert [enforced[i]["power_limit_watts"] for i in ("0", "1")] == [700, 700]
    assert [gpus_of(document, "dgx-b02")[i]["power_limit_watts"] for i in ("0", "1")] == [400, 400]
    near, far = enforced["0"], enforced["1"]
    assert (near["temperature_c"], near["temperature_slowdown_c"]) == (80, 83)
    assert near["hot"] is True  # within 5 °C of its slowdown, below the fixed 85
    assert (far["temperature_c"], far["temperature_slowdown_c"]) == (86, 95)
    assert far["hot"] is False  # above the fixed 85, but 9 °C below its slowdown


def test_idle_while_allocated_waits_for_readings_covering_the_whole_window(cluster: str) -> None:
    document = fleet_json(cluster)  # a 15-minute window; the server holds seconds
    assert document["idle_while_allocated"] == []
    assert document["totals"]["idle_while_allocated"] == 0

    def idle(flagged: list[dict[str, Any]]) -> list[tuple[str, str, str, str, str]]:
        return [(g["node"], g["gpu"], g["job"], g["namespace"], g["pod"]) for g in flagged]

    expected = [
        ("dgx-a07", "1", "dcgm-exporter", "alice", "jupyter-alice"),
        ("k8s-gpu-3", "0", "nvidia-dcgm-exporter", "serving", "vllm-llama-70b-0"),
    ]
    harness.wait_until(
        lambda: idle(read_json(cluster, idle_minutes=0.1)["idle_while_allocated"]) == expected,
        20,
        "6 s of readings, then both flagged",
    )
    assert idle(fleet_json(cluster, "--idle-minutes", "0.1")["idle_while_allocated"]) == expected


def test_a_target_without_utilisation_is_its_node_with_what_it_reads(cluster: str) -> None:
    document = fleet_json(cluster)
    node = readme_node(document)
    assert node["up"] is True
    assert node["last_scrape_age_seconds"] < 5
    (gpu,) = node["gpus"]
    assert gpu["uuid"] == "GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52"
    assert gpu["sm_clock_mhz"] == 139
    assert gpu["sample_age_seconds"] < 5
    for unread in ("utilization_percent", "memory_used_bytes", "temperature_c", "power_watts"):
        assert gpu[unread] is None
    assert gpu["busy"] is False
    # Every node shown is a target Prometheus scrapes: none made up from GPU series alone.
    assert all(n["up"] is not None and n["instances"] for n in document["nodes"])


def test_the_history_of_lowercase_hostname_and_mig_nodes(cluster: str) -> None:
    _, history_of = live_reader(cluster)

    def used(node: str, gpu: str) -> float | None:
        newest = latest(history_of(node, 15, 80).points(gpu, "memory_used_bytes"))
        return None if newest is None else newest[1]

    harness.wait_until(
        lambda: (
            history_of("hgx-h100-07", 15, 80).gpu_names() == ["0", "1"]
            and used("dgx-mig-01", "0") is not None
            and used("export-mig-1", "0") is not None
        ),
        30,
        "each node's first scrape inside a step of the range query",
    )
    lowercase = history_of("hgx-h100-07", 15, 80)
    power = latest(lowercase.points("1", "power_watts"))
    assert power is not None
    assert power[1] == pytest.approx(201.25)
    assert used("dgx-mig-01", "0") == (30720 + 8192 + 13) * MIB  # the instances added up
    assert used("dgx-mig-01", "1") == 52224 * MIB
    assert used("export-mig-1", "0") == (16384 + 8192) * MIB  # not the GPU's own series too


# NVIDIA's Grafana dashboard 12239, as dcgm-exporter ships it:
# https://github.com/NVIDIA/dcgm-exporter/blob/main/grafana/dcgm-exporter-dashboard.json
DASHBOARD_12239 = {
    "GPU Temperature": 'DCGM_FI_DEV_GPU_TEMP{instance=~"$instance", gpu=~"$gpu"}',
    "GPU Avg. Temp": 'avg(DCGM_FI_DEV_GPU_TEMP{instance=~"$instance", gpu=~"$gpu"})',
    "GPU Power Usage": 'DCGM_FI_DEV_POWER_USAGE{instance=~"$instance", gpu=~"$gpu"}',
    "GPU Power Total": 'sum(DCGM_FI_DEV_POWER_USAGE{instance=~"$instance", gpu=~"$gpu"})',
    "GPU SM Clocks": 'DCGM_FI_DEV_SM_CLOCK{instance=~"$instance", gpu=~"$gpu"} * 1000000',
    "GPU Utilization": 'DCGM_FI_DEV_GPU_UTIL{instance=~"$instance", gpu=~"$gpu"}',
    "GPU Framebuffer Mem Used": 'DCGM_FI_DEV_FB_USED{instance=~"$instance", gpu=~"$gpu"}',
    "Tensor Core Utilization": (
        'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{instance=~"$instance", gpu=~"$gpu"}'
    ),
}


def test_every_panel_of_grafana_dashboard_12239_fills_from_gpu_tui_export(cluster: str) -> None:
    """The dashboard's variables as Grafana sets them for one gpu-tui node (``$instance`` from
    ``label_values(DCGM_FI_DEV_GPU_TEMP, instance)``, every GPU), each panel's query asked of
    the real server."""
    answer = harness.query(cluster, 'DCGM_FI_DEV_GPU_TEMP{Hostname="gpu-a"}')
    (instance,) = {str(cast(dict[str, str], s["metric"])["instance"]) for s in answer}
    empty = [
        title
        for title, expression in DASHBOARD_12239.items()
        if not harness.query(
            cluster, expression.replace("$instance", instance).replace("$gpu", ".*")
        )
    ]
    assert empty == []
    (tensor,) = harness.query(cluster, f'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{{instance="{instance}"}}')
    assert 0 <= float(cast(list[str], tensor["value"])[1]) <= 1  # a ratio, as DCGM's are
