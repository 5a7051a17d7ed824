"""Reference accelerators as data: vendor figures, each with its source, and NVML name → datasheet.

Every figure names the document it comes from (``sources``): the vendor's datasheet, whitepaper,
product page, documentation or launch announcement, or a paper, with the figure as that document
states it. A figure only a secondary page states keeps a ``Source`` with ``primary=False``, and
the Guide marks it as weakly sourced. Conventions, so every row reads the same way:

- compute figures are **dense** (no 2:4 sparsity) with FP32 accumulate, the rate PyTorch gets;
  where a vendor prints only the sparse figure, dense is half of it and ``says`` shows the
  sparse text, so a reviewer sees why;
- memory is in GiB, as its vendor means it: memory makers count a "GB" of HBM, GDDR or LPDDR
  as 2^30 bytes (JEDEC), so NVIDIA's "80 GB" H100 and Google's "32 GiB" TPU v4 are both stored
  as they are printed (80, 32); a bandwidth is taken in the unit its document states (10^12
  bytes per TB/s);
- ``year`` is the year the vendor launched the product: its launch announcement, or for a chip
  only rented as a cloud instance (AWS Trainium, Inferentia) the instances' general availability;
- ``None`` means not published (or not supported: the notes say which).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpu_tui.core.devices.model import Datasheet
from gpu_tui.core.devices.sources import Source
from gpu_tui.core.units import gigabytes

FIGURES: tuple[str, ...] = (
    "year",
    "memory_gib",
    "memory_type",
    "bandwidth_tbps",
    "fp32_tflops",
    "bf16_tflops",
    "fp8_tflops",
    "tdp_watts",
    "compute",
)
"""The attributes of a :class:`CatalogEntry` that are figures with a source each."""

# The figures a datasheet is about; launch year and ISA name have their own documents.
_SPEC_FIGURES = FIGURES[1:8]

Citations = tuple[tuple[str, Source], ...]


def cites(default: Source | None = None, /, **by_figure: Source) -> Citations:
    """Which document each figure comes from: ``default`` unless a figure names its own."""
    unknown = set(by_figure) - set(FIGURES)
    if unknown:
        raise ValueError(f"not catalog figures: {sorted(unknown)}")
    pairs = ((figure, by_figure.get(figure, default)) for figure in FIGURES)
    return tuple((figure, source) for figure, source in pairs if source is not None)


@dataclass(frozen=True)
class DeviceFigures:
    """A device's name and headline figures, ``None`` where unknown: what a catalog product
    publishes (:class:`CatalogEntry`) and what the Guide's table shows for any device, this
    machine's included (``core.guide.lineup.LineupRow``)."""

    name: str
    vendor: str
    architecture: str
    year: int | None
    memory_gib: float | None
    memory_type: str | None
    bandwidth_tbps: float | None
    fp32_tflops: float | None
    bf16_tflops: float | None
    fp8_tflops: float | None
    tdp_watts: float | None
    notes: str = field(default="", kw_only=True)
    bf16_sparse_tflops: float | None = field(default=None, kw_only=True)

    def memory_shown(self) -> float | None:
        """The capacity in the size unit shown: GiB as kept, or GB (10⁹ bytes)."""
        return None if self.memory_gib is None else gigabytes(self.memory_gib * 2**30)


@dataclass(frozen=True)
class CatalogEntry(DeviceFigures):
    """One product's published figures. ``None`` means "not published / not supported".

    ``sources`` maps each figure (see ``FIGURES``) to its document; the optional
    ``*_sparse_tflops`` keep a vendor's 2:4-sparse figure where it prints one, so tests can check
    dense × 2 = sparse and the table can show both.
    """

    year: int
    compute: str | None
    """CUDA compute capability (``"9.0"``), AMD LLVM target (``"gfx942"``) or Metal GPU family."""
    sources: Citations
    fp8_sparse_tflops: float | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        # Checked when the module loads: a figure without a document never reaches the screen.
        by_figure = dict(self.sources)
        missing = [f for f in FIGURES if getattr(self, f) is not None and f not in by_figure]
        if missing:
            raise ValueError(f"{self.name}: no source for {', '.join(missing)}")

    def source_of(self, figure: str) -> Source | None:
        """The document a published figure comes from; ``None`` for an unpublished one."""
        if getattr(self, figure) is None:
            return None
        return dict(self.sources).get(figure)

    def published(self) -> tuple[str, ...]:
        """The figures this product has (in ``FIGURES`` order)."""
        return tuple(f for f in FIGURES if getattr(self, f) is not None)

    def weak_figures(self) -> frozenset[str]:
        """Published figures whose only source is secondary (shown as weakly sourced)."""
        return frozenset(f for f in self.published() if not dict(self.sources)[f].primary)

    def documents(self) -> tuple[Source, ...]:
        """Each distinct document behind the published figures: the specifications' first."""
        seen: list[Source] = []
        for figure in (*_SPEC_FIGURES, "year", "compute"):
            source = self.source_of(figure)
            if source is not None and source not in seen:
                seen.append(source)
        return tuple(seen)

    @property
    def source(self) -> str:
        """The documents behind the memory, bandwidth, compute and power figures, in one line."""
        seen: list[Source] = []
        for figure in _SPEC_FIGURES:
            source = self.source_of(figure)
            if source is not None and source not in seen:
                seen.append(source)
        return "; ".join(f"{s.cite()} {s.url}" for s in seen)

    def datasheet(self) -> Datasheet:
        """The figures the Specs pane shows beside the computed peaks."""
        bandwidth = None if self.bandwidth_tbps is None else round(self.bandwidth_tbps * 1000, 1)
        return Datasheet(
            product=self.name,
            fp32_tflops=self.fp32_tflops,
            bf16_tflops=self.bf16_tflops,
            fp8_tflops=self.fp8_tflops,
            memory_bandwidth_gb_per_second=bandwidth,
            source=self.source,
        )


