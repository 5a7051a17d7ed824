"""The Guide's catalog, prices and cost arithmetic, each value beside what its source states.

``STATED`` restates, for every figure of every catalog product, the words of the document the
catalog names for it (a substring of that source's ``says``) and the rule that turns the stated
number into the catalog's: as printed, half of a 2:4-sparse figure, a per-GPU share of an 8-GPU
board, GiB to 10^9 bytes, GB/s to TB/s. The test finds the quote in the named source and
recomputes the figure from it, so a figure that drifts from its document fails, and so does a
figure no one restated here. Cost: break-even and $/useful hour recomputed by hand from the
inputs and the sourced prices.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpu_tui.core.devices import peaks
from gpu_tui.core.devices.catalog import CatalogEntry
from gpu_tui.core.devices.sources import Source
from gpu_tui.core.guide import cost, metrics, prices, versus
from gpu_tui.core.guide.extra_catalog import all_entries
from gpu_tui.core.guide.lineup import catalog_rows
from gpu_tui.core.guide.report import cost_lines
from gpu_tui.ui.guide import catalog_view, cost_text, cost_view

ENTRIES = {entry.name: entry for entry in all_entries()}

Rule = Callable[[float], float]


def same(x: float) -> float:
    return x


def half(x: float) -> float:
    """Dense from a figure printed with 2:4 sparsity."""
    return x / 2


def per_gpu(x: float) -> float:
    """One GPU's share of an 8-GPU board's figure (same unit)."""
    return x / 8


def peta_per_gpu_dense(x: float) -> float:
    """PFLOPS with sparsity for an 8-GPU board → dense TFLOPS per GPU."""
    return x * 1000 / 8 / 2


def peta(x: float) -> float:
    return x * 1000


def tb(x: float) -> float:
    """GB/s (or GBps) → TB/s; the catalog keeps bandwidth in TB/s."""
    return x / 1000


def tb_per_gpu(x: float) -> float:
    """An 8-GPU board's total GB → one GPU's GB, or its TB/s → one GPU's TB/s."""
    return x / 8


def gib(x: float) -> float:
    """A capacity stated in GiB: the catalog keeps memory in GiB, as printed."""
    return x


