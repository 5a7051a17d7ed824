"""Suites and plans (validation, overrides, estimates) and the human report."""

from __future__ import annotations

import pytest

from gpu_tui.core.bench import report, suites
from gpu_tui.core.bench.peak import PeakTable
from gpu_tui.core.bench.results import RunDocument, from_worker
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
