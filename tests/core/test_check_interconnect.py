"""The interconnect checks of ``gpu-tui check --quick``, judged on the modelled copies run of an
8×H100 HGX node (``tests/fakes/copies_run.py``) with one pair slowed and an all-reduce added."""

from __future__ import annotations

import dataclasses

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.store import load
from gpu_tui.core.check.findings import FAIL, OK, WARN
from gpu_tui.core.check.interconnect import interconnect_findings
from tests.fakes.copies_run import FIXTURE


def hgx_copies() -> RunDocument:
    return load(FIXTURE)


def with_results(document: RunDocument, results: list[BenchResult]) -> RunDocument:
    return dataclasses.replace(document, results=results)


def all_reduce(busbw: float, percent: float, *, ok: bool = True) -> BenchResult:
    template = next(r for r in hgx_copies().results if r.variant == "p2p")
    return dataclasses.replace(
        template,
        benchmark="comm",
        variant="all_reduce",
        dtype="bf16",
        params={"bytes": 256 << 20, "ranks": 8, "backend": "nccl"},
        value=busbw,
        percent_of_peak=percent,
        checks={"ok": ok},
    )


def test_every_pair_of_a_healthy_node_passes_and_the_all_reduce_too() -> None:
    document = hgx_copies()
    found = interconnect_findings(
        with_results(document, [*document.results, all_reduce(360.0, 80.0)])
    )
    pairs = [f for f in found if f.check == "p2p"]
    assert len(pairs) == 8 * 7
    assert {f.verdict for f in pairs} == {OK}
    assert pairs[0].reading.startswith("cuda:0→cuda:1 374 GB/s, 83 % of NV18")
    (reduce,) = [f for f in found if f.check == "all-reduce"]
    assert (reduce.verdict, reduce.reading) == (
        OK,
        "bus bandwidth 360 GB/s over 8 GPUs, 80 % of the link's peak",
    )


def test_a_pair_well_below_the_others_fails_on_its_source_gpu() -> None:
    document = hgx_copies()
    slowed = [
        dataclasses.replace(r, value=r.value * 0.6, percent_of_peak=(r.percent_of_peak or 0) * 0.6)
        if r.variant == "p2p"
        and r.params.get("role") == "bandwidth"
        and (r.params["src"], r.params["dst"]) == ("cuda:3", "cuda:5")
        else r
        for r in document.results
    ]
    found = interconnect_findings(with_results(document, slowed))
    failing = [f for f in found if f.verdict == FAIL]
    assert [(f.check, f.gpu) for f in failing] == [("p2p", 3)]
    assert failing[0].reading.startswith("cuda:3→cuda:5 2")
    assert "40 % below the median pair" in failing[0].why


def test_wrong_all_reduce_results_fail_and_a_slow_one_warns() -> None:
    document = hgx_copies()
    wrong = interconnect_findings(with_results(document, [all_reduce(360.0, 80.0, ok=False)]))
    assert [(f.check, f.verdict) for f in wrong] == [("all-reduce", FAIL)]
    assert "corrupts data" in wrong[0].why
    slow = interconnect_findings(with_results(document, [all_reduce(90.0, 20.0)]))
    assert [(f.check, f.verdict) for f in slow] == [("all-reduce", WARN)]
    assert "NCCL_DEBUG=INFO" in slow[0].fix


def test_a_pair_without_peer_access_is_a_warning() -> None:
    document = hgx_copies()
    no_peer = [
        r
        for r in document.results
        if not (r.variant == "p2p" and (r.params["src"], r.params["dst"]) == ("cuda:0", "cuda:7"))
    ]
    found = interconnect_findings(with_results(document, no_peer))
    (warned,) = [f for f in found if f.verdict == WARN]
    assert warned.reading == "cuda:0→cuda:7: no peer access, copies go through host memory"
    assert warned.gpu == 0
