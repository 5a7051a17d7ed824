"""Accelerators the Guide adds to the reference catalog (newer AMD, TPU, Trainium, Apple rows).

Same conventions as :mod:`gpu_tui.core.devices.catalog`: dense figures, ``None`` = not published, a
capacity stated in GiB converted once to 10^9 bytes, and a source for every figure.
"""

from __future__ import annotations

from gpu_tui.core.devices.catalog import (
    CATALOG,
    METAL_FEATURE_TABLES,
    ROCM_GPU_SPECS,
    TPU7X_DOCS,
    TPU_V6E_DOCS,
    CatalogEntry,
    cites,
)
from gpu_tui.core.devices.sources import Source

_AMD = "https://www.amd.com/en/products/accelerators/instinct/"
MI325X_PAGE = Source(
    _AMD + "mi300/mi325x.html",
    "Peak Single Precision (FP32) Vector Performance 163.4 TFLOPs; Peak bfloat16 1307.4 TFLOPs; "
    "Peak FP8 2614.9 TFLOPs; Dedicated Memory Size 256 GB HBM3E; Peak Memory Bandwidth 6 TB/s; "
    "Total Board Power 1000W; Launch Date 10/10/2024",
    "AMD Instinct MI325X, specifications",
)
MI355X_PAGE = Source(
    _AMD + "mi350/mi355x.html",
    "Peak Single Precision (FP32) Vector Performance 157.3 TFLOPs; Peak bfloat16 2.5 PFLOPs; "
    "Peak OCP-FP8 5 PFLOPs (with Structured Sparsity 10.1 PFLOPs); Dedicated Memory Size 288 GB "
    "HBM3E; Peak Memory Bandwidth 8 TB/s; Total Board Power 1400W; Launch Date 06/12/2025",
    "AMD Instinct MI355X, specifications",
)

_TPU_BLOG = "https://cloud.google.com/blog/products/"
TRILLIUM_BLOG = Source(
    _TPU_BLOG + "compute/introducing-trillium-6th-gen-tpus",
    "May 14, 2024: introducing Trillium, the sixth-generation TPU",
    "Google Cloud blog: Trillium (2024)",
)
IRONWOOD_BLOG = Source(
    "https://blog.google/products/google-cloud/ironwood-tpu-age-of-inference/",
    "April 9, 2025: Ironwood, the seventh-generation TPU",
    "Google blog: Ironwood (2025)",
)