# ---- NVIDIA: datasheets, whitepapers, product pages ------------------------------------------
_NEWSROOM = "https://nvidianews.nvidia.com/news/"

P100_DATASHEET = Source(
    "https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-p100-datasheet.pdf",
    "Tesla P100 for NVLink-optimized servers: Single-Precision Performance 10.6 TeraFLOPS; "
    "Half-Precision Performance 21.2 TeraFLOPS; CoWoS HBM2 Stacked Memory Capacity 16 GB; "
    "CoWoS HBM2 Stacked Memory Bandwidth 732 GB/s; Max Power Consumption 300 W",
    "NVIDIA Tesla P100 datasheet",
)
V100_DATASHEET = Source(
    "https://images.nvidia.com/content/technologies/volta/pdf/"
    "volta-v100-datasheet-update-us-1165301-r5.pdf",
    "V100 SXM2: Single-Precision 15.7 teraFLOPS; Tensor Performance 125 teraFLOPS; "
    "GPU Memory 32 GB / 16 GB HBM2; Memory Bandwidth 900 GB/sec; Max Power Consumption 300 WATTS",
    "NVIDIA Tesla V100 datasheet",
)
T4_DATASHEET = Source(
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/"
    "t4-tensor-core-datasheet-951643.pdf",
    "Single-Precision 8.1 TFLOPS; Mixed-Precision (FP16/FP32) 65 TFLOPS; "
    "GPU Memory 16 GB GDDR6, 300 GB/sec; Power 70 watts",
    "NVIDIA T4 Tensor Core GPU datasheet",
)
A100_40GB_DATASHEET = Source(
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet.pdf",
    "A100 for NVLink: FP32 19.5 TFLOPS; BFLOAT16 Tensor Core 312 TF | 624 TF*; "
    "GPU Memory 40 GB HBM2; Memory Bandwidth 1,555 GB/s; Max TDP Power 400 W (* With sparsity)",
    "NVIDIA A100 Tensor Core GPU datasheet (40 GB)",
)
A100_DATASHEET = Source(
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
    "A100 80GB PCIe | A100 80GB SXM: FP32 19.5 TFLOPS; BFLOAT16 Tensor Core 312 TFLOPS | "
    "624 TFLOPS*; GPU Memory 80GB HBM2e; GPU Memory Bandwidth 1,935 GB/s | 2,039 GB/s; "
    "Max Thermal Design Power (TDP) 300W | 400W (* With sparsity)",
    "NVIDIA A100 Tensor Core GPU datasheet",
)
GA102_WHITEPAPER = Source(
    "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf",
    "GeForce RTX 3090: Peak FP32 TFLOPS (non-Tensor) 35.6; Peak BF16 Tensor TFLOPS with FP32 "
    "Accumulate 71/142; Memory Size 24 GB GDDR6X; Memory Bandwidth 936 GB/sec; Total Graphics "
    "Power 350 W (the second figure is with the sparsity feature)",
    "NVIDIA Ampere GA102 GPU Architecture whitepaper",
)
HOPPER_WHITEPAPER = Source(
    "https://nvdam.widen.net/s/95bdhpsgrs/"
    "nvidia_h100_tensor_core_gpu_architecture_whitepaper_v1.03",
    "NVIDIA H100 SXM5 | H100 PCIe: Peak BF16 Tensor Core 989.4 TFLOPS | 1978.9 TFLOPS¹, "
    "756 TFLOPS | 1513 TFLOPS¹; Memory Interface 5120-bit HBM3 | 5120-bit HBM2e "
    "(¹ Effective TFLOPS / TOPS using the Sparsity feature)",
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper (v1.03)",
)
H100_DATASHEET = Source(
    "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
    "H100 SXM | H100 PCIe: FP32 67 | 51 teraFLOPS; BFLOAT16 Tensor Core 1,979 | 1,513 "
    "teraFLOPS*; FP8 Tensor Core 3,958 | 3,026 teraFLOPS*; GPU memory 80GB | 80GB; GPU memory "
    "bandwidth 3.35TB/s | 2TB/s; Max thermal design power (TDP) Up to 700W (configurable) | "
    "300-350W (configurable) (* Shown with sparsity. Specifications 1/2 lower without sparsity.)",
    "NVIDIA H100 Tensor Core GPU datasheet",
)
ADA_WHITEPAPER = Source(
    "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf",
    "GeForce RTX 4090: Peak FP32 TFLOPS (non-Tensor) 82.6; Peak BF16 Tensor TFLOPS with FP32 "
    "Accumulate 165.2/330.4; Peak FP8 Tensor TFLOPS with FP32 Accumulate 330.3/660.6; Memory "
    "Size 24 GB GDDR6X; Memory Bandwidth 1008 GB/sec; Total Graphics Power 450 W "
    "(the second figure is effective TFLOPS using the sparsity feature)",
    "NVIDIA Ada GPU Architecture whitepaper",
)
L4_PAGE = Source(
    "https://www.nvidia.com/en-us/data-center/l4/",
    "FP32 30.3 teraFLOPs; BFLOAT16 Tensor Core 242 teraFLOPS*; FP8 Tensor Core 485 teraFLOPs*; "
    "GPU memory 24GB; GPU memory bandwidth 300GB/s; Max thermal design power (TDP) 72W "
    "(* Shown with sparsity)",
    "NVIDIA L4 Tensor Core GPU, specifications",
)
L4_BRIEF = Source(
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/l4/PB-11316-001_v01.pdf",
    "Memory Size 24 GB GDDR6",
    "NVIDIA L4 GPU Accelerator product brief (PB-11316)",
)
L40S_PAGE = Source(
    "https://www.nvidia.com/en-us/data-center/l40s/",
    "GPU Memory 48GB GDDR6 with ECC; Memory Bandwidth 864GB/s; FP32 91.6 teraFLOPS; BFLOAT16 "
    "Tensor Core 362.05 | 733* teraFLOPS; FP8 Tensor Core 733 | 1,466* teraFLOPS; Max Power "
    "Consumption 350W (* With sparsity)",
    "NVIDIA L40S GPU, specifications",
)
H200_PAGE = Source(
    "https://www.nvidia.com/en-us/data-center/h200/",
    "H200 SXM: FP32 67 TFLOPS; BFLOAT16 Tensor Core 1,979 TFLOPS*; FP8 Tensor Core 3,958 "
    "TFLOPS*; GPU Memory 141GB (HBM3e); GPU Memory Bandwidth 4.8TB/s; Max Thermal Design Power "
    "(TDP) Up to 700W (configurable) (* With sparsity)",
    "NVIDIA H200 Tensor Core GPU, specifications",
)
HGX_PAGE = Source(
    "https://www.nvidia.com/en-us/data-center/hgx/",
    "HGX B300 | HGX B200 (8 GPUs each): FP8/FP6 Tensor Core* 72 PFLOPS | 72 PFLOPS; "
    "FP16/BF16 Tensor Core* 36 PFLOPS | 36 PFLOPS; FP32 600 TFLOPS | 600 TFLOPS; "
    "Total Memory Up to 2.3 TB | 1.4 TB (* With sparsity)",
    "NVIDIA HGX platform, specifications",
)
DGX_B200_DATASHEET = Source(
    "https://resources.nvidia.com/en-us-dgx-systems/dgx-b200-datasheet",
    "GPU: 8x NVIDIA Blackwell GPUs; GPU Memory: 1,440GB total GPU memory; 64TB/s HBM3e bandwidth",
    "NVIDIA DGX B200 datasheet",
)
DGX_B300_GUIDE = Source(
    "https://docs.nvidia.com/dgx/dgxb300-user-guide/introduction-to-dgxb300.html",
    "8x NVIDIA Blackwell Ultra GPUs; 2.3 TB total GPU memory (288 GB HBM3e per GPU)",
    "NVIDIA DGX B300 user guide, introduction",
)
B200_KLOCKWOOD = Source(
    "https://glennklockwood.com/garden/processors/B200",
    "HGX variant of B200 configured at 1,000 W; 8 TB/s (max). GB200 variant at 1,200 W: "
    "FP32 90; BF16 2500 (5000 sparse); FP8 5000 (10000 sparse) TFLOPS",
    "Glenn K. Lockwood's notes on B200 (from NVIDIA's Blackwell datasheet)",
    primary=False,
)
B300_KLOCKWOOD = Source(
    "https://glennklockwood.com/garden/processors/B300",
    "288 GB HBM3e (8 stacks, 12-high); 8 TB/s (max)",
    "Glenn K. Lockwood's notes on B300",
    primary=False,
)
RTX_BLACKWELL_WHITEPAPER = Source(
    "https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/"
    "nvidia-rtx-blackwell-gpu-architecture.pdf",
    "GeForce RTX 5090: Peak FP32 TFLOPS (non-Tensor) 104.8; Peak FP16 Tensor TFLOPS with FP32 "
    "Accumulate 209.5/419; Peak FP8 Tensor TFLOPS with FP32 Accumulate 419/838; Memory Size "
    "32 GB GDDR7; Memory Bandwidth 1792 GB/sec; Total Graphics Power 575 W "
    "(the second figure is with sparsity)",
    "NVIDIA RTX Blackwell GPU Architecture whitepaper",
)
CUDA_GPUS = Source(
    "https://developer.nvidia.com/cuda-gpus",
    "Compute capability: GeForce RTX 5090 12.0; B300, GB300 10.3; B200, GB200 10.0; H200 9.0; "
    "H100 9.0; L40S 8.9; L4 8.9; GeForce RTX 4090 8.9; GeForce RTX 3090 8.6; A100 8.0; T4 7.5",
    "NVIDIA CUDA GPUs: compute capability",
)
CUDA_LEGACY_GPUS = Source(
    "https://developer.nvidia.com/cuda-legacy-gpus",
    "Compute capability: Tesla V100 7.0; Tesla P100 6.0",
    "NVIDIA legacy CUDA GPUs: compute capability",
)


