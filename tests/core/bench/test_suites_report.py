"""Suites and plans (validation, overrides, estimates) and the human report."""

from __future__ import annotations

import dataclasses

import pytest

from gpu_tui.core.bench import report, suites
from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.peak import PeakTable
from gpu_tui.core.bench.results import from_worker
from gpu_tui.core.bench.worker.main import BENCHMARKS
from gpu_tui.core.errors import UsageError


def test_catalog_and_worker_agree() -> None:
    assert set(suites.NAMES) == set(BENCHMARKS)
    for suite in suites.SUITES:
        assert set(suites.SUITE_PARAMS[suite]) == set(BENCHMARKS)


def test_plan_defaults_and_overrides() -> None:
    plan = suites.build_plan(
        "quick", only=["reduction"], overrides={"reduction": {"cpu": {"n": 7}, "gpu": None}}
    )
    assert plan["devices"] == ["all"]
    assert plan["budget_seconds"] == suites.DEFAULT_BUDGET_SECONDS["quick"]
    assert plan["benchmarks"] == [{"name": "reduction", "cpu": {"n": 7}, "gpu": None}]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"suite": "huge"}, "no suite"),
        ({"only": ["gemm", "nope"]}, "no benchmark named 'nope'"),
        ({"devices": ["tpu"]}, "unknown device"),
        ({"budget_seconds": 0.0}, "--budget"),
    ],
)
def test_bad_plans_are_usage_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        suites.build_plan(**kwargs)  # type: ignore[arg-type]


def test_quick_fits_a_minute_and_full_says_more() -> None:
    quick = suites.estimate_seconds(suites.build_plan("quick", devices=["cpu"]))
    full = suites.estimate_seconds(suites.build_plan("full", devices=["cpu"]), gpus=1)
    assert quick < 60 < full


def crossover(device: str, variant: str, n: int, seconds: float) -> dict[str, object]:
    timing = {
        "median_seconds": seconds,
        "p20_seconds": seconds,
        "p80_seconds": seconds,
        "repeats": 5,
    }
    return {
        "benchmark": "crossover",
        "variant": variant,
        "device": device,
        "dtype": "fp32",
        "params": {"n": n},
        "timing": timing,
    }


def test_crossover_is_the_smallest_size_where_the_gpu_wins() -> None:
    rows = [crossover("cpu", "cpu-torch", n, t) for n, t in ((16, 1e-6), (64, 2e-5), (256, 2e-4))]
    rows += [crossover("cpu", "cpu-numpy", 256, 1e-4)]
    rows += [crossover("cuda:0", "gpu-resident", n, 1e-5) for n in (16, 64, 256)]
    rows += [crossover("cuda:0", "gpu-end-to-end", n, 1.5e-4) for n in (16, 64, 256)]
    results = [from_worker(r, PeakTable({})) for r in rows]
    assert report.crossover_points(results) == {"cuda:0": {"resident": 64, "end-to-end": None}}
    doc = RunDocument("quick", 0.1, "t")
    doc.results = results
    text = "\n".join(report.lessons(doc))
    assert "resident: n=64" in text
    assert "end-to-end: never" in text
    assert "crossover" in report.table(results)


def test_the_report_shows_each_gpus_first_call_as_its_cold_start() -> None:
    rows = [crossover("cpu", "cpu-torch", 16, 1e-4), crossover("cuda:0", "gpu-resident", 16, 1e-3)]
    rows += [crossover("cuda:0", "gpu-resident", 64, 1e-2)]
    for row, cold in zip(rows, (0.5, 0.25, 0.02), strict=True):
        row["timing"] = {**row["timing"], "cold_start_seconds": cold}  # type: ignore[dict-item]
    results = [from_worker(r, PeakTable({})) for r in rows]
    assert report.cold_start_lines(results) == [
        "First call on cuda:0 (crossover gpu-resident): 250.00 ms, against 1.00 ms once warm "
        "(250x): never time a single call"
    ]


VM = suites.HostSpeed(cpu_gflops=332.8, cores=2, cache_bytes=480 << 20, free_bytes=23 << 30)
"""The 2-vCPU test VM the estimates were calibrated on (Xeon with AMX, 480 MiB L3)."""


