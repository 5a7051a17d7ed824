"""The copies matrix: link peaks from the recorded HGX H100 topology (nvidia-ml-py's own
``pynvml`` over the simulated driver), the matrix model, the JSON object and its round trip, the
report text, and the plan's ``copies`` part."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.formulas import copy_figure, pcie_gbps
from gpu_tui.core.bench.store import load
from gpu_tui.core.comm import copies, links
from gpu_tui.core.comm.plan import Launch, build_comm_plan, point_count
from gpu_tui.core.devices.topology import read_topology
from gpu_tui.core.errors import UsageError
from tests.conftest import SimulatedNvml
from tests.fakes.copies_run import FIXTURE, HGX_READING, HGX_TOPOLOGY, modelled_document
from tests.fakes.simulated_driver import SimulatedLibrary, load_reading

GPUS = [f"cuda:{i}" for i in range(8)]


@pytest.fixture(scope="module")
def recorded() -> RunDocument:
    return load(FIXTURE)


def hgx_nvml(simulated_nvml: SimulatedNvml) -> SimulatedLibrary:
    """The recorded HGX H100 node with its NVLink and PCIe topology."""
    return simulated_nvml(HGX_READING, add=HGX_TOPOLOGY)


def topology(library: SimulatedLibrary):  # type: ignore[no-untyped-def]
    library.binding.nvmlInit()
    found = read_topology(library.binding)
    assert found is not None
    return found


# --- link peaks --------------------------------------------------------------------------------


def test_per_link_figures() -> None:
    hopper = links.nvlink_peak(18, "4.0")
    assert hopper is not None
    assert hopper.gbps == 450.0  # 900 GB/s both ways over 18 links: 25 GB/s each way per link
    assert hopper.text == "NV18: 18 × 25 GB/s (NVLink 4.0)"
    assert hopper.source.startswith("https://www.nvidia.com/")
    assert links.nvlink_peak(18, "5.0").gbps == 900.0  # type: ignore[union-attr]
    assert links.nvlink_peak(4, "3.1") is None  # no published figure tied to it: unknown
    assert links.nvlink_peak(0, "4.0") is None
    for generation in (3, 4, 5, 6):  # the same figures the transfer benchmark's peaks use
        found = links.pcie_peak(f"Gen{generation} x16")
        assert found is not None
        assert found.gbps == pytest.approx(pcie_gbps(generation, 16))
    assert links.pcie_peak("Gen5 x16").gbps == pytest.approx(63.0, abs=0.1)  # type: ignore[union-attr]
    downtrained = links.pcie_peak("Gen1 x16 (max Gen5 x16)")
    assert downtrained is not None
    assert downtrained.text == "PCIe Gen5 x16"  # links train down at idle: the maximum counts
    assert links.pcie_peak(None) is None
    assert links.pcie_peak("Gen9 x16") is None
    assert all(rate.source.startswith("https://") for rate in links.NVLINK.values())
    assert all(rate.source.startswith("https://") for rate in links.PCIE.values())


def test_peaks_of_every_path_on_the_hgx_node(simulated_nvml: SimulatedNvml) -> None:
    hgx = topology(hgx_nvml(simulated_nvml))
    p2p = links.pair_peak(hgx, 0, 7, "p2p")
    assert p2p is not None
    assert (p2p.gbps, p2p.text) == (450.0, "NV18: 18 × 25 GB/s (NVLink 4.0)")
    for path, src, dst in (("staged", 0, 7), ("h2d", None, 3), ("d2h", 3, None)):
        peak = links.pair_peak(hgx, src, dst, path)
        assert peak is not None
        assert peak.text == "PCIe Gen5 x16"
    assert links.pair_peak(hgx, 2, 2, "p2p") is None
    assert links.pair_peak(hgx, None, 2, "p2p") is None


def test_pcie_pairs_the_slower_link_and_unknown_relations(simulated_nvml: SimulatedNvml) -> None:
    library = hgx_nvml(simulated_nvml)
    for index, device in enumerate(library.devices):  # GPU0-GPU1 by 2 NVLinks, the rest PCIe
        device["nvlink_active"] = [1, 1] + [0] * 16 if index < 2 else None
        device["nvlink_remote_type"] = [0] * 18
        peer = library.devices[1 - index]["pci_bus_id"] if index < 2 else None
        device["nvlink_remote_bus_id"] = [peer] * 18
    library.devices[2]["pcie_gen"] = [4, 4]  # current, max
    hgx = topology(library)
    assert links.pair_peak(hgx, 0, 1, "p2p").text == "NV2: 2 × 25 GB/s (NVLink 4.0)"  # type: ignore[union-attr]
    over_pcie = links.pair_peak(hgx, 0, 2, "p2p")
    assert over_pcie is not None
    assert over_pcie.text == "PCIe Gen4 x16"  # GPU2's slower link bounds the pair
    library = hgx_nvml(simulated_nvml)  # a fresh node, whose driver cannot say what follows
    library.remove_function("nvmlDeviceGetTopologyCommonAncestor")
    for device in library.devices:
        device["nvlink_active"] = None
    unknown = topology(library)
    assert unknown.relation[0][1] == "?"
    assert links.pair_peak(unknown, 0, 1, "p2p") is None  # never a guess
    assert links.pair_peak(unknown, 0, 1, "staged") is not None  # both hops are PCIe anyway


def test_torch_devices_are_matched_to_topology_rows_by_bus_id(
    simulated_nvml: SimulatedNvml,
) -> None:
    hgx = topology(hgx_nvml(simulated_nvml))
    # CUDA_VISIBLE_DEVICES=5,2: torch's cuda:0 is the sixth GPU NVML lists
    environment = {
        "devices": [
            {"device": "cuda:0", "pci_bus_id": "00000000:ab:00.0"},
            {"device": "cuda:1", "pci_bus_id": "0000:3A:00.0"},
            {"device": "cuda:2", "pci_bus_id": None},
            {"device": "cpu"},
        ]
    }
    assert links.topology_rows(hgx, environment) == {"cuda:0": 5, "cuda:1": 2}
    assert links.bus_key("00000000:18:00.0") == links.bus_key("0000:18:00.0") == (0, 0x18, 0, 0)
    assert links.bus_key("not a bus") is None


# --- the matrix --------------------------------------------------------------------------------


def test_the_recorded_run_is_what_gpu_tui_makes_of_the_modelled_messages(
    recorded: RunDocument,
) -> None:
    made = modelled_document()
    assert [r.to_dict() for r in made.results] == [r.to_dict() for r in recorded.results]
    data = json.loads(FIXTURE.read_text())
    assert "MODELLED, NOT MEASURED" in data["_notes"]
    assert data["copies"] == copies.summary(recorded.results)


def test_matrix_model(recorded: RunDocument) -> None:
    matrix = copies.build_matrix(recorded.results, "p2p", "bandwidth")
    assert matrix is not None
    assert matrix.names == (*GPUS, "host")
    assert matrix.size == 256 << 20
    assert matrix.value("cuda:0", "cuda:0") is None
    assert matrix.value("host", "host") is None
    cell = matrix.value("cuda:0", "cuda:1")
    assert cell == pytest.approx(374.1, abs=0.1)
    assert matrix.percent("cuda:0", "cuda:1") == pytest.approx(cell / 450 * 100)
    # host copies are compared with host copies, GPU pairs with GPU pairs
    assert matrix.best(host=False) == pytest.approx(378, abs=1)
    assert matrix.best(host=True) == pytest.approx(54.7, abs=0.1)
    assert matrix.share("host", "cuda:4") == pytest.approx(1.0)
    assert 0.98 < matrix.share("cuda:0", "cuda:1") <= 1.0  # type: ignore[operator]
    staged = copies.build_matrix(recorded.results, "staged", "bandwidth")
    assert staged is not None
    assert staged.value("cuda:2", "cuda:5") == pytest.approx(38.0, abs=0.1)
    assert staged.value("host", "cuda:4") == matrix.value("host", "cuda:4")  # shared host row
    latency = copies.build_matrix(recorded.results, "p2p", "latency")
    assert latency is not None
    assert latency.unit == "µs"
    assert 2.2 <= latency.value("cuda:3", "cuda:6") <= 2.6  # type: ignore[operator]
    assert latency.percent("cuda:3", "cuda:6") is None
    assert latency.share("cuda:3", "cuda:6") <= 1.0  # type: ignore[operator]
    assert [m.short_title for m in copies.matrices(recorded.results)] == [
        "Copies GB/s, P2P",
        "Copies GB/s, no P2P (staged via host)",
        "Copies latency µs, P2P",
        "Copies latency µs, no P2P (staged via host)",
    ]
    assert matrix.note() == (
        "256 MiB copies, rows from, columns to · GPU pairs 82-84 % of NV18: 18 × 25 GB/s "
        "(NVLink 4.0) = 450 GB/s · host 84-87 % of PCIe Gen5 x16 = 63 GB/s"
    )


def test_a_pair_without_peer_access_and_a_rerun(recorded: RunDocument) -> None:
    kept = [
        r
        for r in recorded.results
        if not (r.variant == "p2p" and r.params["src"] == "cuda:1" and r.params["dst"] == "cuda:6")
    ]
    first = next(r for r in kept if r.variant == "p2p" and r.params["role"] == "bandwidth")
    again = dataclasses.replace(first, median_seconds=first.median_seconds * 2)
    matrix = copies.build_matrix([*kept, again], "p2p", "bandwidth")
    assert matrix is not None
    assert matrix.value("cuda:1", "cuda:6") is None
    assert matrix.value("cuda:0", "cuda:1") == pytest.approx(374.1 / 2, abs=0.1)  # the latest
    grid = copies.summary(kept)["bandwidth_gbps"]["p2p"]  # type: ignore[index]
    assert grid[1][6] is None
    assert grid[6][1] is not None
    assert copies.build_matrix([], "p2p", "bandwidth") is None
    assert copies.summary([]) is None


def test_json_object_and_round_trip(recorded: RunDocument) -> None:
    data = json.loads(recorded.to_json())
    found = data["copies"]
    assert found["devices"] == [*GPUS, "host"]
    assert (found["bandwidth_bytes"], found["latency_bytes"]) == (256 << 20, 4)
    for key in ("bandwidth_gbps", "percent_of_link_peak", "link", "latency_us"):
        for mode in ("p2p", "staged"):
            grid = found[key][mode]
            assert len(grid) == 9
            assert all(len(row) == 9 for row in grid)
            assert all(grid[i][i] is None for i in range(9))
    assert found["link"]["p2p"][0][1] == "NV18: 18 × 25 GB/s (NVLink 4.0)"
    assert found["link"]["staged"][0][1] == "PCIe Gen5 x16"
    assert found["link"]["p2p"][8][0] == "PCIe Gen5 x16"  # host row: h2d
    assert 82 < found["percent_of_link_peak"]["p2p"][0][1] < 84
    assert found["checks_ok"] is True
    back = RunDocument.from_dict(json.loads(json.dumps(data)))
    assert back.to_dict() == data  # the object is derived again, identical
    assert [r.key for r in back.results] == [r.key for r in recorded.results]
    plain = RunDocument("quick", 0.1, "2026-11-20T14:02:11+0000")
    assert "copies" not in plain.to_dict()  # other runs' documents are as they were


def test_report_text(recorded: RunDocument) -> None:
    skipped = [{"benchmark": "copies", "reason": "cuda:1 cannot reach cuda:6 directly"}]
    lines = copies.report(recorded.results, skipped)
    text = "\n".join(lines)
    assert "Copies bandwidth, P2P: direct peer copies (256 MiB per copy, GB/s and % of link" in text
    assert (
        "Copies latency, without P2P: staged through pinned host memory (4 B per copy, µs):" in text
    )
    header = next(line for line in lines if line.startswith("from\\to"))
    assert header.split() == ["from\\to", *(f"GPU{i}" for i in range(8)), "host"]
    gpu0 = next(line for line in lines if line.startswith("GPU0 "))
    assert gpu0.split()[1:5] == ["-", "374", "83", "%"]
    assert "link NV18: 18 × 25 GB/s (NVLink 4.0) = 450 GB/s one direction (https://" in text
    assert "copies not measured: cuda:1 cannot reach cuda:6 directly" in text
    assert copies.report([], [{"benchmark": "copies", "reason": "needs cuda"}]) == [
        "copies not measured: needs cuda"
    ]


def test_figures() -> None:
    latency = copy_figure("p2p", {"src": "a", "dst": "b", "bytes": 4, "role": "latency"}, 2e-6)
    assert (latency.value, latency.unit, latency.peak_kind) == (pytest.approx(2.0), "us", None)
    assert latency.throughput == pytest.approx(0.002)
    params = {"src": "cuda:0", "dst": "host", "bytes": 1 << 28, "role": "bandwidth"}
    bandwidth = copy_figure("d2h", params, 5e-3)
    assert bandwidth.unit == "GB/s"
    assert bandwidth.value == pytest.approx((1 << 28) / 5e-3 / 1e9)
    assert bandwidth.peak_kind == "link d2h cuda:0>host"
    assert copies.short("cuda:12") == "GPU12"
    assert copies.short("cpu#1") == "cpu#1"


def test_a_topology_nvml_cannot_give_leaves_the_peaks_unknown(
    simulated_nvml: SimulatedNvml,
) -> None:
    from gpu_tui.core.comm.runner import CommRunner
    from tests.fakes.copies_run import environment_message, result_messages

    plan = build_comm_plan(Launch(nproc=8), device="cuda", operations=["copies"])
    # The worker reports the HGX node's eight GPUs, but NVML sees a one-GPU box: no topology.
    runner = CommRunner(plan, save=False, nvml=simulated_nvml("h200").binding, telemetry=False)
    hgx_devices = load_reading(HGX_READING)["devices"]
    for message in [environment_message(hgx_devices), *result_messages()[:3]]:
        for _ in runner._handle(json.dumps(message)):
            pass
    assert len(runner.document.results) == 3
    for result in runner.document.results:
        assert result.percent_of_peak is None
        assert "link" not in result.params
    matrix = copies.build_matrix(runner.document.results, "p2p", "bandwidth")
    assert matrix is not None
    assert "% of link peak: - (link unknown)" in matrix.note()


# --- the plan ----------------------------------------------------------------------------------


def test_plan_copies_alone_need_no_ranks() -> None:
    plan = build_comm_plan(Launch(nproc=1), device="cuda", operations=["copies"])
    comm = plan["comm"]
    assert comm["operations"] == []
    assert comm["copies"] == {"latency_bytes": 4, "bandwidth_bytes": 256 << 20}
    assert point_count(plan) == 2 * 2  # one GPU expected: to and from the host, two sizes
    eight = build_comm_plan(Launch(nproc=8), device="cuda", operations=["copies"])
    assert point_count(eight) == 2 * (2 * 8 * 7 + 2 * 8)
    capped = build_comm_plan(Launch(nproc=2), device="cpu", sizes=[8, 1024])
    assert capped["comm"]["copies"]["bandwidth_bytes"] == 1024
    assert capped["comm"]["operations"] == list(copies_operations())


def copies_operations() -> tuple[str, ...]:
    from gpu_tui.core.comm.bandwidth import OPERATIONS

    return OPERATIONS


def test_plan_copies_by_default_on_one_node_only() -> None:
    assert build_comm_plan(Launch(nproc=2))["comm"]["copies"] is not None
    assert build_comm_plan(Launch(nproc=2), operations=["all_reduce"])["comm"]["copies"] is None
    many = Launch(nproc=8, nnodes=2, rdzv_endpoint="head:29500")
    assert build_comm_plan(many, device="cuda")["comm"]["copies"] is None
    with pytest.raises(UsageError, match="copies run on one node"):
        build_comm_plan(many, device="cuda", operations=["copies"])
    with pytest.raises(UsageError, match=r"choose from: .*send_recv, copies"):
        build_comm_plan(Launch(nproc=2), operations=["peer"])
    with pytest.raises(UsageError, match="at least 2"):  # collectives still need two ranks
        build_comm_plan(Launch(nproc=1), operations=["copies", "all_reduce"])


def test_fixture_file_is_a_valid_run_document() -> None:
    assert FIXTURE.is_file()
    assert Path(FIXTURE).stat().st_size < 1 << 20
    document = load(FIXTURE)
    assert document.suite == "comm"
    assert len(document.results) == 2 * (2 * 8 * 7 + 2 * 8)
    assert {r.benchmark for r in document.results} == {"copies"}


def test_rank_zeros_record_keeps_the_copies_gpus_and_stops_their_telemetry(
    simulated_nvml: SimulatedNvml,
) -> None:
    from gpu_tui.core.comm.runner import CommRunner
    from tests.fakes.copies_run import environment_message, result_messages

    library = hgx_nvml(simulated_nvml)
    plan = build_comm_plan(Launch(nproc=8), device="cuda")
    runner = CommRunner(plan, save=False, nvml=library.binding)
    for message in [environment_message(library.devices), *result_messages()[:2]]:
        for _ in runner._handle(json.dumps(message)):
            pass
    copies_watch = runner.watch.telemetry
    assert copies_watch is not None  # the copies' GPUs were watched while timed
    assert runner.document.results[0].telemetry is not None
    rank = environment_message(library.devices)
    rank["environment"]["devices"] = rank["environment"]["devices"][:1]
    try:
        for _ in runner._handle(json.dumps(rank)):
            pass
        assert runner.watch.telemetry is not copies_watch
        assert not copies_watch._thread.is_alive()  # stopped, not left sampling
        environment = runner.document.environment
        assert environment is not None
        assert [d["device"] for d in environment["devices"]] == ["cuda:0"]
        assert [d["device"] for d in environment["copies"]["devices"]] == GPUS
        assert set(environment["copies"]["telemetry"]["devices"]) == set(GPUS)
    finally:
        runner.watch.close(runner.document.environment)