_NEURON = "https://awsdocs-neuron.readthedocs-hosted.com/en/"
TRAINIUM_DOCS = Source(
    _NEURON + "latest/general/arch/neuron-hardware/trainium.html",
    "Two NeuronCore-v2 delivering 380 INT8 TOPS, 190 FP16/BF16/cFP8/TF32 TFLOPS, and 47.5 FP32 "
    "TFLOP; 32 GiB of device memory",
    "AWS Neuron documentation: Trainium architecture",
)
INFERENTIA2_DOCS = Source(
    _NEURON + "latest/general/arch/neuron-hardware/inferentia2.html",
    "Two NeuronCore-v2 cores, delivering 380 INT8 TOPS, 190 FP16/BF16/cFP8/TF32 TFLOPS, and "
    "47.5 FP32 TFLOPS; 32GiB of high-bandwidth device memory (HBM)",
    "AWS Neuron documentation: Inferentia2 architecture",
)
# The architecture pages now print "820 GiB/sec"; the NKI guide (and the pages' own earlier
# versions) print 820 GB/s, which is what two HBM2e stacks deliver (2 × 409.6 GB/s). Converting
# "GiB/s" would add 7 % that the hardware does not have, so the GB/s figure is used.
TRN1_INF2_NKI = Source(
    _NEURON + "latest/nki/arch/trainium_inferentia2_arch.html",
    "Both Trainium and Inferentia2 devices consist of: 2 HBM stacks with a total device memory "
    "capacity of 32GiB and bandwidth of 820 GB/s",
    "AWS Neuron documentation: Trainium/Inferentia2 architecture guide for NKI",
)
TRAINIUM2_DOCS = Source(
    _NEURON + "v2.29.0/_sources/about-neuron/arch/neuron-hardware/trainium2.rst",
    "Eight NeuronCore-v3 that collectively deliver: 1,299 FP8 TFLOPS; 667 BF16/FP16/TF32 "
    "TFLOPS; 2,563 FP8/FP16/BF16/TF32 sparse TFLOPS; 181 FP32 TFLOPS",
    "AWS Neuron documentation: Trainium2 architecture",
)
TRAINIUM2_NKI = Source(
    _NEURON + "latest/nki/arch/trainium2_arch.html",
    "4 HBM stacks with a total device memory capacity of 96GiB and bandwidth of 2.9TB/s",
    "AWS Neuron documentation: Trainium2 architecture guide for NKI",
)
TRAINIUM3_DOCS = Source(
    _NEURON + "v2.29.1/_sources/about-neuron/arch/neuron-hardware/trainium3.rst",
    "Eight NeuronCore-v4 cores that collectively deliver: 2,517 MXFP8/MXFP4 TFLOPS; 671 "
    "BF16/FP16/TF32 TFLOPS; 183 FP32 TFLOPS; 144 GiB of device memory, with 4.9 TB/sec of "
    "bandwidth",
    "AWS Neuron documentation: Trainium3 architecture",
)
TRAINIUM3_NKI = Source(
    _NEURON + "latest/nki/about/trainium3_arch.html",
    "4 HBM stacks with a total device memory capacity of 144 GiB and bandwidth of 4.7 TB/s",
    "AWS Neuron documentation: Trainium3 architecture guide for NKI",
)
_AWS_NEW = "https://aws.amazon.com/about-aws/whats-new/"
TRN1_GA = Source(
    _AWS_NEW + "2022/10/ec2-trn1-instances-high-performance-cost-effective-deep-learning-training/",
    "October 10, 2022: Amazon EC2 Trn1 instances generally available",
    "AWS What's New: Trn1 generally available (2022)",
)
INF2_GA = Source(
    _AWS_NEW + "2023/04/amazon-ec2-inf2-instances-generative-ai-generally-available/",
    "April 13, 2023: Amazon EC2 Inf2 instances generally available",
    "AWS What's New: Inf2 generally available (2023)",
)
TRN2_GA = Source(
    _AWS_NEW + "2024/12/amazon-ec2-trn2-instances-available/",
    "December 3, 2024: Amazon EC2 Trn2 instances generally available",
    "AWS What's New: Trn2 generally available (2024)",
)
TRN3_GA = Source(
    _AWS_NEW + "2025/12/amazon-ec2-trn3-ultraservers/",
    "December 2, 2025: Amazon EC2 Trn3 UltraServers generally available",
    "AWS What's New: Trn3 UltraServers generally available (2025)",
)

M3_ULTRA_NEWSROOM = Source(
    "https://www.apple.com/newsroom/2025/03/apple-reveals-m3-ultra-taking-apple-silicon-to-a-"
    "new-extreme/",
    "March 5, 2025: M3 Ultra ... up to 80-core GPU ... up to 512GB of unified memory",
    "Apple newsroom: Apple reveals M3 Ultra (2025)",
)
MAC_STUDIO_SPECS = Source(
    "https://www.apple.com/mac-studio/specs/",
    "Apple M3 Ultra chip: 819GB/s memory bandwidth; configurable to 512GB unified memory",
    "Apple: Mac Studio technical specifications",
)