def test_one_point_is_its_warm_up_then_its_budget_or_three_calls() -> None:
    assert suites.point_seconds(0.0, 0.25) == pytest.approx(0.025 + 0.2 + 0.01)
    # a 0.7 s call: cold + 1 warm-up call, then 3 repeats (the budget is spent by then)
    assert suites.point_seconds(0.7, 0.25, setup=1.0) == pytest.approx(1.0 + 1.4 + 2.1 + 0.01)


def test_cpu_bandwidth_arrays_are_sized_as_the_worker_sizes_them() -> None:
    assert suites.cpu_array_bytes({}, VM) == 1920 << 20  # 4 × the 480 MiB L3
    tight = suites.HostSpeed(cache_bytes=480 << 20, free_bytes=20 << 30)
    assert suites.cpu_array_bytes({}, tight) == 960 << 20  # three must fit a quarter of free
    assert suites.cpu_array_bytes({"array_bytes": 1 << 20}, VM) == 1 << 20
    assert suites.cpu_array_bytes({}, suites.HostSpeed(cache_bytes=1 << 20)) == 64 << 20


def test_every_planned_measurement_has_an_expected_time() -> None:
    names = ("quick", "full")
    assert all(suites.build_plan(name)["benchmarks"] for name in names), "a suite plans nothing"
    for name in names:
        for spec in suites.build_plan(name)["benchmarks"]:
            for kind in ("cpu", "gpu"):
                points = suites.task_points(spec, kind, 0.25, VM)
                assert len(points) == suites.measurement_points(spec, kind), (name, spec, kind)
                assert all(p > 0 for p in points)


def test_the_quick_cpu_estimate_matches_the_measured_runs_within_20_percent() -> None:
    # `gpu-tui bench --suite quick --device cpu` on the VM (23.5 GiB, ~22.5 GiB free: right at
    # the worker's limit for 1.9 GiB bandwidth arrays, so it picks 1.9 GiB or 960 MiB):
    # 40.9 s and 38.0 s with 1.9 GiB arrays, 33.2 s with 960 MiB; the pane's run 39.9 s
    plan = suites.build_plan("quick", devices=["cpu"])
    estimate = suites.estimate_seconds(plan, host=VM)
    for measured in (40.9, 38.0, 33.2, 39.9):
        assert abs(estimate - measured) <= 0.2 * measured
    assert suites.task_seconds(plan["benchmarks"][2], "cpu", 0.25, VM) == 0  # transfer: GPU only


def test_each_benchmark_is_estimated_from_its_sizes() -> None:
    roomy = dataclasses.replace(VM, free_bytes=30 << 30)
    tight = dataclasses.replace(VM, free_bytes=20 << 30)
    plan = suites.build_plan("quick", devices=["cpu"])
    seconds = {
        (host is roomy, s["name"]): suites.task_seconds(s, "cpu", 0.25, host)
        for host in (roomy, tight)
        for s in plan["benchmarks"]
    }
    assert seconds[True, "bandwidth"] == pytest.approx(21.1, rel=0.2)  # measured 21.0–21.2 s
    assert seconds[False, "bandwidth"] == pytest.approx(9.0, rel=0.2)  # 9.0 s at a 0.1 s budget
    assert seconds[True, "linear"] == pytest.approx(10.5, rel=0.2)  # measured 10.1–11.8 s
    assert seconds[True, "gemm"] == pytest.approx(3.7, rel=0.2)  # measured 3.6–3.8 s
    assert seconds[True, "crossover"] == pytest.approx(2.7, rel=0.2)  # measured 2.5–2.8 s


def test_the_estimate_follows_the_budget_and_the_devices() -> None:
    estimates = [
        suites.estimate_seconds(suites.build_plan("quick", devices=["cpu"], budget_seconds=b))
        for b in (0.1, 0.25, 0.5)
    ]
    assert estimates == sorted(estimates)
    gpu_only = suites.build_plan("quick", devices=["gpu"])
    assert suites.estimate_seconds(gpu_only, gpus=1) < suites.estimate_seconds(
        suites.build_plan("quick", devices=["all"]), gpus=1
    )