def _launch(slug: str, says: str, title: str) -> Source:
    """An NVIDIA newsroom release: the product's launch date."""
    return Source(_NEWSROOM + slug, says, f"NVIDIA newsroom: {title}")


P100_LAUNCH = _launch(
    "nvidia-delivers-massive-performance-leap-for-deep-learning-hpc-applications-with-"
    "nvidia-tesla-p100-accelerators",
    "April 5, 2016: NVIDIA introduces the Tesla P100",
    "Tesla P100 launch (2016)",
)
V100_LAUNCH = _launch(
    "nvidia-launches-revolutionary-volta-gpu-platform-fueling-next-era-of-ai-and-high-"
    "performance-computing",
    "May 10, 2017: NVIDIA launches the Volta platform and Tesla V100",
    "Volta launch (2017)",
)
T4_LAUNCH = _launch(
    "new-nvidia-data-center-inference-platform-to-fuel-next-wave-of-ai-powered-services",
    "September 12, 2018: NVIDIA introduces the Tesla T4",
    "T4 launch (2018)",
)
A100_LAUNCH = _launch(
    "nvidias-new-ampere-data-center-gpu-in-full-production",
    "May 14, 2020: the NVIDIA A100 is in full production",
    "A100 launch (2020)",
)
A100_80GB_LAUNCH = _launch(
    "nvidia-doubles-down-announces-a100-80gb-gpu-supercharging-worlds-most-powerful-gpu-for-"
    "ai-supercomputing",
    "November 16, 2020: NVIDIA announces the A100 80GB GPU",
    "A100 80GB launch (2020)",
)
RTX30_LAUNCH = _launch(
    "nvidia-delivers-greatest-ever-generational-leap-in-performance-with-geforce-rtx-30-series-"
    "gpus",
    "September 1, 2020: NVIDIA introduces the GeForce RTX 30 Series",
    "RTX 30 launch (2020)",
)
HOPPER_LAUNCH = _launch(
    "nvidia-announces-hopper-architecture-the-next-generation-of-accelerated-computing",
    "March 22, 2022: NVIDIA announces Hopper and the H100",
    "H100 launch (2022)",
)
RTX40_LAUNCH = _launch(
    "nvidia-delivers-quantum-leap-in-performance-introduces-new-era-of-neural-rendering-with-"
    "geforce-rtx-40-series",
    "September 20, 2022: NVIDIA introduces the GeForce RTX 40 Series",
    "RTX 40 launch (2022)",
)
L4_LAUNCH = Source(
    "https://investor.nvidia.com/news/press-release-details/2023/NVIDIA-Launches-Inference-"
    "Platforms-for-Large-Language-Models-and-Generative-AI-Workloads/default.aspx",
    "March 21, 2023: NVIDIA launches inference platforms including the L4",
    "NVIDIA investor news: L4 launch (2023)",
)
L40S_LAUNCH = _launch(
    "nvidia-global-data-center-system-manufacturers-to-supercharge-generative-ai-and-"
    "industrial-digitalization",
    "August 8, 2023: NVIDIA L40S systems announced",
    "L40S launch (2023)",
)
H200_LAUNCH = _launch(
    "nvidia-supercharges-hopper-the-worlds-leading-ai-computing-platform",
    'November 13, 2023: NVIDIA H200, "141GB of memory at 4.8 terabytes per second"; '
    "available from the second quarter of 2024",
    "H200 launch (2023)",
)
BLACKWELL_LAUNCH = _launch(
    "nvidia-blackwell-platform-arrives-to-power-a-new-era-of-computing",
    "March 18, 2024: NVIDIA Blackwell platform (B200, GB200) announced",
    "Blackwell launch (2024)",
)
B300_LAUNCH = _launch(
    "nvidia-blackwell-ultra-ai-factory-platform-paves-way-for-age-of-ai-reasoning",
    "March 18, 2025: NVIDIA Blackwell Ultra (B300, GB300) announced",
    "Blackwell Ultra launch (2025)",
)
RTX50_LAUNCH = _launch(
    "nvidia-blackwell-geforce-rtx-50-series-opens-new-world-of-ai-computer-graphics",
    "January 6, 2025: NVIDIA introduces the GeForce RTX 50 Series",
    "RTX 50 launch (2025)",
)