# Product → figure → (the document's words, the rule from its last number to the catalog).
# Text figures (memory type, ISA, year) only need their words: the catalog's text is in them.
STATED: dict[str, dict[str, tuple[str, Rule]]] = {
    "NVIDIA P100 SXM2": {
        "year": ("April 5, 2016", same),
        "memory_gib": ("Stacked Memory Capacity 16", same),
        "memory_type": ("HBM2", same),
        "bandwidth_tbps": ("Stacked Memory Bandwidth 732", tb),
        "fp32_tflops": ("Single-Precision Performance 10.6", same),
        "tdp_watts": ("Max Power Consumption 300", same),
        "compute": ("Tesla P100 6.0", same),
    },
    "NVIDIA V100 SXM2": {
        "year": ("May 10, 2017", same),
        "memory_gib": ("32 GB / 16", same),
        "memory_type": ("HBM2", same),
        "bandwidth_tbps": ("Memory Bandwidth 900", tb),
        "fp32_tflops": ("Single-Precision 15.7", same),
        "tdp_watts": ("Max Power Consumption 300", same),
        "compute": ("Tesla V100 7.0", same),
    },
    "NVIDIA T4": {
        "year": ("September 12, 2018", same),
        "memory_gib": ("GPU Memory 16", same),
        "memory_type": ("16 GB GDDR6", same),
        "bandwidth_tbps": ("GDDR6, 300", tb),
        "fp32_tflops": ("Single-Precision 8.1", same),
        "tdp_watts": ("Power 70", same),
        "compute": ("T4 7.5", same),
    },
    "NVIDIA A100 40GB SXM": {
        "year": ("May 14, 2020", same),
        "memory_gib": ("GPU Memory 40", same),
        "memory_type": ("40 GB HBM2", same),
        "bandwidth_tbps": ("Memory Bandwidth 1,555", tb),
        "fp32_tflops": ("FP32 19.5", same),
        "bf16_tflops": ("BFLOAT16 Tensor Core 312", same),
        "tdp_watts": ("Max TDP Power 400", same),
        "compute": ("A100 8.0", same),
    },
    "NVIDIA A100 80GB SXM": {
        "year": ("November 16, 2020", same),
        "memory_gib": ("GPU Memory 80", same),
        "memory_type": ("80GB HBM2e", same),
        "bandwidth_tbps": ("1,935 GB/s | 2,039", tb),
        "fp32_tflops": ("FP32 19.5", same),
        "bf16_tflops": ("BFLOAT16 Tensor Core 312", same),
        "tdp_watts": ("300W | 400", same),
        "compute": ("A100 8.0", same),
    },
    "NVIDIA A100 80GB PCIe": {
        "year": ("November 16, 2020", same),
        "memory_gib": ("GPU Memory 80", same),
        "memory_type": ("80GB HBM2e", same),
        "bandwidth_tbps": ("GPU Memory Bandwidth 1,935", tb),
        "fp32_tflops": ("FP32 19.5", same),
        "bf16_tflops": ("BFLOAT16 Tensor Core 312", same),
        "tdp_watts": ("(TDP) 300", same),
        "compute": ("A100 8.0", same),
    },
    "NVIDIA RTX 3090": {
        "year": ("September 1, 2020", same),
        "memory_gib": ("Memory Size 24", same),
        "memory_type": ("24 GB GDDR6X", same),
        "bandwidth_tbps": ("Memory Bandwidth 936", tb),
        "fp32_tflops": ("(non-Tensor) 35.6", same),
        "bf16_tflops": ("Peak BF16 Tensor TFLOPS with FP32 Accumulate 71", same),
        "tdp_watts": ("Power 350", same),
        "compute": ("GeForce RTX 3090 8.6", same),
    },
    "NVIDIA H100 SXM": {
        "year": ("March 22, 2022", same),
        "memory_gib": ("GPU memory 80", same),
        "memory_type": ("5120-bit HBM3 |", same),
        "bandwidth_tbps": ("bandwidth 3.35", same),
        "fp32_tflops": ("FP32 67", same),
        "bf16_tflops": ("Peak BF16 Tensor Core 989.4", same),
        "fp8_tflops": ("FP8 Tensor Core 3,958", half),
        "tdp_watts": ("Up to 700", same),
        "compute": ("H100 9.0", same),
    },
    "NVIDIA H100 PCIe": {
        "year": ("March 22, 2022", same),
        "memory_gib": ("GPU memory 80GB | 80", same),
        "memory_type": ("5120-bit HBM2e", same),
        "bandwidth_tbps": ("3.35TB/s | 2", same),
        "fp32_tflops": ("FP32 67 | 51", same),
        "bf16_tflops": ("756", same),
        "fp8_tflops": ("3,958 | 3,026", half),
        "tdp_watts": ("300-350", same),
        "compute": ("H100 9.0", same),
    },
    "NVIDIA RTX 4090": {
        "year": ("September 20, 2022", same),
        "memory_gib": ("Memory Size 24", same),
        "memory_type": ("24 GB GDDR6X", same),
        "bandwidth_tbps": ("Memory Bandwidth 1008", tb),
        "fp32_tflops": ("(non-Tensor) 82.6", same),
        "bf16_tflops": ("Peak BF16 Tensor TFLOPS with FP32 Accumulate 165.2", same),
        "fp8_tflops": ("Peak FP8 Tensor TFLOPS with FP32 Accumulate 330.3", same),
        "tdp_watts": ("Power 450", same),
        "compute": ("GeForce RTX 4090 8.9", same),
    },
    "NVIDIA L4": {
        "year": ("March 21, 2023", same),
        "memory_gib": ("GPU memory 24", same),
        "memory_type": ("24 GB GDDR6", same),
        "bandwidth_tbps": ("bandwidth 300", tb),
        "fp32_tflops": ("FP32 30.3", same),
        "bf16_tflops": ("BFLOAT16 Tensor Core 242", half),
        "fp8_tflops": ("FP8 Tensor Core 485", half),
        "tdp_watts": ("(TDP) 72", same),
        "compute": ("L4 8.9", same),
    },
    "NVIDIA L40S": {
        "year": ("August 8, 2023", same),
        "memory_gib": ("GPU Memory 48", same),
        "memory_type": ("48GB GDDR6", same),
        "bandwidth_tbps": ("Memory Bandwidth 864", tb),
        "fp32_tflops": ("FP32 91.6", same),
        "bf16_tflops": ("BFLOAT16 Tensor Core 362.05", same),
        "fp8_tflops": ("FP8 Tensor Core 733", same),
        "tdp_watts": ("Max Power Consumption 350", same),
        "compute": ("L40S 8.9", same),
    },
    "NVIDIA H200 SXM": {
        "year": ("November 13, 2023", same),
        "memory_gib": ("GPU Memory 141", same),
        "memory_type": ("(HBM3e)", same),
        "bandwidth_tbps": ("Bandwidth 4.8", same),
        "fp32_tflops": ("FP32 67", same),
        "bf16_tflops": ("BFLOAT16 Tensor Core 1,979", half),
        "fp8_tflops": ("FP8 Tensor Core 3,958", half),
        "tdp_watts": ("Up to 700", same),
        "compute": ("H200 9.0", same),
    },
    "NVIDIA B200 (HGX)": {
        "year": ("March 18, 2024", same),
        "memory_gib": ("GPU Memory: 1,440", per_gpu),
        "memory_type": ("HBM3e", same),
        "bandwidth_tbps": ("64", tb_per_gpu),
        "fp32_tflops": ("FP32 600 TFLOPS | 600", per_gpu),
        "bf16_tflops": ("FP16/BF16 Tensor Core* 36 PFLOPS | 36", peta_per_gpu_dense),
        "fp8_tflops": ("FP8/FP6 Tensor Core* 72 PFLOPS | 72", peta_per_gpu_dense),
        "tdp_watts": ("configured at 1,000", same),
        "compute": ("B200, GB200 10.0", same),
    },
    "NVIDIA B200 (GB200)": {
        "year": ("March 18, 2024", same),
        "memory_type": ("HBM3e", same),
        "bandwidth_tbps": ("8", same),
        "fp32_tflops": ("FP32 90", same),
        "bf16_tflops": ("BF16 2500", same),
        "fp8_tflops": ("FP8 5000", same),
        "tdp_watts": ("GB200 variant at 1,200", same),
        "compute": ("B200, GB200 10.0", same),
    },
    "NVIDIA B300 (Blackwell Ultra)": {
        "year": ("March 18, 2025", same),
        "memory_gib": ("288", same),
        "memory_type": ("288 GB HBM3e", same),
        "bandwidth_tbps": ("8", same),
        "fp32_tflops": ("FP32 600", per_gpu),
        "bf16_tflops": ("FP16/BF16 Tensor Core* 36", peta_per_gpu_dense),
        "fp8_tflops": ("FP8/FP6 Tensor Core* 72", peta_per_gpu_dense),
        "compute": ("B300, GB300 10.3", same),
    },
    "NVIDIA RTX 5090": {
        "year": ("January 6, 2025", same),
        "memory_gib": ("Memory Size 32", same),
        "memory_type": ("32 GB GDDR7", same),
        "bandwidth_tbps": ("Memory Bandwidth 1792", tb),
        "fp32_tflops": ("(non-Tensor) 104.8", same),
        "bf16_tflops": ("Peak FP16 Tensor TFLOPS with FP32 Accumulate 209.5", same),
        "fp8_tflops": ("Peak FP8 Tensor TFLOPS with FP32 Accumulate 419", same),
        "tdp_watts": ("Power 575", same),
        "compute": ("GeForce RTX 5090 12.0", same),
    },
    "AMD Instinct MI250X": {
        "year": ("Launch Date 11/08/2021", same),
        "memory_gib": ("Dedicated Memory Size 128", same),
        "memory_type": ("128 GB HBM2e", same),
        "bandwidth_tbps": ("Peak Memory Bandwidth 3.2", same),
        "fp32_tflops": ("Vector Performance 47.9", same),
        "bf16_tflops": ("Peak bfloat16 383", same),
        "tdp_watts": ("Total Board Power 500", same),
        "compute": ("MI250X gfx90a", same),
    },
    "AMD Instinct MI300X": {
        "year": ("Launch Date 12/06/2023", same),
        "memory_gib": ("Dedicated Memory Size 192", same),
        "memory_type": ("192 GB HBM3", same),
        "bandwidth_tbps": ("Peak Memory Bandwidth 5.3", same),
        "fp32_tflops": ("Vector Performance 163.4", same),
        "bf16_tflops": ("Peak bfloat16 1307.4", same),
        "fp8_tflops": ("Peak FP8 2614.9", same),
        "tdp_watts": ("Peak Total Board Power 750", same),
        "compute": ("MI300X gfx942", same),
    },
    "AMD Instinct MI325X": {
        "year": ("Launch Date 10/10/2024", same),
        "memory_gib": ("Dedicated Memory Size 256", same),
        "memory_type": ("256 GB HBM3E", same),
        "bandwidth_tbps": ("Peak Memory Bandwidth 6", same),
        "fp32_tflops": ("Vector Performance 163.4", same),
        "bf16_tflops": ("Peak bfloat16 1307.4", same),
        "fp8_tflops": ("Peak FP8 2614.9", same),
        "tdp_watts": ("Total Board Power 1000", same),
        "compute": ("MI325X gfx942", same),
    },
    "AMD Instinct MI355X": {
        "year": ("Launch Date 06/12/2025", same),
        "memory_gib": ("Dedicated Memory Size 288", same),
        "memory_type": ("288 GB HBM3E", same),
        "bandwidth_tbps": ("Peak Memory Bandwidth 8", same),
        "fp32_tflops": ("Vector Performance 157.3", same),
        "bf16_tflops": ("Peak bfloat16 2.5", peta),
        "fp8_tflops": ("Peak OCP-FP8 5", peta),
        "tdp_watts": ("Total Board Power 1400", same),
        "compute": ("MI355X gfx950", same),
    },
    "Intel Gaudi 2": {
        "year": ("2022-05-11", same),
        "memory_gib": ("HBM Capacity 96", same),
        "memory_type": ("96GB HBM2E", same),
        "bandwidth_tbps": ("Peak HBM BW 2.46", same),
        "bf16_tflops": ("Peak Compute (BF16) 432", same),
        "fp8_tflops": ("fp8 865", same),
        "tdp_watts": ("TDP (OAM) 600", same),
    },
    "Intel Gaudi 3": {
        "year": ("April 9, 2024", same),
        "memory_gib": ("96 GB | 128", same),
        "memory_type": ("8 HBM2e stacks", same),
        "bandwidth_tbps": ("2.46 TB/s | 3.67", same),
        "bf16_tflops": ("432 | 1835", same),
        "fp8_tflops": ("FP8 Matrix TFLOPs (Gaudi 3) 1835", same),
        "tdp_watts": ("600W | 900", same),
    },
    "Google TPU v4": {
        "year": ("December 2021", same),
        "memory_gib": ("32", gib),
        "memory_type": ("HBM2 capacity", same),
        "bandwidth_tbps": ("32 GiB, 1200", tb),
        "bf16_tflops": ("Peak compute per chip 275", same),
    },
    "Google TPU v5e": {
        "year": ("August 29, 2023", same),
        "memory_gib": ("16", same),
        "memory_type": ("HBM2 capacity", same),
        "bandwidth_tbps": ("16 GB, 819", tb),
        "bf16_tflops": ("Peak compute per chip (bf16) 197", same),
    },
    "Google TPU v5p": {
        "year": ("December 6, 2023", same),
        "memory_gib": ("95", same),
        "memory_type": ("HBM2e capacity", same),
        "bandwidth_tbps": ("95GB, 2765", tb),
        "bf16_tflops": ("Peak compute per chip (bf16) 459", same),
        "fp8_tflops": ("Peak compute per chip (FP8) (TFLOPs) 459", same),
    },
    "Google TPU v6e (Trillium)": {
        "year": ("May 14, 2024", same),
        "memory_gib": ("HBM capacity per chip 32", same),
        "memory_type": ("HBM capacity", same),
        "bandwidth_tbps": ("HBM bandwidth per chip 1638", tb),
        "bf16_tflops": ("Peak compute per chip (bf16) 918", same),
        "fp8_tflops": ("(FP8) (TFLOPs) 459 | 918", same),
    },
    "Google TPU7x (Ironwood)": {
        "year": ("April 9, 2025", same),
        "memory_gib": ("(GiB) 95 | 32 | 192", gib),
        "memory_type": ("HBM capacity", same),
        "bandwidth_tbps": ("(GBps) 2765 | 1638 | 7380", tb),
        "bf16_tflops": ("(BF16) (TFLOPs) 459 | 918 | 2307", same),
        "fp8_tflops": ("(FP8) (TFLOPs) 459 | 918 | 4614", same),
    },
    "AWS Trainium (Trn1)": {
        "year": ("October 10, 2022", same),
        "memory_gib": ("32", gib),
        "memory_type": ("2 HBM stacks", same),
        "bandwidth_tbps": ("bandwidth of 820", tb),
        "fp32_tflops": ("47.5", same),
        "bf16_tflops": ("190", same),
        "fp8_tflops": ("190", same),
    },
    "AWS Inferentia2 (Inf2)": {
        "year": ("April 13, 2023", same),
        "memory_gib": ("32", gib),
        "memory_type": ("(HBM)", same),
        "bandwidth_tbps": ("bandwidth of 820", tb),
        "fp32_tflops": ("47.5", same),
        "bf16_tflops": ("190", same),
        "fp8_tflops": ("190", same),
    },
    "AWS Trainium2 (Trn2)": {
        "year": ("December 3, 2024", same),
        "memory_gib": ("capacity of 96", gib),
        "memory_type": ("4 HBM stacks", same),
        "bandwidth_tbps": ("bandwidth of 2.9", same),
        "fp32_tflops": ("181", same),
        "bf16_tflops": ("667", same),
        "fp8_tflops": ("1,299", same),
    },
    "AWS Trainium3 (Trn3)": {
        "year": ("December 2, 2025", same),
        "memory_gib": ("144", gib),
        "memory_type": ("4 HBM stacks", same),
        "bandwidth_tbps": ("with 4.9", same),
        "fp32_tflops": ("183", same),
        "bf16_tflops": ("671", same),
    },
    "Apple M1 (8-core GPU)": {
        "year": ("November 10, 2020", same),
        "memory_gib": ("configurable to 16", same),
        "memory_type": ("LPDDR4X", same),
        "bandwidth_tbps": ("68.25", tb),
        "fp32_tflops": ("2.6", same),
        "compute": ("Apple7", same),
    },
    "Apple M1 Max (32-core GPU)": {
        "year": ("October 18, 2021", same),
        "memory_gib": ("up to 64", same),
        "memory_type": ("LPDDR5", same),
        "bandwidth_tbps": ("up to 400", tb),
        "fp32_tflops": ("10.4", same),
        "compute": ("Apple7", same),
    },
    "Apple M2 Ultra (76-core GPU)": {
        "year": ("June 5, 2023", same),
        "memory_gib": ("up to 192", same),
        "memory_type": ("LPDDR5", same),
        "bandwidth_tbps": ("800", tb),
        "fp32_tflops": ("27.2", same),
        "compute": ("Apple8", same),
    },
    "Apple M4 Max (40-core GPU)": {
        "year": ("October 30, 2024", same),
        "memory_gib": ("up to 128", same),
        "memory_type": ("LPDDR5X", same),
        "bandwidth_tbps": ("546", tb),
        "compute": ("Apple9", same),
    },
    "Apple M3 Ultra": {
        "year": ("March 5, 2025", same),
        "memory_gib": ("configurable to 512", same),
        "bandwidth_tbps": ("819", tb),
        "compute": ("Apple9", same),
    },
}

