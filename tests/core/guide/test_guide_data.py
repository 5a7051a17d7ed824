"""The Guide's reference data: every figure has a source, every price a date, names never clash."""

from __future__ import annotations

import re

import pytest

from gpu_tui.core.devices.catalog import CATALOG
from gpu_tui.core.guide.cost import REFERENCE_PRICES
from gpu_tui.core.guide.extra_catalog import EXTRA, all_entries
from gpu_tui.core.guide.metrics import KEY_METRICS, WHY_GPUS
from gpu_tui.core.guide.prices import PRICES, prices_for
from gpu_tui.core.guide.versus import COLUMNS, ROWS, SOURCES


def test_every_metric_is_explained_and_sourced() -> None:
    assert len({m.name for m in KEY_METRICS}) == len(KEY_METRICS) == 10
    for metric in KEY_METRICS:
        assert metric.what
        assert metric.why
        assert metric.reading
        assert metric.sources
        assert all(metric.sources)


def test_gpu_util_is_explained_as_not_efficiency() -> None:
    util = next(m for m in KEY_METRICS if "GPU-Util" in m.name)
    assert "not efficiency" in util.reading


def test_three_why_gpus_cards_with_numbers_and_sources() -> None:
    assert [c.title for c in WHY_GPUS] == [
        "Parallel architecture",
        "Memory hierarchy",
        "Specialised instructions",
    ]
    for card in WHY_GPUS:
        assert card.sources
        assert all(card.sources)
        assert any(ch.isdigit() for ch in card.points[0])


def test_every_price_has_a_date_a_source_and_a_sane_value() -> None:
    assert PRICES, "there must be prices to check"
    for row in PRICES:
        assert row.date
        assert row.source.url.startswith("https://")
        assert row.source.says
        assert 0 < row.usd_per_gpu_hour < 20
        assert row.usd_high is None or row.usd_high > row.usd_per_gpu_hour
        assert row.kind in {"on-demand", "capacity block", "serverless"}


@pytest.mark.parametrize(
    ("gpu", "low", "high"), [("A100", 1.39, 3.43), ("H100", 2.58, 12.29), ("H200", 3.45, 10.0)]
)
def test_recent_on_demand_ranges_match_the_reference_summary(
    gpu: str, low: float, high: float
) -> None:
    recent = [r for r in prices_for(gpu) if r.kind == "on-demand" and r.date >= "2025"]
    values = [r.usd_per_gpu_hour for r in recent]
    assert (min(values), max(values)) == (low, high)


def test_prices_for_matches_by_prefix_cheapest_first() -> None:
    rows = prices_for("h100")
    assert all(r.gpu.startswith("H100") for r in rows)
    assert [r.usd_per_gpu_hour for r in rows] == sorted(r.usd_per_gpu_hour for r in rows)
    assert prices_for("TPU") == ()


@pytest.mark.parametrize("usd", [6.88, 10.98])
def test_reference_break_even_prices_stand_on_snapshot_rows(usd: float) -> None:
    assert any(row.usd_per_gpu_hour == usd for row in PRICES)
    assert any(f"{usd:.2f}" in p.label for p in REFERENCE_PRICES)


def test_extra_rows_never_repeat_catalog_rows() -> None:
    names = [entry.name for entry in all_entries()]
    assert len(names) == len(set(names)) == len(CATALOG) + len(EXTRA)
    assert all_entries()[: len(CATALOG)] == CATALOG


def test_extra_rows_are_sourced_and_convert_gib() -> None:
    for entry in EXTRA:
        assert entry.source
        assert entry.memory_gib is not None
        assert entry.memory_gib > 0
        assert entry.bandwidth_tbps is not None
        assert entry.bandwidth_tbps > 0
    trn2 = next(e for e in EXTRA if e.name == "AWS Trainium2 (Trn2)")
    assert trn2.memory_gib == 96  # "96 GiB", kept in GiB
    trn1 = next(e for e in EXTRA if e.name == "AWS Trainium (Trn1)")
    # 820 GB/s as the NKI guide prints it (two HBM2e stacks); never 820 "GiB/s" converted again.
    assert trn1.bandwidth_tbps == 0.82


def test_gpu_tpu_cpu_table_is_complete_and_sourced() -> None:
    assert len(COLUMNS) == 3
    assert len({row.aspect for row in ROWS}) == len(ROWS)
    for row in ROWS:
        assert row.cpu
        assert row.gpu
        assert row.tpu
    peak = next(row for row in ROWS if row.aspect == "Peak dense BF16")
    assert (peak.gpu, peak.tpu) == ("989 TFLOP/s", "459 (v5p) / 918 (v6e) TFLOP/s")
    assert all(SOURCES)


def test_a_rate_is_written_tflop_per_second_in_our_own_words() -> None:
    """One form for the rate across the Guide: "TFLOP/s" (a quantity per second), never
    "TFLOPS" beside it. Sources' quotes keep their own spelling; they are not shown as ours."""
    ours = [
        *(text for m in KEY_METRICS for text in (m.name, m.what, m.why, m.reading, *m.sources)),
        *(text for card in WHY_GPUS for text in (card.title, *card.points, *card.sources)),
        *(text for row in ROWS for text in (row.aspect, row.cpu, row.gpu, row.tpu)),
        *SOURCES,
        *COLUMNS,
        *(entry.notes for entry in all_entries()),
    ]
    assert not [text for text in ours if "TFLOPS" in text or "FLOPS " in text]
    # Nor the vendors' other spellings ("459 TFLOPs", "2765 GBps") in words that are ours.
    assert not [text for text in ours if re.search(r"\d\s*(TFLOPs|GBps|TBps)\b", text)]