# ---- AMD: product pages (their specification tables carry the launch date) -------------------
_AMD = "https://www.amd.com/en/products/accelerators/instinct/"
MI250X_PAGE = Source(
    _AMD + "mi200/mi250x.html",
    "Peak Single Precision (FP32) Vector Performance 47.9 TFLOPs; Peak bfloat16 383 TFLOPs; "
    "Dedicated Memory Size 128 GB HBM2e; Peak Memory Bandwidth 3.2 TB/s; Total Board Power "
    "500W | 560W Peak; Launch Date 11/08/2021",
    "AMD Instinct MI250X, specifications",
)
MI300X_PAGE = Source(
    _AMD + "mi300/mi300x.html",
    "Peak Single Precision (FP32) Vector Performance 163.4 TFLOPs; Peak bfloat16 1307.4 TFLOPs "
    "(with Structured Sparsity 2.61 PFLOPs); Peak FP8 2614.9 TFLOPs; Dedicated Memory Size "
    "192 GB HBM3; Peak Memory Bandwidth 5.3 TB/s; Peak Total Board Power 750W; "
    "Launch Date 12/06/2023",
    "AMD Instinct MI300X, specifications",
)
ROCM_GPU_SPECS = Source(
    "https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html",
    "LLVM target name: MI355X gfx950; MI350X gfx950; MI325X gfx942; MI300X gfx942; MI250X gfx90a",
    "AMD ROCm documentation: GPU specifications",
)

