"""One node's history without a server: the range queries asked, the answers joined by GPU, each
series cut into graph columns, the scales, and the node view's rows."""

from __future__ import annotations

import math

import pytest

from gpu_tui.core.fleet import queries
from gpu_tui.core.fleet.history import (
    NodeHistory,
    build_history,
    columns,
    latest,
    read_history,
    scale_top,
    span,
)
from gpu_tui.core.fleet.model import FleetNode
from gpu_tui.core.fleet.node_detail import gpu_rows, node_title
from gpu_tui.core.fleet.prom_api import RangeSeries
from tests.fleet.fake_fleet import AT, GIB, fleet_snapshot, h100

MIB = 1024 * 1024


def test_one_query_per_reading_for_the_whole_node_aggregated_by_gpu() -> None:
    asked = queries.history_queries("", "dgx-h01")
    assert sorted(asked) == ["fb_used_mib", "power_watts", "temperature_c", "utilization_percent"]
    assert asked["utilization_percent"] == (
        'max by (gpu) (DCGM_FI_DEV_GPU_UTIL{Hostname!="",Hostname="dgx-h01"} or '
        'DCGM_FI_DEV_GPU_UTIL{Hostname="",hostname!="",hostname="dgx-h01"} or '
        'DCGM_FI_DEV_GPU_UTIL{Hostname="",hostname="",instance="dgx-h01"})'
    )
    narrowed = queries.history_queries('job="dcgm"', "n")["temperature_c"]
    assert 'DCGM_FI_DEV_GPU_TEMP{Hostname!="",job="dcgm",Hostname="n"}' in narrowed
    assert 'DCGM_FI_DEV_GPU_TEMP{Hostname="",hostname="",job="dcgm",instance="n"}' in narrowed


def test_a_mig_gpus_memory_history_adds_up_its_instances_without_its_own_series() -> None:
    memory = queries.history_queries("", "n")["fb_used_mib"]
    instances, whole = memory.split(" or max by (gpu) (")
    assert instances.startswith("sum by (gpu) (max by (gpu, GPU_I_ID) (DCGM_FI_DEV_FB_USED{")
    assert instances.count('GPU_I_ID!=""') == 3  # one per way of naming the node
    assert whole.count('GPU_I_ID=""') == 3


def test_a_node_name_cannot_break_out_of_its_quotes() -> None:
    by_name, by_lowercase, by_target = queries.node_matchers('a"b\\c\nd')
    assert by_name == 'Hostname!="",Hostname="a\\"b\\\\c\\nd"'
    assert by_lowercase == 'Hostname="",hostname!="",hostname="a\\"b\\\\c\\nd"'
    assert by_target == 'Hostname="",hostname="",instance="a\\"b\\\\c\\nd"'


def test_the_window_ends_on_a_whole_step_so_refreshes_ask_the_same_instants() -> None:
    start, end, step = span(1_000_003.7, 15, 240)
    assert step == pytest.approx(15 * 60 / 240)
    assert end == pytest.approx(math.floor(1_000_003.7 / step) * step)
    assert end - start == pytest.approx(900)
    assert span(1_000_004.1, 15, 240)[1] == end  # a second later: the same instants
    _, _, day_step = span(AT, 24 * 60, 100_000)
    assert 86400 / day_step < 11_000  # never over the server's limit per series


def test_answers_are_joined_by_gpu_in_si_units_with_blanks_as_gaps() -> None:
    answers = {
        "utilization_percent": [
            RangeSeries({"gpu": "1"}, [(10.0, 50.0), (20.0, 60.0)]),
            RangeSeries({"gpu": "0"}, [(10.0, 5.0), (20.0, math.nan)]),
        ],
        "fb_used_mib": [RangeSeries({"gpu": "0"}, [(10.0, 1024.0), (20.0, 9.2e18)])],
        "power_watts": [
            # the same GPU twice (labelled apart by a label the query dropped): one series
            RangeSeries({"gpu": "0"}, [(20.0, 300.0)]),
            RangeSeries({"gpu": "0"}, [(10.0, 250.0)]),
        ],
    }
    history = build_history("n", 0.0, 20.0, 10.0, answers)
    assert history.gpu_names() == ["0", "1"]
    assert history.points("1", "utilization_percent") == [(10.0, 50.0), (20.0, 60.0)]
    (t, used), (_, sentinel) = history.points("0", "memory_used_bytes")
    assert (t, used) == (10.0, 1024 * MIB)
    assert math.isnan(sentinel)
    assert history.points("0", "power_watts") == [(10.0, 250.0), (20.0, 300.0)]
    assert history.points("0", "temperature_c") == []
    assert latest(history.points("0", "utilization_percent")) == (10.0, 5.0)
    assert latest([]) is None


def test_columns_keep_each_slices_lowest_and_highest_reading() -> None:
    points = [(float(t), float(t)) for t in range(0, 100, 5)]  # 0, 5, ... 95, one per 5 s
    lows, highs = columns(points, 0.0, 100.0, 5.0, 4)
    assert lows == [0.0, 25.0, 50.0, 75.0]
    assert highs == [20.0, 45.0, 70.0, 95.0]