_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_TEXT_FIGURES = {"memory_type", "compute"}


def _last_number(quote: str) -> float:
    found = _NUMBER.findall(quote)
    assert found, f"no number in {quote!r}"
    return float(found[-1].replace(",", ""))


def _cases() -> Iterator[tuple[str, str]]:
    for name, entry in ENTRIES.items():
        for figure in entry.published():
            yield name, figure


@pytest.mark.parametrize(("name", "figure"), list(_cases()), ids=lambda v: str(v))
def test_each_figure_is_what_its_source_states(name: str, figure: str) -> None:
    entry = ENTRIES[name]
    assert figure in STATED.get(name, {}), f"{name} {figure}: restate its source here"
    quote, rule = STATED[name][figure]
    source = entry.source_of(figure)
    assert source is not None
    assert quote in source.says, f"{name} {figure}: {quote!r} not in {source.title}"
    value = getattr(entry, figure)
    if figure == "year":
        assert str(value) in quote
    elif figure in _TEXT_FIGURES:
        assert str(value).removeprefix("Metal ").lower() in quote.lower()
    else:
        assert value == pytest.approx(rule(_last_number(quote)), rel=2e-3), source.says


def test_no_restated_figure_is_left_over() -> None:
    assert STATED, "the sources' statements must be restated here"
    for name, stated in STATED.items():
        assert set(stated) == set(ENTRIES[name].published()), name


