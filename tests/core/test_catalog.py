"""Tests for the reference accelerator catalog and NVML-name matching."""

from __future__ import annotations

import dataclasses
import re

import pytest

from gpu_tui.core.devices.catalog import (
    CATALOG,
    FIGURES,
    CatalogEntry,
    cites,
    find_entry,
    match_datasheet,
)
from gpu_tui.core.devices.sources import Source

NUMBERS = ("memory_gib", "bandwidth_tbps", "fp32_tflops", "bf16_tflops", "fp8_tflops", "tdp_watts")


def test_catalog_has_the_reference_rows() -> None:
    names = {entry.name for entry in CATALOG}
    assert len(names) == len(CATALOG)
    for expected in (
        "NVIDIA P100 SXM2",
        "NVIDIA V100 SXM2",
        "NVIDIA T4",
        "NVIDIA A100 40GB SXM",
        "NVIDIA A100 80GB SXM",
        "NVIDIA A100 80GB PCIe",
        "NVIDIA RTX 3090",
        "NVIDIA H100 SXM",
        "NVIDIA H100 PCIe",
        "NVIDIA RTX 4090",
        "NVIDIA L4",
        "NVIDIA L40S",
        "NVIDIA H200 SXM",
        "NVIDIA B200 (HGX)",
        "NVIDIA B300 (Blackwell Ultra)",
        "NVIDIA RTX 5090",
        "AMD Instinct MI250X",
        "AMD Instinct MI300X",
        "Intel Gaudi 2",
        "Intel Gaudi 3",
        "Google TPU v4",
        "Google TPU v5e",
        "Google TPU v5p",
        "Apple M1 (8-core GPU)",
        "Apple M1 Max (32-core GPU)",
        "Apple M2 Ultra (76-core GPU)",
        "Apple M4 Max (40-core GPU)",
    ):
        assert expected in names


@pytest.mark.parametrize("entry", CATALOG, ids=lambda e: e.name)
def test_every_figure_has_a_source_or_is_none(entry: CatalogEntry) -> None:
    for name in FIGURES:
        value = getattr(entry, name)
        assert (value is None) == (entry.source_of(name) is None), name
    for value in (getattr(entry, name) for name in NUMBERS):
        assert value is None or (isinstance(value, int | float) and value > 0)
    assert entry.source.strip()


def test_an_entry_without_a_source_for_a_figure_is_refused() -> None:
    sheet = Source("https://example.com/sheet", "80 GB", "a sheet")
    with pytest.raises(ValueError, match="no source for year"):
        CatalogEntry("X", "V", "A", 2024, 80, None, None, None, None, None, None, None,
                     cites(memory_gib=sheet))  # fmt: skip
    with pytest.raises(ValueError, match="not catalog figures"):
        cites(sheet, price=sheet)


@pytest.mark.parametrize("entry", CATALOG, ids=lambda e: e.name)
def test_dense_never_exceeds_sparse(entry: CatalogEntry) -> None:
    if entry.bf16_tflops is not None and entry.bf16_sparse_tflops is not None:
        assert entry.bf16_tflops <= entry.bf16_sparse_tflops
    if entry.fp8_tflops is not None and entry.fp8_sparse_tflops is not None:
        assert entry.fp8_tflops <= entry.fp8_sparse_tflops


def test_known_sparse_figures_are_not_in_dense_fields() -> None:
    h100 = find_entry("NVIDIA H100 80GB HBM3")
    assert h100 is not None
    assert h100.bf16_tflops == 989.4
    assert h100.bf16_sparse_tflops == 1978.9
    mi300x = find_entry("AMD Instinct MI300X")
    assert mi300x is not None
    assert mi300x.bf16_tflops == 1307.4
    # GeForce 5090: the FP32-accumulate rate (the one the table promises) is half the
    # FP16-accumulate one, and the whitepaper prints it: 209.5, never the 419 of FP16 accumulate.
    rtx5090 = find_entry("NVIDIA GeForce RTX 5090")
    assert rtx5090 is not None
    assert rtx5090.bf16_tflops == 209.5
    assert rtx5090.bf16_sparse_tflops == 419


