"""The Guide's lineup: this machine among the catalog, filter, sort, bar charts, measured rate."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.outputs import atomic_write
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.store import auto_path
from gpu_tui.core.guide.lineup import (
    COLUMNS,
    bar_charts,
    catalog_rows,
    display_name,
    filter_rows,
    local_rows,
    sort_rows,
)
from gpu_tui.core.guide.measured import best_tflops, latest_measured
from tests.ui.conftest import fixed_inventory

BY_ATTR = {column.attr: column for column in COLUMNS}


def test_simulated_names_end_in_one_label() -> None:
    assert display_name("NVIDIA H100 80GB HBM3 (SIMULATED #0)", True) == (
        "H100 80GB HBM3 (SIMULATED)"
    )
    assert display_name("AMD Instinct MI300X", False) == "AMD Instinct MI300X"


def test_local_rows_carry_computed_peaks_and_sources() -> None:
    cpu, gpu = local_rows(fixed_inventory())
    assert (cpu.key, cpu.vendor, cpu.bf16_tflops, cpu.bandwidth_tbps) == ("cpu", "AMD", None, None)
    assert cpu.fp32_tflops == pytest.approx(0.166, abs=1e-3)
    assert "FLOP/cycle" in cpu.source
    assert gpu.simulated
    assert gpu.name.endswith("(SIMULATED)")
    assert gpu.bf16_tflops == pytest.approx(989.4, abs=0.1)
    assert gpu.bandwidth_tbps == pytest.approx(3.352, abs=1e-3)
    assert "bandwidth = 2619 MHz" in gpu.source
    assert local_rows(None) == ()


def test_filter_matches_every_word_and_keeps_this_machine() -> None:
    rows = (*local_rows(fixed_inventory()), *catalog_rows())
    shown = filter_rows(rows, "Google  2023")
    assert {r.name for r in shown if not r.local} == {"Google TPU v5e", "Google TPU v5p"}
    assert sum(r.local for r in shown) == 2
    assert filter_rows(rows, "") == rows


@pytest.mark.parametrize("descending", [True, False])
def test_sort_puts_missing_figures_last(descending: bool) -> None:
    rows = sort_rows(catalog_rows(), BY_ATTR["tdp_watts"], descending)
    values = [r.tdp_watts for r in rows]
    present = [v for v in values if v is not None]
    assert present == sorted(present, reverse=descending)
    assert values[len(present) :] == [None] * (len(values) - len(present))


def test_bar_charts_rank_and_place_the_cpu_by_fp32() -> None:
    rows = (*local_rows(fixed_inventory()), *catalog_rows())
    bandwidth, bf16, memory = bar_charts(rows)
    assert [c.title for c in (bandwidth, bf16, memory)] == [
        "Memory bandwidth",
        "Dense BF16",
        "Memory",
    ]
    values = [b.value for b in bf16.bars if b.value is not None]
    assert values == sorted(values, reverse=True)
    cpu = next(b for b in bf16.bars if b.label.startswith("▶ CPU"))
    assert cpu.label == "▶ CPU FP32: AMD EPYC"
    assert next(b for b in bandwidth.bars if b.label.startswith("▶ CPU")).missing == "unknown"
    assert next(b for b in memory.bars if b.label == "Apple M3 Ultra").value == 512


def test_a_precision_the_architecture_lacks_is_said_so_not_called_unpublished() -> None:
    """V100, P100 and T4 have no BF16 at all; an A100 has BF16 but no FP8; a product whose
    architecture gpu-tui does not know keeps "not published"."""
    _, bf16, _ = bar_charts(catalog_rows())
    missing = {b.label: b.missing for b in bf16.bars if b.value is None}
    for name in ("V100 SXM2", "P100 SXM2", "T4"):
        assert missing[name] == "no BF16", name
    assert all(text in ("no BF16", "not published") for text in missing.values())
    assert "not published" in missing.values()  # (an Apple GPU's BF16 rate, say)
    rows = {row.name: row for row in catalog_rows()}
    assert rows["A100 80GB SXM"].missing("fp8_tflops") == "no FP8"
    assert rows["H100 SXM"].unsupported == frozenset()


def test_bars_carry_the_secondary_source_mark() -> None:
    _, bf16, _ = bar_charts(catalog_rows())
    weak = {b.label for b in bf16.bars if b.weak}
    assert "B200 (GB200)" in weak
    assert "H100 SXM" not in weak


def _result(value: float, unit: str, device: str = "cuda:0") -> BenchResult:
    return BenchResult(
        "matmul", "square", device, "bf16", {"n": 4096}, 1e-3, 1e-3, 1e-3, 5, value, unit, None
    )


def test_best_tflops_takes_the_fastest_accelerator_rate() -> None:
    doc = RunDocument("quick", 5.0, "2026-01-01T00:00:00+0000")
    assert best_tflops(doc) is None
    doc.results.extend([_result(900.0, "GFLOP/s", "cpu"), _result(350.0, "TFLOP/s"),
                        _result(610.0, "TFLOP/s")])  # fmt: skip
    measured = best_tflops(doc)
    assert measured is not None
    assert measured.tflops == 610.0
    assert "2026-01-01T00:00:00+0000" in measured.source
    assert "cuda:0" in measured.source


def test_latest_measured_skips_corrupt_and_cpu_only_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(tmp_path))
    assert latest_measured() is None
    older = RunDocument("quick", 5.0, "2026-01-01T00:00:00+0000", results=[_result(500, "TFLOP/s")])
    newer = RunDocument("quick", 5.0, "2026-02-01T00:00:00+0000",
                        results=[_result(150, "GFLOP/s", "cpu")])  # fmt: skip
    for doc in (older, newer):
        atomic_write(auto_path(doc), doc.to_json())
    (auto_path(newer).parent / "bench-29990101T000000Z-quick.json").write_text("{not json")
    measured = latest_measured()
    assert measured is not None
    assert measured.tflops == 500