def _sources() -> Iterator[tuple[str, Source]]:
    for entry in ENTRIES.values():
        for _, source in entry.sources:
            yield entry.name, source


# The documents only a secondary page stands for, and why no vendor document was used.
WEAK = {
    "https://glennklockwood.com/garden/processors/B200": "GB200 per-GPU figures and HGX B200 "
    "power: NVIDIA's Blackwell datasheet could not be read here",
    "https://glennklockwood.com/garden/processors/B300": "B300 per-GPU bandwidth",
    "https://github.com/stas00/ml-engineering/blob/master/compute/accelerator/README.md": "Gaudi 2 "
    "FP8: no Intel document stating it was found",
    "https://technode.com/2023/07/12/intel-launches-habana-gaudi-2-deep-learning-accelerator-"
    "card-for-chinese-market/": "Gaudi 2 memory type",
    "https://www.benzinga.com/news/22/05/27128444/intel-fires-up-rivalry-with-nvidia-tsmc-with-"
    "ai-chip-launch": "Gaudi 2 launch date",
    "https://www.theregister.com/2024/04/09/intel_gaudi_ai_accelerator/": "Gaudi 3 launch date",
    "https://en.wikipedia.org/wiki/Apple_M1": "Apple prints no M1 bandwidth, no LPDDR "
    "generation and no M1 Max TFLOPS",
    "https://en.wikipedia.org/wiki/Apple_M2": "Apple prints no M2 Ultra TFLOPS or LPDDR generation",
    "https://en.wikipedia.org/wiki/Apple_M4": "Apple prints no LPDDR generation",
}