# fmt: off
EXTRA: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "AMD Instinct MI325X", "AMD", "CDNA3", 2024, 256, "HBM3E", 6.0, 163.4, 1307.4, 2614.9,
        1000, "gfx942", cites(MI325X_PAGE, compute=ROCM_GPU_SPECS),
        notes="Same compute as MI300X, more and faster memory.",
    ),
    CatalogEntry(
        "AMD Instinct MI355X", "AMD", "CDNA4", 2025, 288, "HBM3E", 8.0, 157.3, 2500, 5000, 1400,
        "gfx950", cites(MI355X_PAGE, compute=ROCM_GPU_SPECS),
        notes="AMD rounds to 2.5 PF (256 CUs × 2.4 GHz × 4096 = 2516.6). MI350X: 1,000 W.",
        fp8_sparse_tflops=10100,
    ),
    CatalogEntry(
        "Google TPU v6e (Trillium)", "Google", "TPU v6e", 2024, 32, "HBM", 1.638, None, 918, 918,
        None, None, cites(TPU_V6E_DOCS, year=TRILLIUM_BLOG, fp8_tflops=TPU7X_DOCS),
        notes="1 TensorCore per chip. No faster FP8: it runs at the BF16 rate. TDP not published.",
    ),
    CatalogEntry(
        "Google TPU7x (Ironwood)", "Google", "TPU7x", 2025, 192, "HBM",
        7.38, None, 2307, 4614, None, None, cites(TPU7X_DOCS, year=IRONWOOD_BLOG),
        notes="192 GiB. 2 TensorCores and 4 SparseCores per chip. TDP not published.",
    ),
    CatalogEntry(
        "AWS Trainium (Trn1)", "AWS", "Trainium", 2022, 32, "HBM", 0.82,
        47.5, 190, 190, None, None,
        cites(TRAINIUM_DOCS, year=TRN1_GA, memory_type=TRN1_INF2_NKI,
              bandwidth_tbps=TRN1_INF2_NKI),
        notes="32 GiB. FP8 is AWS's configurable cFP8, at the BF16 rate. TDP not published.",
    ),
    CatalogEntry(
        "AWS Inferentia2 (Inf2)", "AWS", "Inferentia2", 2023, 32, "HBM",
        0.82, 47.5, 190, 190, None, None,
        cites(INFERENTIA2_DOCS, year=INF2_GA, bandwidth_tbps=TRN1_INF2_NKI),
        notes="32 GiB. FP8 is AWS's configurable cFP8, at the BF16 rate. TDP not published.",
    ),
    CatalogEntry(
        "AWS Trainium2 (Trn2)", "AWS", "Trainium2", 2024, 96, "HBM", 2.9,
        181, 667, 1299, None, None,
        cites(TRAINIUM2_DOCS, year=TRN2_GA, memory_gib=TRAINIUM2_NKI, memory_type=TRAINIUM2_NKI,
              bandwidth_tbps=TRAINIUM2_NKI),
        notes="96 GiB. Announced Nov 2023. Sparse 2,563 TFLOP/s in any of FP8/FP16/BF16/TF32. "
        "TDP not published.",
    ),
    CatalogEntry(
        "AWS Trainium3 (Trn3)", "AWS", "Trainium3", 2025, 144, "HBM", 4.9,
        183, 671, None, None, None,
        cites(TRAINIUM3_DOCS, year=TRN3_GA, memory_type=TRAINIUM3_NKI),
        notes="144 GiB. 4.7 TB/s in the NKI guide. MXFP8 2,517 (a block-scaled format, not FP8). "
        "TDP not published.",
    ),
    CatalogEntry(
        "Apple M3 Ultra", "Apple", "Apple9 GPU", 2025, 512, None, 0.819, None, None, None, None,
        "Metal Apple9",
        cites(MAC_STUDIO_SPECS, year=M3_ULTRA_NEWSROOM, compute=METAL_FEATURE_TABLES),
        notes="Unified memory, up to 512 GB. Apple does not publish TFLOP/s figures.",
    ),
)
# fmt: on


def all_entries() -> tuple[CatalogEntry, ...]:
    """The reference catalog followed by the Guide's extra rows (names never repeat)."""
    names = {entry.name for entry in CATALOG}
    return CATALOG + tuple(entry for entry in EXTRA if entry.name not in names)
