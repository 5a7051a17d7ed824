"""The reader's two paces against a scripted server: the slow answers (labels, limits, each
target's node, idle while allocated) kept between refreshes, asked again when a node joins, and
never keeping the GPUs of a node that went down."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_tui.core.fleet import queries
from gpu_tui.core.fleet.dcgm_names import GPU_UTIL, SLOWDOWN_TEMP
from gpu_tui.core.fleet.prom_api import Series
from gpu_tui.core.fleet.queries import PANE_FIELDS
from gpu_tui.core.fleet.reader import FleetReader, join_targets

AT = 1_800_000_000.0


@dataclass
class ScriptedFleet:
    """Answers the reader's queries for ``nodes`` (node → GPU count) whose targets are ``up``,
    and counts what it was asked."""

    nodes: dict[str, int]
    down: set[str] = field(default_factory=set)
    asked: list[str] = field(default_factory=list)
    url: str = "http://prometheus.test:9090"

    def query(self, promql: str, at: float | None = None) -> list[Series]:
        self.asked.append(promql)
        live = {node: count for node, count in self.nodes.items() if node not in self.down}

        def target(node: str) -> dict[str, str]:
            return {"instance": f"{node}:9400", "job": "dcgm"}

        def per_gpu(value: float, **more: str) -> list[Series]:
            return [
                Series({"Hostname": node, "gpu": str(i), **more}, value, AT)
                for node, count in live.items()
                for i in range(count)
            ]

        if promql == queries.labels_query(""):
            return [
                Series({**s.labels, **target(s.labels["Hostname"])}, 1, AT)
                for s in per_gpu(1.0, modelName="NVIDIA H100 80GB HBM3")
            ]
        if promql == queries.target_nodes_query(""):
            return [Series({**target(node), "Hostname": node}, 1, AT) for node in self.nodes]
        if promql.startswith("up{"):
            return [Series(target(n), float(n not in self.down), AT) for n in self.nodes]
        if promql.startswith("timestamp(up"):
            return [Series(target(n), AT - 2, AT) for n in self.nodes]
        if promql == queries.reading("", GPU_UTIL):
            return per_gpu(42.0)
        if SLOWDOWN_TEMP in promql:
            return [
                Series({**s.labels, "instance": f"{s.labels['Hostname']}:9400"}, 87.0, AT)
                for s in per_gpu(0.0)
            ]
        return []

    def slow_reads(self) -> int:
        return self.asked.count(queries.labels_query(""))


def pane_reader(fleet: ScriptedFleet) -> FleetReader:
    return FleetReader(
        fleet,  # type: ignore[arg-type]
        fields=PANE_FIELDS,
        slow_seconds=3600,
        flagged_only=True,
        clock=lambda: AT,
    )


def test_the_slow_answers_are_kept_between_refreshes() -> None:
    fleet = ScriptedFleet({"a": 2, "b": 1})
    reader = pane_reader(fleet)
    first = reader.read()
    assert fleet.slow_reads() == 1
    asked = len(fleet.asked)
    second = reader.read()
    assert fleet.slow_reads() == 1  # not asked again
    assert len(fleet.asked) - asked < asked  # a refresh asks less than the first read
    for snapshot in (first, second):
        gpus = [g for node in snapshot.nodes for g in node.gpus]
        assert [(g.node, g.gpu) for g in gpus] == [("a", "0"), ("a", "1"), ("b", "0")]
        assert {g.model for g in gpus} == {"NVIDIA H100 80GB HBM3"}  # from the kept labels
        assert {g.temperature_slowdown_c for g in gpus} == {87.0}
        assert {g.instance for g in gpus} == {"a:9400", "b:9400"}
        assert {g.utilization_percent for g in gpus} == {42.0}
        assert all(node.up for node in snapshot.nodes)


def test_a_node_that_joins_is_asked_about_at_once() -> None:
    fleet = ScriptedFleet({"a": 1})
    reader = pane_reader(fleet)
    reader.read()
    fleet.nodes["c"] = 2
    snapshot = reader.read()
    assert fleet.slow_reads() == 2
    joined = next(node for node in snapshot.nodes if node.name == "c")
    assert joined.up is True
    assert [g.model for g in joined.gpus] == ["NVIDIA H100 80GB HBM3"] * 2


def test_a_node_that_goes_down_keeps_no_gpus_from_the_kept_answers() -> None:
    fleet = ScriptedFleet({"a": 1, "b": 2})
    reader = pane_reader(fleet)
    reader.read()
    fleet.down.add("b")
    snapshot = reader.read()
    assert fleet.slow_reads() == 1
    down = next(node for node in snapshot.nodes if node.name == "b")
    assert down.up is False
    assert down.gpus == []
    assert snapshot.totals.nodes_down == 1


def test_every_read_asks_everything_by_default() -> None:
    fleet = ScriptedFleet({"a": 1})
    reader = FleetReader(fleet, clock=lambda: AT)  # type: ignore[arg-type]
    reader.read()
    reader.read()
    assert fleet.slow_reads() == 2


def test_targets_join_to_their_nodes_and_a_target_never_seen_shows_under_its_address() -> None:
    nodes = [Series({"instance": "10.0.0.1:9400", "job": "dcgm", "Hostname": "a"}, 1, AT)]
    up = [
        Series({"instance": "10.0.0.1:9400", "job": "dcgm"}, 1, AT),
        Series({"instance": "10.0.0.2:9400", "job": "dcgm"}, 0, AT),  # never served a GPU
        Series({"instance": "10.0.0.3:9400", "job": "dcgm"}, 1, AT),  # up, but no GPU series
    ]
    joined = join_targets(nodes, up, "")
    assert [(s.labels.get("Hostname"), s.labels["instance"], s.value) for s in joined] == [
        ("a", "10.0.0.1:9400", 1),
        (None, "10.0.0.2:9400", 0),
    ]
    assert [s.labels["Hostname"] for s in join_targets(nodes, up, 'job="dcgm"')] == ["a"]