def test_every_source_is_an_https_document_and_primary_unless_listed() -> None:
    sources = list(_sources())
    assert sources, "the catalog must cite its sources"
    for name, source in sources:
        assert source.url.startswith("https://"), (name, source.url)
        assert source.says.strip(), (name, source.url)
        assert source.title.strip(), (name, source.url)
        assert source.primary == (source.url not in WEAK), (name, source.url)


def test_weak_figures_are_exactly_these_and_the_table_marks_them() -> None:
    weak = {(e.name, f) for e in ENTRIES.values() for f in e.weak_figures()}
    assert weak == {
        ("NVIDIA B200 (HGX)", "tdp_watts"),
        *(
            ("NVIDIA B200 (GB200)", f)
            for f in ("bandwidth_tbps", "fp32_tflops", "bf16_tflops", "fp8_tflops", "tdp_watts")
        ),
        ("NVIDIA B300 (Blackwell Ultra)", "bandwidth_tbps"),
        ("Intel Gaudi 2", "year"),
        ("Intel Gaudi 2", "memory_type"),
        ("Intel Gaudi 2", "fp8_tflops"),
        ("Intel Gaudi 3", "year"),
        ("Apple M1 (8-core GPU)", "memory_type"),
        ("Apple M1 (8-core GPU)", "bandwidth_tbps"),
        ("Apple M1 Max (32-core GPU)", "memory_type"),
        ("Apple M1 Max (32-core GPU)", "fp32_tflops"),
        ("Apple M2 Ultra (76-core GPU)", "memory_type"),
        ("Apple M2 Ultra (76-core GPU)", "fp32_tflops"),
        ("Apple M4 Max (40-core GPU)", "memory_type"),
    }
    for row in catalog_rows():
        detail = catalog_view.describe(row).plain
        assert (catalog_view.WEAK_MARK in detail) == bool(row.weak), row.name


