"""Reference accelerators as data (vendor figures with sources) and NVML name → datasheet."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpu_tui.core.devices.model import Datasheet


@dataclass(frozen=True)
class CatalogEntry:
    """One product's published figures. ``None`` means "not published / not supported".

    Compute figures are **dense** (no 2:4 sparsity); tensor figures use FP32 accumulate (the rate
    PyTorch gets for bf16). The optional ``*_sparse_tflops`` fields keep the vendor's 2:4-sparse
    marketing figure where a source gives one, only so tests can check dense ≤ sparse.
    """

    name: str
    vendor: str
    architecture: str
    year: int
    memory_gb: float | None
    memory_type: str | None
    bandwidth_tbps: float | None
    fp32_tflops: float | None
    bf16_tflops: float | None
    fp8_tflops: float | None
    tdp_watts: float | None
    compute: str | None
    """CUDA compute capability (``"9.0"``), AMD ISA (``"gfx942"``) or Metal family."""
    source: str
    notes: str = ""
    bf16_sparse_tflops: float | None = None
    fp8_sparse_tflops: float | None = None

    def datasheet(self) -> Datasheet:
        """The figures the Specs pane shows beside the computed peaks."""
        bandwidth = None if self.bandwidth_tbps is None else round(self.bandwidth_tbps * 1000, 1)
        return Datasheet(
            product=self.name,
            fp32_tflops=self.fp32_tflops,
            bf16_tflops=self.bf16_tflops,
            fp8_tflops=self.fp8_tflops,
            memory_bandwidth_gbps=bandwidth,
            source=self.source,
        )


# Source texts, keyed as in shared/reference/accelerators.md ("Sources" a…p).
_SRC_A = "NVIDIA V100 datasheet; developer.nvidia.com/programming-tensor-cores-cuda-9-0"
_SRC_B = "NVIDIA T4 product page and datasheet; cross-checked at sysrqmts.com"
_SRC_C = (
    "NVIDIA A100 datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf), "
    "via glennklockwood.com/garden/processors/A100"
)
_SRC_D = "GA102 whitepaper figures as listed by third-party spec pages"
_SRC_E = "NVIDIA H100 datasheet (PB-11133 for PCIe), via glennklockwood.com/garden/processors/h100"
_SRC_F = "Ada whitepaper figures, waredb.com/processor/nvidia-geforce-rtx-4090"
_SRC_G = "NVIDIA L4 datasheet (sparse figures; dense = half), as quoted by aiwiki summaries"
_SRC_H = "NVIDIA L40S datasheet table, reproduced on a reseller page"
_SRC_I = "nvidia.com/en-us/data-center/h200 (141 GB, 4.8 TB/s); compute = H100 SXM (same GH100)"
_SRC_J = "glennklockwood.com/garden/processors/B200 (HGX B200, 1000 W); hmc-tech.com; Vultr docs"
_SRC_K = "RTX Blackwell whitepaper figures via spheron.network and Linux Format (May 2025)"
_SRC_L = "AMD MI250X spec as reproduced in launch coverage (zexron.com AMD spec table)"
_SRC_M = "AMD Instinct MI300X datasheet"
_SRC_N = (
    "Intel Hot Chips 2024 (R. Kaplan), Gaudi 3 slides; servethehome.com; pcguia.pt (Gaudi 2 FP8)"
)
_SRC_O = "cloud.google.com/tpu/docs (v4, v5e, v5p per-chip figures)"
_SRC_P = "Apple newsroom launch figures as relayed by press"
_SRC_P100 = (
    "hothardware.com (Tesla P100 launch); techwormam.pages.dev (732 GB/s); "
    "oreograce.blogg.se (300 W TDP)"
)
_SRC_GB200 = "glennklockwood.com/garden/processors/B200 (GB200 variant)"
_SRC_B300 = "glennklockwood.com/garden/processors/B300; fibermall.com/blog/?p=17161"

_GIB_IN_GB = 1.073741824

# Hand-wrapped rows read better than one value per line, so the formatter leaves them alone.
# fmt: off
CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "NVIDIA P100 SXM2", "NVIDIA", "Pascal", 2016, 16, "HBM2", 0.732, None, None, None, 300,
        "6.0", _SRC_P100,
        notes="No Tensor Cores and no BF16; FP16 21.2 TFLOPS. Launch materials say 720 GB/s.",
    ),
    CatalogEntry(
        "NVIDIA V100 SXM2", "NVIDIA", "Volta", 2017, 16, "HBM2", 0.90, 15.7, None, None, 300, "7.0",
        _SRC_A, notes="No BF16: tensor rate is FP16 only (125 TFLOPS). A 32 GB variant followed.",
    ),
    CatalogEntry(
        "NVIDIA T4", "NVIDIA", "Turing", 2018, 16, "GDDR6", 0.32, 8.1, None, None, 70, "7.5",
        _SRC_B, notes="No BF16: tensor rate is FP16 mixed precision (65 TFLOPS).",
    ),
    CatalogEntry(
        "NVIDIA A100 40GB SXM", "NVIDIA", "Ampere", 2020, 40, "HBM2", 1.555, 19.5, 312, None, 400,
        "8.0", _SRC_C, notes="TF32 156. deviceQuery: memory clock 1215 MHz, 5120-bit bus.",
    ),
    CatalogEntry(
        "NVIDIA A100 80GB SXM", "NVIDIA", "Ampere", 2020, 80, "HBM2e", 2.039, 19.5, 312, None, 400,
        "8.0", _SRC_C, notes="TF32 156.",
    ),
    CatalogEntry(
        "NVIDIA A100 80GB PCIe", "NVIDIA", "Ampere", 2020, 80, "HBM2e", 1.935, 19.5, 312, None, 300,
        "8.0", _SRC_C, notes="TF32 156.",
    ),
    CatalogEntry(
        "NVIDIA RTX 3090", "NVIDIA", "Ampere GA102", 2020, 24, "GDDR6X", 0.936, 35.6, 71, None, 350,
        "8.6", _SRC_D,
        notes="GeForce: 142 TFLOPS with FP16 accumulate; FP32 accumulate runs at half that.",
        bf16_sparse_tflops=142,
    ),
    CatalogEntry(
        "NVIDIA H100 SXM", "NVIDIA", "Hopper", 2022, 80, "HBM3", 3.35, 66.9, 989.4, 1978.9, 700,
        "9.0", _SRC_E, notes="132 SMs. Tensor peaks at 1.83 GHz, FP32 at 1.98 GHz. TF32 494.7.",
        bf16_sparse_tflops=1978.9, fp8_sparse_tflops=3957.8,
    ),
    CatalogEntry(
        "NVIDIA H100 PCIe", "NVIDIA", "Hopper", 2022, 80, "HBM2e", 2.0, 51, 756, 1513, 350, "9.0",
        _SRC_E, notes="TDP 300–350 W (configurable). TF32 378.", bf16_sparse_tflops=1513,
        fp8_sparse_tflops=3026,
    ),
    CatalogEntry(
        "NVIDIA RTX 4090", "NVIDIA", "Ada", 2022, 24, "GDDR6X", 1.008, 82.6, 165.2, 330.3, 450,
        "8.9", _SRC_F, notes="GeForce: FP16-accumulate rates are 2× (330.3 BF16/FP16, 660.6 FP8).",
        bf16_sparse_tflops=330.3, fp8_sparse_tflops=660.6,
    ),
    CatalogEntry(
        "NVIDIA L4", "NVIDIA", "Ada", 2023, 24, "GDDR6", 0.30, 30.3, 121, 242.5, 72, "8.9", _SRC_G,
        notes="TF32 60.", bf16_sparse_tflops=242, fp8_sparse_tflops=485,
    ),
    CatalogEntry(
        "NVIDIA L40S", "NVIDIA", "Ada", 2023, 48, "GDDR6", 0.864, 91.6, 362, 733, 350, "8.9",
        _SRC_H, notes="TF32 183.", bf16_sparse_tflops=733, fp8_sparse_tflops=1466,
    ),
    CatalogEntry(
        "NVIDIA H200 SXM", "NVIDIA", "Hopper", 2024, 141, "HBM3e", 4.8, 67, 989, 1979, 700, "9.0",
        _SRC_I,
        notes="Same GH100 silicon as H100. NVML reports 3201 MHz × 6144 bit = 4917 GB/s computed.",
    ),
    CatalogEntry(
        "NVIDIA B200 (HGX)", "NVIDIA", "Blackwell", 2024, 180, "HBM3e", 8.0, 80, 2250, 4500, 1000,
        "10.0", _SRC_J,
        notes=(
            "Ships 2025. 180 GB usable (192 announced); 7.7–8.0 TB/s and FP32 75–80 depending on "
            "source (±7 % uncertain). TF32 1100; FP4 9000."
        ),
    ),
    CatalogEntry(
        "NVIDIA B200 (GB200)", "NVIDIA", "Blackwell", 2024, None, "HBM3e", 8.0, None, 2500, None,
        1200, "10.0", _SRC_GB200,
        notes="In Grace + 2 GPU superchip (NVL72). ~186–192 GB per GPU (exact figure unsourced).",
    ),
    CatalogEntry(
        "NVIDIA B300 (Blackwell Ultra)", "NVIDIA", "Blackwell Ultra", 2025, 288, "HBM3e", 8.0, None,
        2250, None, None, "10.3", _SRC_B300,
        notes="HGX B300: 36 PF sparse BF16 per 8 GPUs. Up to 1,400 W (GB300); HGX TDP unsourced.",
        bf16_sparse_tflops=4500,
    ),
    CatalogEntry(
        "NVIDIA RTX 5090", "NVIDIA", "Blackwell GB202", 2025, 32, "GDDR7", 1.792, 104.8, None, None,
        575, "12.0", _SRC_K,
        notes=(
            "GeForce: 419 BF16/FP16 and 838 FP8 are FP16-accumulate rates (derived from sparse). "
            "The FP32-accumulate rate is not published (≈209.5 expected at half rate)."
        ),
    ),
    CatalogEntry(
        "AMD Instinct MI250X", "AMD", "CDNA2", 2021, 128, "HBM2e", 3.2, 47.9, 383, None, 500,
        "gfx90a", _SRC_L,
        notes="FP32 47.9 vector / 95.7 matrix. 3.28 TB/s in some listings. 560 W peak.",
    ),
    CatalogEntry(
        "AMD Instinct MI300X", "AMD", "CDNA3", 2023, 192, "HBM3", 5.3, 163.4, 1307.4, 2614.9, 750,
        "gfx942", _SRC_M, notes="AMD's 2614.9 'FP16' figure is sparse.", bf16_sparse_tflops=2614.9,
    ),
    CatalogEntry(
        "Intel Gaudi 2", "Intel", "Gaudi2", 2022, 96, "HBM2e", 2.46, None, 432, 865, 600, None,
        _SRC_N, notes="FP32 not published. FP8 ≈ 865 (secondary source).",
    ),
    CatalogEntry(
        "Intel Gaudi 3", "Intel", "Gaudi3", 2024, 128, "HBM2e", 3.67, None, 1835, 1835, 900, None,
        _SRC_N, notes="BF16 vector 28.7. 900 W air-cooled, 1200 W liquid-cooled.",
    ),
    CatalogEntry(
        "Google TPU v4", "Google", "TPU v4", 2021, round(32 * _GIB_IN_GB, 1), "HBM2", 1.2, None,
        275, None, None, None, _SRC_O,
        notes="32 GiB. 2 TensorCores per chip. Power measured 170 W mean / 192 W max (no TDP).",
    ),
    CatalogEntry(
        "Google TPU v5e", "Google", "TPU v5e", 2023, 16, "HBM2", 0.819, None, 197, None, None, None,
        _SRC_O, notes="1 TensorCore per chip. int8 393 TOPS.",
    ),
    CatalogEntry(
        "Google TPU v5p", "Google", "TPU v5p", 2023, 95, "HBM2e", 2.765, None, 459, None, None,
        None, _SRC_O, notes="2 TensorCores per chip. int8 918 TOPS.",
    ),
    CatalogEntry(
        "Apple M1 (8-core GPU)", "Apple", "Apple7 GPU", 2020, 16, "LPDDR4X", 0.068, 2.6, None, None,
        None, "Metal Apple7", _SRC_P, notes="Unified memory, up to 16 GB. No matrix units.",
    ),
    CatalogEntry(
        "Apple M1 Max (32-core GPU)", "Apple", "Apple7 GPU", 2021, 64, "LPDDR5", 0.40, 10.4, None,
        None, None, "Metal Apple7", _SRC_P, notes="Unified memory, up to 64 GB.",
    ),
    CatalogEntry(
        "Apple M2 Ultra (76-core GPU)", "Apple", "Apple8 GPU", 2023, 192, "LPDDR5", 0.80, 27.2,
        None, None, None, "Metal Apple8", _SRC_P, notes="Unified memory, up to 192 GB.",
    ),
    CatalogEntry(
        "Apple M4 Max (40-core GPU)", "Apple", "Apple9 GPU", 2024, 128, "LPDDR5X", 0.546, None,
        None, None, None, "Metal Apple9", _SRC_P,
        notes="Unified memory, up to 128 GB. Apple stopped publishing TFLOPS (~16 estimated).",
    ),
)
# fmt: on

# NVML product names, normalised (see _normalise), matched whole. Order matters only for
# readability: the patterns are anchored so "L4" never matches "L40S" and "H100 PCIe" never
# matches the SXM part. Unknown SKUs (H100 NVL, A100 40GB PCIe, RTX 4090 D, laptop parts) return
# None on purpose: their clocks or memory differ, and a wrong datasheet is worse than none.
_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"p100 sxm2 16gb", "NVIDIA P100 SXM2"),
    (r"v100 sxm2 (16|32)gb", "NVIDIA V100 SXM2"),
    (r"t4", "NVIDIA T4"),
    (r"a100 sxm4 40gb", "NVIDIA A100 40GB SXM"),
    (r"a100 (sxm4 80gb|80gb sxm4?)", "NVIDIA A100 80GB SXM"),
    (r"a100 (80gb pcie|pcie 80gb)", "NVIDIA A100 80GB PCIe"),
    (r"rtx 3090", "NVIDIA RTX 3090"),
    (r"h100 (80gb hbm3|sxm5? 80gb|sxm5?)", "NVIDIA H100 SXM"),
    (r"h100 (pcie|pcie 80gb|80gb pcie)", "NVIDIA H100 PCIe"),
    (r"rtx 4090", "NVIDIA RTX 4090"),
    (r"l4", "NVIDIA L4"),
    (r"l40s", "NVIDIA L40S"),
    (r"h200( 141gb)?( hbm3e)?|h200 sxm( 141gb)?", "NVIDIA H200 SXM"),
    (r"b200", "NVIDIA B200 (HGX)"),
    (r"gb200", "NVIDIA B200 (GB200)"),
    (r"b300( sxm6 ac)?", "NVIDIA B300 (Blackwell Ultra)"),
    (r"rtx 5090", "NVIDIA RTX 5090"),
    (r"(amd )?(instinct )?mi250x( oam)?", "AMD Instinct MI250X"),
    (r"(amd )?(instinct )?mi300x( oam)?", "AMD Instinct MI300X"),
)
_COMPILED = tuple((re.compile(pattern), product) for pattern, product in _PATTERNS)
_BY_NAME = {entry.name: entry for entry in CATALOG}


def _normalise(name: str) -> str:
    """Lower-case, drop brand words, turn separators into single spaces."""
    text = re.sub(r"[-_/]+", " ", name.strip().lower())
    text = re.sub(r"^(nvidia |tesla |geforce |quadro )+", "", text)
    text = re.sub(r"\b(nvidia|geforce|tesla) ", "", text)
    return re.sub(r"\s+", " ", text).strip()


def find_entry(name: str) -> CatalogEntry | None:
    """The catalog entry for a device name as NVML or torch reports it, or ``None``."""
    normalised = _normalise(name)
    for pattern, product in _COMPILED:
        if pattern.fullmatch(normalised):
            return _BY_NAME[product]
    return None


def match_datasheet(name: str) -> Datasheet | None:
    """Vendor figures for an NVML product name (e.g. ``"NVIDIA H100 80GB HBM3"``), or ``None``."""
    entry = find_entry(name)
    return None if entry is None else entry.datasheet()