def test_before_the_first_point_is_blank_and_after_the_last_a_gap() -> None:
    points = [(40.0, 7.0), (50.0, 8.0)]
    _lows, highs = columns(points, 0.0, 100.0, 10.0, 10)
    assert highs[:4] == [None] * 4  # no data yet: drawn blank
    assert highs[4:6] == [7.0, 8.0]
    assert all(math.isnan(h) for h in highs[6:] if h is not None)  # stopped: a visible gap
    assert None not in highs[6:]


def test_a_step_wider_than_a_column_fills_every_column_it_holds_for() -> None:
    # 4 points a minute apart on a graph of 12 columns (5 s each): no false gaps between them
    points = [(0.0, 1.0), (60.0, 2.0), (120.0, 3.0), (180.0, 4.0)]
    _lows, highs = columns(points, 0.0, 240.0, 60.0, 12)
    assert highs == [1.0] * 3 + [2.0] * 3 + [3.0] * 3 + [4.0] * 3


def test_a_blank_reading_is_a_gap_unless_the_slice_has_a_real_one() -> None:
    lows, highs = columns([(0.0, math.nan), (5.0, 3.0), (10.0, math.nan)], 0.0, 20.0, 5.0, 2)
    assert highs[0] == 3.0
    assert lows[0] == 3.0
    assert math.isnan(highs[1] or 0.0)
    assert math.isnan(lows[1] or 0.0)
    assert columns([], 0.0, 1.0, 1.0, 0) == ([], [])


def test_scales_follow_the_gpus_own_limits() -> None:
    gpu = h100("n", 0, 50.0)
    assert scale_top("utilization_percent", gpu, []) == 100.0
    assert scale_top("memory_used_bytes", gpu, []) == 80 * GIB
    assert scale_top("temperature_c", gpu, []) == 87.0
    assert scale_top("power_watts", gpu, [(0.0, 750.0)]) == 750.0  # a reading over the cap
    bare = h100("n", 0, 50.0, power_limit_watts=None, temperature_slowdown_c=None)
    assert scale_top("power_watts", bare, [(0.0, 310.0), (1.0, math.nan)]) == 310.0
    assert scale_top("temperature_c", bare, [(0.0, 45.0)]) == 100.0
    assert scale_top("power_watts", None, []) is None


class RecordingApi:
    """Answers every range query with one GPU's series and notes what it was asked."""

    url = "http://prometheus.test:9090"

    def __init__(self) -> None:
        self.asked: list[tuple[str, float, float, float | None]] = []

    def query_range(
        self, promql: str, start: float, end: float, step: float | None = None
    ) -> list[RangeSeries]:
        self.asked.append((promql, start, end, step))
        return [RangeSeries({"gpu": "0"}, [(end, 1.0)])]


def test_reading_asks_four_range_queries_over_one_window() -> None:
    api = RecordingApi()
    history = read_history(api, "dgx-h01", minutes=60, points=300, clock=lambda: AT)  # type: ignore[arg-type]
    assert len(api.asked) == 4
    assert {(s, e, st) for _, s, e, st in api.asked} == {(history.start, history.end, history.step)}
    assert all('Hostname="dgx-h01"' in promql for promql, *_ in api.asked)
    assert history.step == pytest.approx(3600 / 300)
    assert history.minutes == pytest.approx(60)
    assert history.points("0", "memory_used_bytes") == [(history.end, float(MIB))]


def test_the_view_lists_the_gpus_now_and_those_only_the_history_holds() -> None:
    node = fleet_snapshot().nodes[2]  # dgx-h03: a hot GPU with an XID, one power-capped
    rows = gpu_rows(node, None)
    assert [row.gpu for row in rows] == [str(i) for i in range(8)]
    assert rows[5].cells() == ("5", "100 %", "70/80G", "86/87°", "690/700W", "hot xid79", "")
    assert rows[5].warn
    assert rows[3].flags == "thr power cap"
    assert not rows[0].warn
    gone = NodeHistory("dgx-h05", 0.0, 1.0, 1.0, {"1": {}, "10": {}, "2": {}})
    rows = gpu_rows(FleetNode("dgx-h05", up=False), gone)
    assert [row.gpu for row in rows] == ["1", "2", "10"]
    assert rows[0].cells()[1:] == ("?", "?", "?", "?", "no reading now", "")


def test_the_node_title_says_its_state_models_and_targets() -> None:
    snapshot = fleet_snapshot()
    title = node_title(snapshot.nodes[1], AT)
    assert title == "dgx-h02 · up, scraped 2s ago · 8 × H100 80GB HBM3 · 10.0.0.2:9400"
    down = node_title(snapshot.nodes[4], AT)
    assert down == "dgx-h05 · DOWN, scraped 0s ago · no GPU series now · 10.0.0.5:9400"