def test_count_of_figures_sourced_to_a_primary_document() -> None:
    published = [(e, f) for e in ENTRIES.values() for f in e.published()]
    primary = [(e, f) for e, f in published if e.source_of(f).primary]  # type: ignore[union-attr]
    assert (len(primary), len(published)) == (254, 272)


@pytest.mark.parametrize("entry", list(ENTRIES.values()), ids=lambda e: e.name)
def test_dense_is_half_the_sparse_figure_never_the_sparse_one(entry: CatalogEntry) -> None:
    pairs = (
        (entry.bf16_tflops, entry.bf16_sparse_tflops),
        (entry.fp8_tflops, entry.fp8_sparse_tflops),
    )
    # A sparse figure is kept only beside the dense one it doubles, so none goes unchecked.
    assert all(dense is not None for dense, sparse in pairs if sparse is not None), entry.name
    for dense, sparse in pairs:
        if dense is not None and sparse is not None:
            # Within vendors' own rounding (L40S: 362.05 dense beside 733 sparse).
            assert dense * 2 == pytest.approx(sparse, rel=0.015)


def test_the_fixes_named_in_the_audit() -> None:
    h200 = ENTRIES["NVIDIA H200 SXM"]
    assert h200.year == 2023  # launched 13 November 2023, shipped 2024
    gaudi2 = ENTRIES["Intel Gaudi 2"]
    assert "865" in gaudi2.source_of("fp8_tflops").says  # type: ignore[union-attr]
    # 820 GB/s is two HBM2e stacks; "820 GiB/s" converted again would claim 880 GB/s.
    for name in ("AWS Trainium (Trn1)", "AWS Inferentia2 (Inf2)"):
        assert ENTRIES[name].bandwidth_tbps == 0.82
    assert ENTRIES["Google TPU7x (Ironwood)"].bandwidth_tbps == 7.38  # not 7.2 from the press
    assert ENTRIES["NVIDIA T4"].bandwidth_tbps == 0.30  # the datasheet's figure, not NVML's
    filled = {
        ("AWS Trainium (Trn1)", "fp32_tflops"),
        ("AWS Trainium (Trn1)", "fp8_tflops"),
        ("AWS Inferentia2 (Inf2)", "fp32_tflops"),
        ("AWS Trainium2 (Trn2)", "fp32_tflops"),
        ("AWS Trainium2 (Trn2)", "fp8_tflops"),
        ("AWS Trainium3 (Trn3)", "fp32_tflops"),
        ("AMD Instinct MI325X", "fp32_tflops"),
        ("AMD Instinct MI325X", "fp8_tflops"),
        ("AMD Instinct MI355X", "fp32_tflops"),
        ("AMD Instinct MI355X", "fp8_tflops"),
        ("AMD Instinct MI355X", "compute"),
        ("NVIDIA B300 (Blackwell Ultra)", "fp32_tflops"),
        ("NVIDIA B300 (Blackwell Ultra)", "fp8_tflops"),
        ("NVIDIA P100 SXM2", "fp32_tflops"),
        ("NVIDIA RTX 5090", "bf16_tflops"),
        ("Google TPU v5p", "fp8_tflops"),
        ("Google TPU v6e (Trillium)", "fp8_tflops"),
        ("Apple M3 Ultra", "compute"),
    }
    for name, figure in filled:
        assert getattr(ENTRIES[name], figure) is not None, (name, figure)


