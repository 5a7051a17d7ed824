"""Accelerators the Guide adds to the reference catalog (newer AMD, TPU, Trainium, Apple rows)."""

from __future__ import annotations

from gpu_tui.core.catalog import CATALOG, CatalogEntry

# Rows of shared/reference/accelerators.md ("Competitors") that gpu_tui.core.catalog does not
# carry. Same conventions: dense figures, None = not published, GiB converted to 10^9 bytes.
_GIB_IN_GB = 1.073741824
_NEURON = "awsdocs-neuron.readthedocs-hosted.com"

# fmt: off
EXTRA: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "AMD Instinct MI325X", "AMD", "CDNA3", 2024, 256, "HBM3E", 6.0, None, 1307, None, 1000,
        "gfx942",
        "docs.vultr.com/inference-cookbook/rocm/getting-started/hardware-requirements; "
        "awesomeagents.ai/hardware/amd-mi325x",
        notes="Same compute as MI300X, more and faster memory. FP32 and FP8 not in the sources.",
    ),
    CatalogEntry(
        "AMD Instinct MI355X", "AMD", "CDNA4", 2025, 288, "HBM3E", 8.0, None, 2500, None, 1400,
        None,
        "rooflinenotes.dev/accelerators/; theregister.com/2025/06/12/amd_mi355x/; "
        "tomshardware.com (MI355X 1,400 W)",
        notes="BF16 is approximate (~2,500). GA Oct 2025. MI350X: 1,000 W.",
    ),
    CatalogEntry(
        "Google TPU v6e (Trillium)", "Google", "TPU v6e", 2024, 32, None, 1.64, None, 918, None,
        None, None, "docs.cloud.google.com/tpu/docs/v6e.md.txt; rooflinenotes.dev (2024-12-11)",
        notes="1 TensorCore per chip. TDP not published.",
    ),
    CatalogEntry(
        "Google TPU7x (Ironwood)", "Google", "TPU7x", 2025, round(192 * _GIB_IN_GB, 1), "HBM3e",
        7.2, None, 2307, 4614, None, None,
        "docs.cloud.google.com/tpu/docs/tpu7x; tadviser.com (7.2 TB/s); mattfife.com (7.3 TB/s)",
        notes="192 GiB. Bandwidth 7.2–7.4 TB/s (sources disagree; the lowest is used). "
        "Announced Apr 2025. TDP not published.",
    ),
    CatalogEntry(
        "AWS Trainium (Trn1)", "AWS", "Trainium", 2022, round(32 * _GIB_IN_GB, 1), None,
        round(820 * _GIB_IN_GB / 1000, 3), None, 190, None, None, None,
        f"{_NEURON}/en/latest/general/arch/neuron-hardware/trainium.html",
        notes="32 GiB, 820 GiB/s. TDP not published.",
    ),
    CatalogEntry(
        "AWS Inferentia2 (Inf2)", "AWS", "Inferentia2", 2023, round(32 * _GIB_IN_GB, 1), None,
        round(820 * _GIB_IN_GB / 1000, 3), None, 190, None, None, None,
        f"{_NEURON}/en/latest/general/arch/neuron-hardware/inferentia2.html",
        notes="32 GiB, 820 GiB/s. Year not in the source. TDP not published.",
    ),
    CatalogEntry(
        "AWS Trainium2 (Trn2)", "AWS", "Trainium2", 2024, round(96 * _GIB_IN_GB, 1), None, 2.9,
        None, 667, None, None, None,
        f"{_NEURON}/v2.29.0/_sources/about-neuron/arch/neuron-hardware/trainium2.rst",
        notes="96 GiB. TDP not published.",
    ),
    CatalogEntry(
        "AWS Trainium3 (Trn3)", "AWS", "Trainium3", 2025, round(144 * _GIB_IN_GB, 1), None, 4.9,
        None, 671, None, None, None,
        f"{_NEURON}/v2.29.1/_sources/about-neuron/arch/neuron-hardware/trainium3.rst",
        notes="144 GiB. 4.7 TB/s in the NKI guide. MXFP8 2,517 (a block-scaled format, not FP8). "
        "TDP not published.",
    ),
    CatalogEntry(
        "Apple M3 Ultra", "Apple", "Apple9 GPU", 2025, 512, None, 0.819, None, None, None, None,
        None, "techpowerup.com (Mac Studio); bgr.com/tech/inside-apples-new-m3-ultra-processor/",
        notes="Unified memory, up to 512 GB. Apple does not publish TFLOPS.",
    ),
)
# fmt: on


def all_entries() -> tuple[CatalogEntry, ...]:
    """The reference catalog followed by the Guide's extra rows (names never repeat)."""
    names = {entry.name for entry in CATALOG}
    return CATALOG + tuple(entry for entry in EXTRA if entry.name not in names)