# ---- Intel --------------------------------------------------------------------------------
GAUDI_HOT_CHIPS = Source(
    "https://ieeexplore.ieee.org/document/10665178/",
    "Gaudi 2 | Gaudi 3: TDP (OAM) 600W | 900W (Air) / 1200W (Liquid); Peak Compute (BF16) "
    "432 | 1835 TFLOPs; FP8 Matrix TFLOPs (Gaudi 3) 1835; HBM Capacity 96 GB | 128 GB "
    "(Gaudi 3: 8 HBM2e stacks); Peak HBM BW 2.46 TB/s | 3.67 TB/s",
    'Intel, "Intel Gaudi 3 AI Accelerator: Architected for Gen AI Training and Inference", '
    "Hot Chips 2024",
)
GAUDI2_ML_ENGINEERING = Source(
    "https://github.com/stas00/ml-engineering/blob/master/compute/accelerator/README.md",
    "Intel Gaudi2: bf16 432, fp8 865 TFLOPS (MME); Intel publishes only partial TFLOPS specs",
    "Stas Bekman, Machine Learning Engineering: accelerators",
    primary=False,
)
GAUDI2_PRESS = Source(
    "https://technode.com/2023/07/12/intel-launches-habana-gaudi-2-deep-learning-accelerator-"
    "card-for-chinese-market/",
    "96GB HBM2E memory capacity; Gaudi 2 was previously released overseas last year",
    "TechNode on Gaudi 2 (2023)",
    primary=False,
)
GAUDI2_LAUNCH_PRESS = Source(
    "https://www.benzinga.com/news/22/05/27128444/intel-fires-up-rivalry-with-nvidia-tsmc-with-"
    "ai-chip-launch",
    "2022-05-11: Intel Corporation launched a new chip called Gaudi2",
    "Benzinga on the Gaudi 2 launch (2022)",
    primary=False,
)
GAUDI3_LAUNCH_PRESS = Source(
    "https://www.theregister.com/2024/04/09/intel_gaudi_ai_accelerator/",
    "April 9, 2024: Gaudi3 announced at Intel Vision",
    "The Register on the Gaudi 3 launch (2024)",
    primary=False,
)

# ---- Google Cloud TPU documentation and launch posts ----------------------------------------
_TPU_DOCS = "https://cloud.google.com/tpu/docs/"
TPU_V4_DOCS = Source(
    _TPU_DOCS + "v4",
    "Peak compute per chip 275 teraflops (bf16 or int8); HBM2 capacity and bandwidth 32 GiB, "
    "1200 GBps; Measured min/mean/max power 90/170/192 W",
    "Google Cloud TPU v4 documentation",
)
TPU_V5E_DOCS = Source(
    _TPU_DOCS + "v5e",
    "Peak compute per chip (bf16) 197 TFLOPs; HBM2 capacity and bandwidth 16 GB, 819 GBps",
    "Google Cloud TPU v5e documentation",
)
TPU_V5P_DOCS = Source(
    _TPU_DOCS + "v5p",
    "Peak compute per chip (bf16) 459 TFLOPs; HBM2e capacity and bandwidth 95GB, 2765 GBps",
    "Google Cloud TPU v5p documentation",
)
TPU7X_DOCS = Source(
    _TPU_DOCS + "tpu7x",
    "v5p | v6e (Trillium) | TPU7x (Ironwood): Peak compute per chip (BF16) (TFLOPs) 459 | 918 "
    "| 2307; Peak compute per chip (FP8) (TFLOPs) 459 | 918 | 4614; HBM capacity per chip (GiB) "
    "95 | 32 | 192; HBM bandwidth per chip (GBps) 2765 | 1638 | 7380",
    "Google Cloud TPU7x (Ironwood) documentation",
)
TPU_V6E_DOCS = Source(
    _TPU_DOCS + "v6e",
    "Peak compute per chip (bf16) 918 TFLOPs; HBM capacity per chip 32 GB; HBM bandwidth per "
    "chip 1638 GBps",
    "Google Cloud TPU v6e documentation",
)
TPU_V4_BLOG = Source(
    "https://cloud.google.com/blog/topics/tpus/google-showcases-cloud-tpu-v4-pods-for-large-"
    "model-training",
    "December 2021: Cloud TPU v4 Pods in MLPerf Training v1.1",
    "Google Cloud blog: Cloud TPU v4 Pods (2021)",
)
TPU_V5E_BLOG = Source(
    "https://cloud.google.com/blog/products/compute/announcing-cloud-tpu-v5e-and-a3-gpus-in-ga",
    "August 29, 2023: Cloud TPU v5e announced in preview",
    "Google Cloud blog: Cloud TPU v5e (2023)",
)
TPU_V5P_BLOG = Source(
    "https://cloud.google.com/blog/products/ai-machine-learning/introducing-cloud-tpu-v5p-and-"
    "ai-hypercomputer",
    "December 6, 2023: introducing Cloud TPU v5p",
    "Google Cloud blog: Cloud TPU v5p (2023)",
)


