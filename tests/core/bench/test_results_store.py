"""Results documents: atomic saves, JSON/CSV out, baselines in (corrupt ones refused)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from gpu_tui.core.bench import outputs, store
from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.peak import PeakTable
from gpu_tui.core.bench.results import BenchResult, from_worker
from gpu_tui.core.errors import UsageError


def worker_result(n: int = 512, median: float = 0.01) -> dict[str, object]:
    return {
        "type": "result",
        "benchmark": "gemm",
        "variant": "mm",
        "device": "cpu",
        "dtype": "fp32",
        "params": {"m": n, "n": n, "k": n},
        "timing": {
            "median_seconds": median,
            "p20_seconds": median * 0.9,
            "p80_seconds": median * 1.1,
            "best_seconds": median * 0.8,
            "repeats": 7,
        },
        "warnings": ["noisy: IQR/median = 12%"],
        "foreign_cpu_vcpus": 0.0,
        "scope": "resident",
    }


def document(*results: BenchResult) -> RunDocument:
    doc = RunDocument("quick", 0.25, "2026-01-02T03:04:05+0000", environment={"cpu_threads": 2})
    doc.results.extend(results)
    return doc


def test_a_worker_result_gets_its_figure_and_peak() -> None:
    peaks = PeakTable({})
    peaks.set("cpu", "fp32", 200.0)
    result = from_worker(worker_result(1000, 0.01), peaks)
    assert result.value == pytest.approx(200.0)
    assert result.unit == "GFLOP/s"
    assert result.percent_of_peak == pytest.approx(100.0)
    assert (result.repeats, result.p20_seconds) == (7, pytest.approx(0.009))
    assert result.warnings == ["noisy: IQR/median = 12%"]


def test_document_round_trips_through_json(tmp_path: Path) -> None:
    doc = document(from_worker(worker_result(), PeakTable({})))
    doc.interrupted = True
    data = json.loads(doc.to_json())
    assert data["schema_version"] == 1
    assert data["interrupted"] is True
    for field in (
        "benchmark",
        "device",
        "dtype",
        "params",
        "median_seconds",
        "p20_seconds",
        "p80_seconds",
        "repeats",
        "value",
        "unit",
        "percent_of_peak",
        "warnings",
    ):
        assert field in data["results"][0]
    again = RunDocument.from_dict(data)
    assert again.results[0] == doc.results[0]


def test_csv_export_has_one_row_per_result(tmp_path: Path) -> None:
    doc = document(
        from_worker(worker_result(256), PeakTable({})),
        from_worker(worker_result(512), PeakTable({})),
    )
    path = tmp_path / "run.csv"
    store.export(doc, path)
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert [json.loads(r["params"])["n"] for r in rows] == [256, 512]
    assert rows[0]["unit"] == "GFLOP/s"
    assert rows[0]["percent_of_peak"] == ""


def test_atomic_write_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "x.json"
    outputs.atomic_write(target, "one")
    outputs.atomic_write(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["x.json"]


def test_data_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GPU_TUI_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert store.results_dir() == tmp_path / "xdg" / "gpu-tui" / "results"
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(tmp_path / "mine"))
    assert store.results_dir() == tmp_path / "mine" / "results"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON: object keys must be strings at line 1, column 2"),
        ('{"schema_version": 1}', "suite is missing"),
        ("[1, 2]", "is not a gpu-tui bench results file: the top level is a list"),
        (
            '{"schema_version": 1, "suite": "quick", "budget_seconds": 1, '
            '"started_at": "2026-01-02T03:04:05+0000", "results": [{"benchmark": "x"}]}',
            "results[0].variant is missing",
        ),
    ],
)
def test_a_corrupt_baseline_is_a_usage_error_naming_the_file_and_the_problem(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(content)
    with pytest.raises(UsageError) as caught:
        store.load(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)
    with pytest.raises(UsageError, match=r"missing\.json: cannot be read: No such file"):
        store.load(tmp_path / "missing.json")


def test_a_saved_document_loads_back_equal(tmp_path: Path) -> None:
    doc = document(from_worker(worker_result(), PeakTable({})))
    doc.plan = {"suite": "quick", "benchmarks": [{"name": "gemm"}]}
    doc.finished, doc.finished_at = True, "2026-01-02T03:05:00+0000"
    path = tmp_path / "run.json"
    path.write_text(doc.to_json())
    assert store.load(path) == doc


def test_deltas_against_a_baseline() -> None:
    before = document(from_worker(worker_result(512, 0.02), PeakTable({})))
    now = [
        from_worker(worker_result(512, 0.01), PeakTable({})),
        from_worker(worker_result(256, 0.01), PeakTable({})),
    ]
    deltas = store.compare(now, before)
    assert list(deltas) == [now[0].key]
    assert deltas[now[0].key].speedup == pytest.approx(2.0)
    assert deltas[now[0].key].percent == pytest.approx(100.0)


def test_json_with_a_baseline_gives_each_matching_result_its_earlier_value_and_change(
    tmp_path: Path,
) -> None:
    before = document(from_worker(worker_result(512, 0.02), PeakTable({})))
    now = document(
        from_worker(worker_result(512, 0.01), PeakTable({})),
        from_worker(worker_result(256, 0.01), PeakTable({})),
    )
    data = json.loads(store.document_json(now, (before, tmp_path / "old.json")))
    assert data["baseline_file"] == str(tmp_path / "old.json")
    matched, new = data["results"]
    assert matched["baseline"] == {
        "value": pytest.approx(2 * 512**3 / 0.02 / 1e9),
        "unit": "GFLOP/s",
        "median_seconds": 0.02,
        "relative_change": pytest.approx(1.0),  # twice the GFLOP/s
        "speedup": pytest.approx(2.0),
    }
    assert new["baseline"] is None
    assert "baseline" not in json.loads(store.document_json(now))["results"][0]
    out = tmp_path / "run.json"
    store.export(now, out, (before, tmp_path / "old.json"))
    assert json.loads(out.read_text())["results"][0]["baseline"]["speedup"] == pytest.approx(2.0)
    assert store.load(out).results[0].value == now.results[0].value  # still a loadable run