@pytest.mark.parametrize(
    ("nvml_name", "product"),
    [
        ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM"),
        ("NVIDIA H100 PCIe", "NVIDIA H100 PCIe"),
        ("NVIDIA H200", "NVIDIA H200 SXM"),
        ("NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB SXM"),
        ("NVIDIA A100-SXM4-40GB", "NVIDIA A100 40GB SXM"),
        ("NVIDIA A100 80GB PCIe", "NVIDIA A100 80GB PCIe"),
        ("NVIDIA GeForce RTX 4090", "NVIDIA RTX 4090"),
        ("NVIDIA GeForce RTX 3090", "NVIDIA RTX 3090"),
        ("NVIDIA GeForce RTX 5090", "NVIDIA RTX 5090"),
        ("NVIDIA L40S", "NVIDIA L40S"),
        ("NVIDIA L4", "NVIDIA L4"),
        ("Tesla T4", "NVIDIA T4"),
        ("Tesla V100-SXM2-32GB", "NVIDIA V100 SXM2"),
        ("Tesla P100-SXM2-16GB", "NVIDIA P100 SXM2"),
        ("NVIDIA B200", "NVIDIA B200 (HGX)"),
        ("AMD Instinct MI300X", "AMD Instinct MI300X"),
    ],
)
def test_match_datasheet_by_nvml_name(nvml_name: str, product: str) -> None:
    sheet = match_datasheet(nvml_name)
    assert sheet is not None
    assert sheet.product == product


@pytest.mark.parametrize(
    "nvml_name",
    [
        "NVIDIA H100 NVL",  # different SKU (94 GB, other clocks)
        "NVIDIA H200 NVL",
        "NVIDIA A100-PCIE-40GB",  # no row for it: a wrong sheet is worse than none
        "NVIDIA GeForce RTX 4090 D",
        "NVIDIA GeForce RTX 4090 Laptop GPU",
        "NVIDIA L40",
        "NVIDIA GeForce RTX 3090 Ti",
        "Tesla V100-PCIE-16GB",
        "NVIDIA A10",
        "",
    ],
)
def test_unknown_skus_get_no_datasheet(nvml_name: str) -> None:
    assert match_datasheet(nvml_name) is None


def test_datasheet_carries_dense_figures_in_gbps() -> None:
    sheet = match_datasheet("NVIDIA H200")
    assert sheet is not None
    assert sheet.memory_bandwidth_gb_per_second == 4800.0
    assert sheet.bf16_tflops == 989.5  # NVIDIA prints 1,979 with sparsity
    assert sheet.fp8_tflops == 1979
    assert "https://www.nvidia.com/en-us/data-center/h200/" in sheet.source
    a100 = match_datasheet("NVIDIA A100-SXM4-40GB")
    assert a100 is not None
    assert a100.memory_bandwidth_gb_per_second == 1555.0


def test_entries_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        CATALOG[0].name = "x"  # type: ignore[misc]


def test_a_document_titled_with_a_version_links_that_version() -> None:
    """A title that names an edition ("whitepaper v1.03") must name the one its address
    opens: a reader who checks a figure against a different edition may not find it."""
    from gpu_tui.core.guide.extra_catalog import all_entries

    version = re.compile(r"\bv(\d+(?:\.\d+)+)\b", re.IGNORECASE)
    checked = 0
    for entry in all_entries():
        for document in entry.documents():
            titled = set(version.findall(document.title or ""))
            if titled:
                checked += 1
                linked = set(version.findall(document.url.replace("_", " ")))
                assert titled <= linked, f"{entry.name}: {document.title} vs {document.url}"
    assert checked  # the H100 whitepaper names its edition