# ---- Apple: newsroom releases and specification pages; Apple prints no GPU TFLOP/s after M1 -----
_APPLE_NEWS = "https://www.apple.com/newsroom/"
M1_NEWSROOM = Source(
    _APPLE_NEWS + "2020/11/apple-unleashes-m1/",
    "November 10, 2020: M1 ... 8-core GPU ... 2.6 teraflops of throughput",
    "Apple newsroom: Apple unleashes M1 (2020)",
)
MACBOOK_AIR_M1_SPECS = Source(
    "https://support.apple.com/kb/SP825",
    "MacBook Air (M1, 2020): 8GB unified memory, configurable to 16GB",
    "Apple: MacBook Air (M1, 2020) technical specifications",
)
M1_MAX_NEWSROOM = Source(
    _APPLE_NEWS
    + "2021/10/introducing-m1-pro-and-m1-max-the-most-powerful-chips-apple-has-ever-built/",
    "October 18, 2021: M1 Max delivers up to 400GB/s of memory bandwidth and support for up to "
    "64GB of unified memory; 32-core GPU",
    "Apple newsroom: Introducing M1 Pro and M1 Max (2021)",
)
M2_ULTRA_NEWSROOM = Source(
    _APPLE_NEWS + "2023/06/apple-introduces-m2-ultra/",
    "June 5, 2023: M2 Ultra ... up to 76-core GPU ... up to 192GB of unified memory ... "
    "800GB/s of memory bandwidth",
    "Apple newsroom: Apple introduces M2 Ultra (2023)",
)
M4_MAX_NEWSROOM = Source(
    _APPLE_NEWS + "2024/10/apple-introduces-m4-pro-and-m4-max/",
    "October 30, 2024: M4 Max ... up to 40-core GPU ... up to 128GB of unified memory with "
    "546GB/s of memory bandwidth",
    "Apple newsroom: Apple introduces M4 Pro and M4 Max (2024)",
)
METAL_FEATURE_TABLES = Source(
    "https://developer.apple.com/metal/Metal-Feature-Set-Tables.pdf",
    "GPU families: Apple7 (A14, M1 family); Apple8 (A15, A16, M2 family); Apple9 (A17 Pro, "
    "M3 and M4 families)",
    "Apple Metal feature set tables",
)
M1_WIKIPEDIA = Source(
    "https://en.wikipedia.org/wiki/Apple_M1",
    "M1: LPDDR4X-4266, 68.25 GB/s; M1 Max: LPDDR5-6400, 32-core GPU 10.4 TFLOPS FP32",
    "Wikipedia: Apple M1",
    primary=False,
)
M2_WIKIPEDIA = Source(
    "https://en.wikipedia.org/wiki/Apple_M2",
    "M2 Ultra: LPDDR5-6400; 76-core GPU 27.2 TFLOPS FP32",
    "Wikipedia: Apple M2",
    primary=False,
)
M4_WIKIPEDIA = Source(
    "https://en.wikipedia.org/wiki/Apple_M4",
    "M4 Max: LPDDR5X-8533",
    "Wikipedia: Apple M4",
    primary=False,
)

# Rows only the Guide shows (newer AMD, TPU, Trainium and Apple parts) live in
# gpu_tui.core.guide.extra_catalog; the sources they share with these rows are defined above.

