""" "CPU best": numpy rows beside torch's, each BLAS named, the faster one chosen."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from gpu_tui.core.bench import report, result_text
from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.peak import PeakTable
from gpu_tui.core.bench.results import from_worker
from gpu_tui.core.bench.worker import compute, cpu_best
from gpu_tui.core.bench.worker.context import Context
from gpu_tui.core.bench.worker.protocol import Channel
from gpu_tui.core.bench.worker.sysinfo import environment
from gpu_tui.ui.bench import plot_data
from tests import needs

torch = needs.module("torch")
numpy = needs.module("numpy")


def run_in_process(benchmark: Any, params: dict[str, Any]) -> list[dict[str, Any]]:
    out = io.StringIO()
    benchmark(Context(torch, Channel(out), budget=0.01), "cpu", params)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_numpy_gemm_rows_multiply_the_same_matrices_and_pass_the_check() -> None:
    sent = run_in_process(compute.gemm, {"dtypes": {"fp32": [32, 48]}, "numpy": True})
    rows = [(m["variant"], m["params"]["n"]) for m in sent if m["type"] == "result"]
    assert rows == [("mm", 32), ("mm-numpy", 32), ("mm", 48), ("mm-numpy", 48)]
    for message in (m for m in sent if m["type"] == "result"):
        assert message["checks"]["ok"], message["checks"]


def test_without_numpy_the_torch_rows_stand_and_the_gap_is_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(compute, "numpy_module", lambda: None)
    sent = run_in_process(compute.gemm, {"dtypes": {"fp32": [32]}, "numpy": True})
    assert [m["variant"] for m in sent if m["type"] == "result"] == ["mm"]
    assert any("numpy is not installed" in m["reason"] for m in sent if m["type"] == "skip")
    monkeypatch.setattr(cpu_best, "numpy_module", lambda: None)
    assert cpu_best.numpy_record() == {"numpy_version": None, "numpy_blas": None}


def test_the_numpy_linear_computes_what_nn_linear_does() -> None:
    params = {"batch": 8, "features": 64, "dtypes": ["fp32"], "numpy": True}
    sent = run_in_process(compute.linear, params)
    results = [m for m in sent if m["type"] == "result"]
    assert [m["variant"] for m in results] == ["forward", "forward-numpy"]
    assert all(m["checks"]["ok"] for m in results)


def test_the_environment_names_both_blas_builds() -> None:
    env = environment(torch, ["cpu"])
    assert env["numpy_version"] == numpy.__version__
    assert env["numpy_blas"] is None or isinstance(env["numpy_blas"], str)
    assert env["blas"] is None or isinstance(env["blas"], str)


def gemm_row(variant: str, n: int, seconds: float) -> dict[str, Any]:
    timing = {"median_seconds": seconds, "p20_seconds": seconds, "p80_seconds": seconds}
    return {
        "benchmark": "gemm",
        "variant": variant,
        "device": "cpu",
        "dtype": "fp32",
        "params": {"m": n, "n": n, "k": n},
        "timing": {**timing, "repeats": 5},
    }


def document(rows: list[dict[str, Any]], **environment: Any) -> RunDocument:
    doc = RunDocument("quick", 0.1, "t", environment=environment)
    doc.results = [from_worker(r, PeakTable({})) for r in rows]
    return doc


def test_the_report_names_the_faster_library_at_the_largest_shared_size() -> None:
    rows = [gemm_row("mm", 256, 1e-4), gemm_row("mm-numpy", 256, 5e-5)]
    rows += [gemm_row("mm", 1024, 1e-2), gemm_row("mm-numpy", 1024, 1.25e-2)]
    doc = document(rows, blas="mkl", numpy_blas="scipy-openblas 0.3.31", numpy_version="2.4")
    (line,) = report.cpu_best_lines(doc)
    assert line.startswith("CPU best fp32 GEMM at n=1024: torch (mkl)")
    assert "numpy (scipy-openblas 0.3.31)" in line
    assert line.endswith("torch is 1.25x faster")
    assert line in report.lessons(doc)


def test_the_report_says_when_numpy_was_missing() -> None:
    doc = document([gemm_row("mm", 256, 1e-4)], blas="mkl", numpy_version=None)
    assert report.cpu_best_lines(doc) == [
        "numpy is not installed for the benchmark: the CPU figures are torch's alone"
    ]
    assert report.cpu_best_lines(document([gemm_row("mm", 256, 1e-4)])) == []  # old documents


def test_the_speedup_is_taken_against_the_faster_cpu_row() -> None:
    linear = {"batch": 1000, "in_features": 10_000, "out_features": 10_000, "threads": 2}
    rows = [
        {**gemm_row("forward", 0, 2.0), "benchmark": "linear", "params": linear},
        {**gemm_row("forward-numpy", 0, 1.0), "benchmark": "linear", "params": linear},
        {
            **gemm_row("forward", 0, 0.001),
            "benchmark": "linear",
            "params": linear,
            "device": "cuda:0",
        },
    ]
    doc = document(rows, cpu_threads=2)
    (speedup,) = [line for line in report.lessons(doc) if line.startswith("Linear")]
    assert "CPU fp32 (numpy, 2 threads) 1.00 s/call" in speedup
    assert "= 1,000x faster" in speedup
    spec = plot_data.build("linear", doc.results, gpu=True, threads=2)
    assert "CPU fp32 numpy (2 thr)" in spec.note


def test_numpy_and_torch_gemm_rows_are_separate_plot_lines() -> None:
    rows = [gemm_row(v, n, 1e-3) for v in ("mm", "mm-numpy") for n in (256, 512)]
    spec = plot_data.build("gemm", document(rows).results)
    assert len([s for s in spec.series if not s.baseline]) == 2
    assert any("numpy" in s.label for s in spec.series)


def test_the_pane_names_numpy_rows_and_says_why_they_are_there() -> None:
    (torch_row, numpy_row) = document(
        [gemm_row("mm", 256, 1e-4), gemm_row("mm-numpy", 256, 1e-4)]
    ).results
    assert (result_text.name_cell(torch_row), result_text.name_cell(numpy_row)) == (
        "gemm",
        "gemm numpy",
    )
    assert result_text.NUMPY_ROW in result_text.explain(numpy_row)
    assert result_text.NUMPY_ROW not in result_text.explain(torch_row)


def test_torch_is_timed_only_after_numpys_blas_threads_have_gone_to_sleep(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # spinning OpenBLAS threads once made a following torch GEMM 10x slow on 2 vCPUs
    events: list[str] = []
    monkeypatch.setattr(compute, "let_numpy_threads_sleep", lambda: events.append("sleep"))
    original = Context.time

    def logged(self: Context, device: str, fn: Any, **kwargs: Any) -> Any:
        events.append("time")
        return original(self, device, fn, **kwargs)

    monkeypatch.setattr(Context, "time", logged)
    run_in_process(compute.gemm, {"dtypes": {"fp32": [32, 48]}, "numpy": True})
    assert events == ["time", "time", "sleep", "time", "time", "sleep"]