def test_no_70b_bf16_model_fits_one_h200_in_the_vram_card() -> None:
    card = next(m for m in metrics.KEY_METRICS if m.name == "VRAM capacity")
    weights_gb = 70e9 * 2 / 1e9
    h200 = ENTRIES["NVIDIA H200 SXM"].memory_gib
    assert h200 is not None
    assert (h200 - weights_gb) / h200 < 0.01  # under 1 % left for KV cache and runtime
    assert "an H200, or 4-bit" not in card.reading
    assert "2×80 GB or more" in card.reading
    assert "one H200 needs 8-bit" in card.reading


def test_cpu_ridge_point_uses_the_boost_clock_like_the_rest_of_the_app() -> None:
    rate = peaks.cpu_flops_per_cycle(
        vendor="AuthenticAMD", family=0x19, model=0x11, flags=frozenset({"avx512f"})
    )
    peak = peaks.cpu_fp32_peak(
        cores=96, clock_mhz=3700.0, clock_label="max boost clock", flops_per_cycle=rate
    )
    assert isinstance(peak.gflops, float)
    assert peak.gflops == pytest.approx(11_366.4)  # 96 × 3.7 GHz × 32
    ridge = peak.gflops / 460.8  # AMD: 460.8 GB/s per socket
    assert pytest.approx(ridge) == versus.EPYC_9654_RIDGE
    row = next(r for r in versus.ROWS if r.aspect == "Ridge point (FLOP/B)")
    assert row.cpu == f"~{ridge:.0f} (derived)" == "~25 (derived)"  # not ~16 (the base clock)
    bf16 = next(r for r in versus.ROWS if r.aspect == "Peak dense BF16")
    assert bf16.cpu.startswith("~11.4 TFLOP/s FP32")


# ---- cost: prices and their pages, and the arithmetic by hand --------------------------------


def test_every_price_names_its_page_and_the_price_as_printed() -> None:
    assert prices.PRICES, "there must be prices to check"
    for row in prices.PRICES:
        assert row.source.url.startswith("https://"), row.provider
        assert row.date
        if row.source.primary:  # a provider's page: its words carry the price shown
            printed = [float(x) for x in re.findall(r"\$(\d+(?:\.\d+)?)", row.source.says)]
            assert any(abs(x - row.usd_per_gpu_hour) < 0.006 for x in printed), row.source.says


def test_reference_prices_stand_on_their_sourced_rows() -> None:
    assert cost.REFERENCE_PRICES, "there must be reference prices to check"
    for price in cost.REFERENCE_PRICES:
        assert price.sources
        quoted = [float(x) for x in re.findall(r"\d+\.\d+", price.label.split("(", 1)[1])]
        assert len(quoted) == len(price.sources)
        for usd in quoted:
            # The H100 row at that price whose page the scenario cites, with its date.
            (row,) = [
                r
                for r in prices.PRICES
                if r.gpu.startswith("H100")
                and r.usd_per_gpu_hour == usd
                and r.source in price.sources
            ]
            assert row.source.url in price.source
            assert f"seen {prices.seen_date(row.date)}" in price.source
        # The scenario is within 10 % of the prices it stands for.
        assert all(abs(price.usd_per_gpu_hour - q) / q < 0.1 for q in quoted)


def _hand_year() -> tuple[float, float]:
    """Fixed and power-above-idle $ per GPU-year for the default node, written out."""
    node_kw, pue, kwh = 10.2, 1.56, 0.12  # DGX H100 "10.2 kW max."; Uptime PUE; EIA range
    power_year = node_kw * pue * 8760 * kwh
    fixed = (300_000 + 30_000) / 4 / 8 + 0.10 * 300_000 / 8 + 25_000 / 8 + 700 * node_kw / 8
    fixed += power_year * 0.30 / 8
    return fixed, power_year * 0.70 / 8


