"""The real worker (torch on CPU) at tiny sizes, and every fault it can have: nothing is lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpu_tui.core.bench import messages as m
from gpu_tui.core.bench.runner import BenchRunner
from gpu_tui.core.bench.suites import NAMES, build_plan
from gpu_tui.core.errors import UsageError
from tests.fakes import faulty_worker

TINY = {
    "gemm": {"cpu": {"dtypes": {"fp32": [32, 64], "bf16": [32]}}},
    "bandwidth": {"cpu": {"kernels": ["copy", "triad"], "array_bytes": 1 << 20}},
    "reduction": {"cpu": {"n": 100, "with_conversion": True}},
    "linear": {"cpu": {"batch": 8, "features": 64}},
    "crossover": {"cpu": {"sizes": [16, 32]}},
    "mlp": {"cpu": {"d": 32, "batches": [1, 4]}},
    "transformer": {"cpu": {"d": 32, "heads": 2, "seq": 8, "batches": [2]}},
}


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def tiny_runner(only: list[str], budget: float = 0.02, **kwargs: object) -> BenchRunner:
    plan = build_plan("quick", only=only, devices=["cpu"], budget_seconds=budget, overrides=TINY)
    return BenchRunner(plan, **kwargs)  # type: ignore[arg-type]


def collect(runner: BenchRunner) -> list[m.Message]:
    runner.start()
    return list(runner.messages())


def saved(runner: BenchRunner) -> dict[str, object]:
    assert runner.saved_path is not None
    return dict(json.loads(runner.saved_path.read_text()))


def test_the_whole_cpu_suite_runs_end_to_end_at_tiny_sizes() -> None:
    runner = tiny_runner(list(NAMES))
    got = collect(runner)
    finished = got[-1]
    assert isinstance(finished, m.Finished)
    assert finished.status == "completed", finished.document.errors
    results = finished.document.results
    assert {r.benchmark for r in results} == set(NAMES) - {"transfer"}
    assert not finished.document.errors
    for result in results:
        assert result.median_seconds > 0
        assert result.value > 0
        assert result.repeats >= 3
        assert result.p20_seconds <= result.median_seconds <= result.p80_seconds
        if result.checks is not None:
            assert result.checks["ok"], result
    skips = {s.benchmark: s.reason for s in got if isinstance(s, m.Skipped)}
    assert skips["transfer"] == "no GPU visible to the worker"
    assert set(skips) == set(NAMES)  # every benchmark says its GPU side was skipped
    environment = finished.document.environment or {}
    assert environment["devices"][0]["device"] == "cpu"
    assert "torch_version" in environment
    assert "precision_flags" in environment
    assert len(saved(runner)["results"]) == len(results)  # type: ignore[arg-type]


def test_a_worker_crash_keeps_the_results_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = faulty_worker.install(tmp_path, "crash:reduction", monkeypatch)
    runner = tiny_runner(["launch", "reduction"], python=python)
    got = collect(runner)
    errors = [e for e in got if isinstance(e, m.BenchError)]
    assert [e.kind for e in errors] == ["crash"]
    assert errors[0].fatal
    assert "signal 9" in errors[0].message
    assert "reduction" in errors[0].message
    finished = got[-1]
    assert isinstance(finished, m.Finished)
    assert finished.status == "failed"
    assert [r.benchmark for r in finished.document.results] == ["launch"]
    on_disk = saved(runner)
    assert len(on_disk["results"]) == 1
    assert on_disk["errors"][0]["kind"] == "crash"


def test_out_of_memory_and_garbage_fail_one_benchmark_not_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = faulty_worker.install(tmp_path, "oom:launch,garbage:reduction", monkeypatch)
    got = collect(tiny_runner(["launch", "reduction"], python=python))
    errors = [e for e in got if isinstance(e, m.BenchError)]
    assert [(e.kind, e.benchmark, e.fatal) for e in errors] == [
        ("oom", "launch", False),
        ("protocol", None, False),
    ]
    assert "out of memory" in errors[0].message
    finished = got[-1]
    assert isinstance(finished, m.Finished)
    assert finished.status == "completed"
    assert {r.benchmark for r in finished.document.results} == {"reduction"}


def test_a_hung_worker_is_killed_after_its_stall_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = faulty_worker.install(tmp_path, "hang:reduction", monkeypatch)
    runner = tiny_runner(["launch", "reduction"], stall_seconds=1.0, python=python)
    got = collect(runner)
    errors = [e for e in got if isinstance(e, m.BenchError)]
    assert [(e.kind, e.benchmark) for e in errors] == [("hang", "reduction")]
    assert not runner.running
    assert [r.benchmark for r in runner.document.results] == ["launch"]


def test_cancel_stops_a_stuck_worker_within_a_second_and_keeps_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = faulty_worker.install(tmp_path, "hang:reduction", monkeypatch)
    runner = tiny_runner(["launch", "reduction"], python=python)
    runner.start()
    cancelled_at = None
    for message in runner.messages():
        if isinstance(message, m.Progress) and message.benchmark == "reduction":
            cancelled_at = time.monotonic()
            runner.cancel()  # the hung worker ignores "stop": it must be killed after 1 s
        if isinstance(message, m.Finished):
            assert message.status == "cancelled"
            assert message.document.interrupted
            assert [r.benchmark for r in message.document.results] == ["launch"]
    assert cancelled_at is not None
    assert not runner.running
    print(f"cancel to finished: {time.monotonic() - cancelled_at:.2f} s")
    assert saved(runner)["interrupted"] is True


def test_missing_torch_says_how_to_get_it(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True
    )
    python = str(tmp_path / "venv" / "bin" / "python")
    got = collect(tiny_runner(["launch"], python=python))
    errors = [e for e in got if isinstance(e, m.BenchError)]
    assert [e.kind for e in errors] == ["torch_missing"]
    assert errors[0].message == (
        f"PyTorch is not installed for {os.path.abspath(python)}: pip install 'gpu-tui[torch]' "
        "or pass --bench-python PATH to a Python that has it"
    )
    assert isinstance(got[-1], m.Finished)
    assert got[-1].status == "failed"


def test_a_missing_or_broken_bench_python_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no executable file"):
        tiny_runner(["launch"], python=str(tmp_path / "nope")).start()
    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho not python\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(UsageError, match="not a working Python"):
        tiny_runner(["launch"], python=str(broken)).start()