# Hand-wrapped rows read better than one value per line, so the formatter leaves them alone.
# fmt: off
CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "NVIDIA P100 SXM2", "NVIDIA", "Pascal", 2016, 16, "HBM2", 0.732, 10.6, None, None, 300,
        "6.0", cites(P100_DATASHEET, year=P100_LAUNCH, compute=CUDA_LEGACY_GPUS),
        notes="No Tensor Cores and no BF16; FP16 21.2 TFLOP/s. Launch materials said 720 GB/s.",
    ),
    CatalogEntry(
        "NVIDIA V100 SXM2", "NVIDIA", "Volta", 2017, 16, "HBM2", 0.90, 15.7, None, None, 300, "7.0",
        cites(V100_DATASHEET, year=V100_LAUNCH, compute=CUDA_LEGACY_GPUS),
        notes="No BF16: tensor rate is FP16 only (125 TFLOP/s). A 32 GB variant followed.",
    ),
    CatalogEntry(
        "NVIDIA T4", "NVIDIA", "Turing", 2018, 16, "GDDR6", 0.30, 8.1, None, None, 70, "7.5",
        cites(T4_DATASHEET, year=T4_LAUNCH, compute=CUDA_GPUS),
        notes="No BF16: tensor rate is FP16 mixed precision (65 TFLOP/s). NVML's 5001 MHz × "
        "256 bit computes to 320 GB/s; the datasheet prints 300.",
    ),
    CatalogEntry(
        "NVIDIA A100 40GB SXM", "NVIDIA", "Ampere", 2020, 40, "HBM2", 1.555, 19.5, 312, None, 400,
        "8.0", cites(A100_40GB_DATASHEET, year=A100_LAUNCH, compute=CUDA_GPUS),
        notes="TF32 156. deviceQuery: memory clock 1215 MHz, 5120-bit bus.",
        bf16_sparse_tflops=624,
    ),
    CatalogEntry(
        "NVIDIA A100 80GB SXM", "NVIDIA", "Ampere", 2020, 80, "HBM2e", 2.039, 19.5, 312, None, 400,
        "8.0", cites(A100_DATASHEET, year=A100_80GB_LAUNCH, compute=CUDA_GPUS),
        notes="TF32 156.", bf16_sparse_tflops=624,
    ),
    CatalogEntry(
        "NVIDIA A100 80GB PCIe", "NVIDIA", "Ampere", 2020, 80, "HBM2e", 1.935, 19.5, 312, None, 300,
        "8.0", cites(A100_DATASHEET, year=A100_80GB_LAUNCH, compute=CUDA_GPUS),
        notes="TF32 156. The year is the 80 GB part's launch; the PCIe card followed.",
        bf16_sparse_tflops=624,
    ),
    CatalogEntry(
        "NVIDIA RTX 3090", "NVIDIA", "Ampere GA102", 2020, 24, "GDDR6X", 0.936, 35.6, 71, None, 350,
        "8.6", cites(GA102_WHITEPAPER, year=RTX30_LAUNCH, compute=CUDA_GPUS),
        notes="GeForce: FP16 with FP16 accumulate runs at 142; FP32 accumulate (PyTorch's "
        "bf16) at half that.",
        bf16_sparse_tflops=142,
    ),
    CatalogEntry(
        "NVIDIA H100 SXM", "NVIDIA", "Hopper", 2022, 80, "HBM3", 3.35, 67, 989.4, 1979, 700,
        "9.0", cites(H100_DATASHEET, year=HOPPER_LAUNCH, memory_type=HOPPER_WHITEPAPER,
                     bf16_tflops=HOPPER_WHITEPAPER, compute=CUDA_GPUS),
        notes="132 SMs. Tensor peaks at 1.83 GHz, FP32 at 1.98 GHz. TF32 494.7.",
        bf16_sparse_tflops=1978.9, fp8_sparse_tflops=3958,
    ),
    CatalogEntry(
        "NVIDIA H100 PCIe", "NVIDIA", "Hopper", 2022, 80, "HBM2e", 2.0, 51, 756, 1513, 350, "9.0",
        cites(H100_DATASHEET, year=HOPPER_LAUNCH, memory_type=HOPPER_WHITEPAPER,
              bf16_tflops=HOPPER_WHITEPAPER, compute=CUDA_GPUS),
        notes="TDP 300–350 W (configurable). TF32 378.", bf16_sparse_tflops=1513,
        fp8_sparse_tflops=3026,
    ),
    CatalogEntry(
        "NVIDIA RTX 4090", "NVIDIA", "Ada", 2022, 24, "GDDR6X", 1.008, 82.6, 165.2, 330.3, 450,
        "8.9", cites(ADA_WHITEPAPER, year=RTX40_LAUNCH, compute=CUDA_GPUS),
        notes="GeForce: FP16-accumulate rates are 2× (330.3 BF16/FP16, 660.6 FP8).",
        bf16_sparse_tflops=330.4, fp8_sparse_tflops=660.6,
    ),
    CatalogEntry(
        "NVIDIA L4", "NVIDIA", "Ada", 2023, 24, "GDDR6", 0.30, 30.3, 121, 242.5, 72, "8.9",
        cites(L4_PAGE, year=L4_LAUNCH, memory_type=L4_BRIEF, compute=CUDA_GPUS),
        notes="TF32 60.", bf16_sparse_tflops=242, fp8_sparse_tflops=485,
    ),
    CatalogEntry(
        "NVIDIA L40S", "NVIDIA", "Ada", 2023, 48, "GDDR6", 0.864, 91.6, 362.05, 733, 350, "8.9",
        cites(L40S_PAGE, year=L40S_LAUNCH, compute=CUDA_GPUS),
        notes="TF32 183.", bf16_sparse_tflops=733, fp8_sparse_tflops=1466,
    ),
    CatalogEntry(
        "NVIDIA H200 SXM", "NVIDIA", "Hopper", 2023, 141, "HBM3e", 4.8, 67, 989.5, 1979, 700,
        "9.0", cites(H200_PAGE, year=H200_LAUNCH, compute=CUDA_GPUS),
        notes="Same GH100 silicon as H100; shipped from Q2 2024. NVML reports 3201 MHz × "
        "6144 bit = 4917 GB/s computed.",
        bf16_sparse_tflops=1979, fp8_sparse_tflops=3958,
    ),
    CatalogEntry(
        "NVIDIA B200 (HGX)", "NVIDIA", "Blackwell", 2024, 180, "HBM3e", 8.0, 75, 2250, 4500, 1000,
        "10.0", cites(HGX_PAGE, year=BLACKWELL_LAUNCH, memory_gib=DGX_B200_DATASHEET,
                      memory_type=DGX_B200_DATASHEET, bandwidth_tbps=DGX_B200_DATASHEET,
                      tdp_watts=B200_KLOCKWOOD, compute=CUDA_GPUS),
        notes="Shipped from 2025. 180 GB usable (192 GB announced). FP32 is NVIDIA's HGX "
        "figure (600 TFLOP/s per 8 GPUs); the launch datasheet said 80 per GPU.",
        bf16_sparse_tflops=4500, fp8_sparse_tflops=9000,
    ),
    CatalogEntry(
        "NVIDIA B200 (GB200)", "NVIDIA", "Blackwell", 2024, None, "HBM3e", 8.0, 90, 2500, 5000,
        1200, "10.0", cites(B200_KLOCKWOOD, year=BLACKWELL_LAUNCH, memory_type=DGX_B200_DATASHEET,
                            compute=CUDA_GPUS),
        notes="In the Grace + 2 GPU superchip (NVL72). Per-GPU memory (~186–192 GB) is not "
        "published per GPU.",
        bf16_sparse_tflops=5000, fp8_sparse_tflops=10000,
    ),
    CatalogEntry(
        "NVIDIA B300 (Blackwell Ultra)", "NVIDIA", "Blackwell Ultra", 2025, 288, "HBM3e", 8.0, 75,
        2250, 4500, None, "10.3",
        cites(HGX_PAGE, year=B300_LAUNCH, memory_gib=DGX_B300_GUIDE, memory_type=DGX_B300_GUIDE,
              bandwidth_tbps=B300_KLOCKWOOD, compute=CUDA_GPUS),
        notes="HGX B300: 36 PF sparse BF16 per 8 GPUs. Up to 1,400 W in GB300; the HGX board "
        "power per GPU is not published.",
        bf16_sparse_tflops=4500, fp8_sparse_tflops=9000,
    ),
    CatalogEntry(
        "NVIDIA RTX 5090", "NVIDIA", "Blackwell GB202", 2025, 32, "GDDR7", 1.792, 104.8, 209.5,
        419, 575, "12.0", cites(RTX_BLACKWELL_WHITEPAPER, year=RTX50_LAUNCH, compute=CUDA_GPUS),
        notes="GeForce: FP16-accumulate rates are 2× (419 BF16/FP16, 838 FP8).",
        bf16_sparse_tflops=419, fp8_sparse_tflops=838,
    ),
    CatalogEntry(
        "AMD Instinct MI250X", "AMD", "CDNA2", 2021, 128, "HBM2e", 3.2, 47.9, 383, None, 500,
        "gfx90a", cites(MI250X_PAGE, compute=ROCM_GPU_SPECS),
        notes="FP32 47.9 vector / 95.7 matrix. Exactly 3.2768 TB/s. 560 W peak. No FP8.",
    ),
    CatalogEntry(
        "AMD Instinct MI300X", "AMD", "CDNA3", 2023, 192, "HBM3", 5.3, 163.4, 1307.4, 2614.9, 750,
        "gfx942", cites(MI300X_PAGE, compute=ROCM_GPU_SPECS),
        notes="AMD's 2614.9 'FP16' figure is sparse.", bf16_sparse_tflops=2614.9,
    ),
    CatalogEntry(
        "Intel Gaudi 2", "Intel", "Gaudi2", 2022, 96, "HBM2e", 2.46, None, 432, 865, 600, None,
        cites(GAUDI_HOT_CHIPS, year=GAUDI2_LAUNCH_PRESS, memory_type=GAUDI2_PRESS,
              fp8_tflops=GAUDI2_ML_ENGINEERING),
        notes="FP32 not published. Intel's own FP8 figure was not found in a vendor document.",
    ),
    CatalogEntry(
        "Intel Gaudi 3", "Intel", "Gaudi3", 2024, 128, "HBM2e", 3.67, None, 1835, 1835, 900, None,
        cites(GAUDI_HOT_CHIPS, year=GAUDI3_LAUNCH_PRESS),
        notes="BF16 vector 28.7. 900 W air-cooled, 1200 W liquid-cooled.",
    ),
    CatalogEntry(
        "Google TPU v4", "Google", "TPU v4", 2021, 32, "HBM2", 1.2, None,
        275, None, None, None, cites(TPU_V4_DOCS, year=TPU_V4_BLOG),
        notes="32 GiB. 2 TensorCores per chip. Power measured 170 W mean / 192 W max (no TDP).",
    ),
    CatalogEntry(
        "Google TPU v5e", "Google", "TPU v5e", 2023, 16, "HBM2", 0.819, None, 197, None, None, None,
        cites(TPU_V5E_DOCS, year=TPU_V5E_BLOG), notes="1 TensorCore per chip. int8 393 TOPS.",
    ),
    CatalogEntry(
        "Google TPU v5p", "Google", "TPU v5p", 2023, 95, "HBM2e", 2.765, None, 459, 459, None,
        None, cites(TPU_V5P_DOCS, year=TPU_V5P_BLOG, fp8_tflops=TPU7X_DOCS),
        notes="2 TensorCores per chip. int8 918 TOPS. No faster FP8: it runs at the BF16 rate.",
    ),
    CatalogEntry(
        "Apple M1 (8-core GPU)", "Apple", "Apple7 GPU", 2020, 16, "LPDDR4X", 0.06825, 2.6, None,
        None, None, "Metal Apple7",
        cites(M1_NEWSROOM, memory_gib=MACBOOK_AIR_M1_SPECS, memory_type=M1_WIKIPEDIA,
              bandwidth_tbps=M1_WIKIPEDIA, compute=METAL_FEATURE_TABLES),
        notes="Unified memory, up to 16 GB. No matrix units. Apple publishes no bandwidth "
        "for M1 (its M1 Max release calls 400 GB/s \"nearly 6x\" M1's).",
    ),
    CatalogEntry(
        "Apple M1 Max (32-core GPU)", "Apple", "Apple7 GPU", 2021, 64, "LPDDR5", 0.40, 10.4, None,
        None, None, "Metal Apple7",
        cites(M1_MAX_NEWSROOM, memory_type=M1_WIKIPEDIA, fp32_tflops=M1_WIKIPEDIA,
              compute=METAL_FEATURE_TABLES),
        notes="Unified memory, up to 64 GB. The 10.4 TFLOP/s figure is from Apple's launch "
        "event, not its printed material.",
    ),
    CatalogEntry(
        "Apple M2 Ultra (76-core GPU)", "Apple", "Apple8 GPU", 2023, 192, "LPDDR5", 0.80, 27.2,
        None, None, None, "Metal Apple8",
        cites(M2_ULTRA_NEWSROOM, memory_type=M2_WIKIPEDIA, fp32_tflops=M2_WIKIPEDIA,
              compute=METAL_FEATURE_TABLES),
        notes="Unified memory, up to 192 GB.",
    ),
    CatalogEntry(
        "Apple M4 Max (40-core GPU)", "Apple", "Apple9 GPU", 2024, 128, "LPDDR5X", 0.546, None,
        None, None, None, "Metal Apple9",
        cites(M4_MAX_NEWSROOM, memory_type=M4_WIKIPEDIA, compute=METAL_FEATURE_TABLES),
        notes="Unified memory, up to 128 GB. Apple stopped printing TFLOP/s (~16 estimated).",
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