@pytest.mark.parametrize("price", cost.REFERENCE_PRICES, ids=lambda p: f"${p.usd_per_gpu_hour}")
def test_break_even_and_useful_hour_by_hand(price: cost.CloudPrice) -> None:
    fixed, variable = _hand_year()
    year = cost.gpu_year(cost.CostInputs())
    assert (year.fixed_usd, year.variable_usd) == pytest.approx((fixed, variable))
    u_star = fixed / (8760 * price.usd_per_gpu_hour - variable)
    assert cost.break_even_utilization(year, price.usd_per_gpu_hour) == pytest.approx(u_star)
    # At break-even the owned GPU's useful hour costs exactly the cloud price.
    useful = (fixed + variable * u_star) / (8760 * u_star)
    assert cost.onprem_usd_per_useful_hour(year, u_star) == pytest.approx(useful)
    assert useful == pytest.approx(price.usd_per_gpu_hour)
    h100 = (r for r in prices.PRICES if r.gpu.startswith("H100") and r.source in price.sources)
    for row in h100:
        hand = fixed / (8760 * row.usd_per_gpu_hour - variable)
        assert cost.break_even_utilization(year, row.usd_per_gpu_hour) == pytest.approx(hand)


def test_useful_hour_at_half_use_by_hand() -> None:
    fixed, variable = _hand_year()
    year = cost.gpu_year(cost.CostInputs())
    expected = (fixed + variable * 0.5) / (8760 * 0.5)
    assert cost.onprem_usd_per_useful_hour(year, 0.5) == pytest.approx(expected)
    assert round(expected, 2) == 4.44


# ---- nothing shown points at a document outside the repository ------------------------------

_OUTSIDE = re.compile(
    r"shared/|accelerators\.md|DESIGN\.md|STYLE\.md|\bsource [a-p]\b|"
    r"\bSources? [a-p]\s*[…-]|\bR\d+\b"
)
_BARE_ADDRESS = re.compile(r"(?<![/\w.-])[\w-]+(\.[\w-]+)+\.(com|org|io|dev|ai|app|net|jp|pt)/")


def _shown_strings() -> Iterator[str]:
    for entry in ENTRIES.values():
        yield entry.notes
        yield entry.source
        for _, source in entry.sources:
            yield from (source.url, source.title, source.says)
    for row in prices.PRICES:
        yield from (row.note, row.source.url, row.source.title, row.source.says, prices.cite(row))
    yield prices.SUMMARY
    yield cost.SOURCE_FORMULAS
    yield from cost.INPUT_SOURCES.values()
    for price in cost.REFERENCE_PRICES:
        yield from (price.label, price.source)
    yield from cost_view.CLOUD_SOURCES.values()
    yield "\n".join(cost_lines(cost.cost_report()))
    for metric in metrics.KEY_METRICS:
        yield from (metric.what, metric.why, metric.reading, *metric.sources)
    for card in metrics.WHY_GPUS:
        yield from (*card.points, *card.sources)
    for row in versus.ROWS:
        yield from (row.cpu, row.gpu, row.tpu)
    yield from versus.SOURCES
    for lineup_row in catalog_rows():
        yield catalog_view.describe(lineup_row).plain


def test_nothing_shown_points_outside_the_repository() -> None:
    shown = list(_shown_strings())
    assert shown, "there must be shown text to check"
    for text in shown:
        assert not _OUTSIDE.search(text), text
        # A document is named by an https address, never a bare host/path.
        without_urls = re.sub(r"https://\S+", "", text)
        assert not _BARE_ADDRESS.search(without_urls), text


def test_metric_and_versus_sources_are_https_addresses() -> None:
    for metric in metrics.KEY_METRICS:
        assert all("https://" in s for s in metric.sources), metric.name
    for card in metrics.WHY_GPUS:
        assert all("https://" in s for s in card.sources), card.title
    assert all("https://" in s for s in versus.SOURCES if not s.startswith("derived"))


@pytest.mark.parametrize(
    "module",
    [catalog_view, cost_text, cost_view, cost, metrics, prices, versus],
    ids=lambda m: m.__name__,
)
def test_the_code_behind_these_views_names_no_outside_document(module: object) -> None:
    text = Path(inspect.getfile(module)).read_text()  # type: ignore[arg-type]
    assert not _OUTSIDE.search(text)
