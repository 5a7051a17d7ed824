"""How a series' labels name its node and its workload across dcgm-exporter's versions and scrape
setups, and how ``--match`` on a node label picks both spellings, without a server (the recorded
pages of tests/fleet/test_fleet_prometheus.py show each against a real Prometheus)."""

from __future__ import annotations

from gpu_tui.core.fleet import labels, queries
from gpu_tui.core.fleet.model import build_snapshot, static_attributes
from gpu_tui.core.fleet.prom_api import Series

AT = 1_800_000_000.0


def test_a_selector_without_a_node_matcher_is_asked_as_it_is() -> None:
    assert queries.covering('job="dcgm",namespace=~"ml-.*"') == ['job="dcgm",namespace=~"ml-.*"']
    assert queries.covering("") == [""]


def test_a_node_matcher_is_put_on_whichever_node_label_a_series_has() -> None:
    for written in ('Hostname=~"gpu-.*",job="d"', 'hostname=~"gpu-.*",job="d"'):
        assert queries.covering(queries.check_selector(written)) == [
            'Hostname!="",Hostname=~"gpu-.*",job="d"',
            'Hostname="",hostname!="",hostname=~"gpu-.*",job="d"',
            # no node label: the target names the node, and the matcher holds as PromQL says
            'Hostname="",hostname="",' + written,
        ]


def test_the_node_is_the_node_label_in_either_case_else_the_target() -> None:
    assert labels.node_name({"Hostname": "a", "hostname": "b", "instance": "10.0.0.1:9400"}) == "a"
    assert labels.node_name({"hostname": "b", "instance": "10.0.0.1:9400"}) == "b"
    assert labels.node_name({"instance": "10.0.0.1:9400"}) == "10.0.0.1:9400"


def test_the_workload_is_the_exporters_labels_before_the_scrape_targets() -> None:
    target = {"namespace": "gpu-operator", "pod": "dcgm-exporter-x", "container": "exporter"}
    renamed = {**target, "exported_namespace": "ml", "exported_pod": "w", "exported_container": "c"}
    old = {**target, "pod_namespace": "ml", "pod_name": "w", "container_name": "c"}
    assert labels.workload(renamed) == (("ml", "w", "c"), 0)
    assert labels.workload(old) == (("ml", "w", "c"), 1)
    assert labels.workload(target) == (("gpu-operator", "dcgm-exporter-x", "exporter"), 2)
    assert labels.workload({"gpu": "0"}) == (labels.NO_WORKLOAD, 3)


def test_a_workload_that_is_the_scrape_targets_own_pod_is_no_workload() -> None:
    """Where service discovery labels the target with the exporter's pod, a GPU (or MIG
    instance) the exporter names no pod for carries the exporter's: it holds no workload."""
    exporter = {"namespace": "gpu-operator", "pod": "dcgm-exporter-x", "container": "exporter"}
    target = {"instance": "10.0.0.1:9400", "job": "dcgm", **exporter}

    def row(gpu: str, **more: str) -> Series:
        return Series({"Hostname": "n", "gpu": gpu, **target, **more}, 1, AT)

    answer = [
        row("0"),
        row("1", exported_namespace="ml", exported_pod="w", exported_container="c"),
        row("2", GPU_I_ID="1", GPU_I_PROFILE="3g.40gb"),
        row("2", GPU_I_ID="2", GPU_I_PROFILE="3g.40gb", exported_pod="v", exported_namespace="ml"),
    ]
    snapshot = build_snapshot(
        prometheus="http://prometheus.test:9090",
        at=AT,
        selector="",
        idle_window="900s",
        fields={},
        static=static_attributes(answer, {}),
        targets=[Series({**target, "Hostname": "n"}, 1, AT)],
        scrapes=[],
        idle=[],
    )
    (node,) = snapshot.nodes
    gpus = {gpu.gpu: gpu for gpu in node.gpus}
    assert (gpus["0"].namespace, gpus["0"].pod, gpus["0"].container) == ("", "", "")
    assert (gpus["1"].namespace, gpus["1"].pod, gpus["1"].container) == ("ml", "w", "c")
    assert [(m.instance_id, m.pod) for m in gpus["2"].mig_instances] == [("1", ""), ("2", "v")]
    assert gpus["2"].pods == ["ml/v"]
