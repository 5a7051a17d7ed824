"""NVIDIA's rated clocks per SKU, keyed by what NVML reports, each row with its source.

A vendor's peak is SMs × clock × FLOP per clock per SM, at a clock the vendor chose, which is
not NVML's maximum SM clock: H100 SXM tensor figures are computed at 1.83 GHz while NVML reports
1.98 GHz, H100 PCIe at 1.62 GHz against 1.755 GHz, and GeForce and RTX Ada cards report the top
of their voltage curve (3.1 GHz on an RTX 4090 rated at 2.52 GHz). Computed at NVML's maximum,
those peaks overshoot the datasheet, and every "% of peak" measured against them is understated.

Each row gives the clock NVIDIA's own figures are computed at: the boost clock where a document
states it, otherwise the clock that SMs × clock × FLOP/clk/SM needs to reproduce the published
dense figure (``note`` says which). ``tests/reference/test_peak_reference.py`` checks the rows
against their sources' figures. A part whose firmware caps the tensor rate (H20) cannot be computed
at all; its row carries the published figures instead.

Rows are keyed by the name NVML reports and, where NVIDIA ships several GH100 boards, the PCI
device ID (checked against the PCI ID repository, https://pci-ids.ucw.cz/read/PC/10de). The
default power limit splits rows only where SKUs share both name and device ID.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.sources import Source


@dataclass(frozen=True)
class RatedSku:
    """One SKU: how NVML names it, and the clocks NVIDIA's peak figures for it are computed at."""

    sku: str
    """The product as people call it, without the brand, e.g. ``H100 PCIe``."""
    nvml_name: str
    """Exactly what ``nvmlDeviceGetName`` returns."""
    pci_device_id: int | None
    """The device half of ``nvmlPciInfo_t.pciDeviceId`` (``0x2331``); ``None``: name alone."""
    sm_count: int
    """The SMs NVIDIA's figures are for; a reading with another count is another product."""
    fp32_mhz: int | None
    """The clock of the vendor's FP32 figure; ``None`` when no source gives one."""
    tensor_mhz: int | None
    """The clock of the vendor's tensor figures; ``None`` when they cannot be computed."""
    source: Source
    """The document whose figures these clocks reproduce."""
    note: str
    """How the FP32 clock (and the tensor clock, unless ``tensor_note``) follows, in words."""
    tensor_note: str = ""
    """How the tensor clock follows, where it differs from the FP32 clock."""
    clock_source: Source | None = None
    """A second document where the clock of ``note`` is stated, if the first does not."""
    published_tflops: Mapping[str, float] = field(default_factory=dict)
    """Dense figures used as published (``{"bf16": 148.0}``), for rates firmware caps."""
    power_limit_default_watts: float | None = None
    """Only to tell apart SKUs that share name and device ID."""

    def note_for(self, kind: str) -> str:
        """How the clock of one peak (``"fp32"``, ``"bf16"`` …) follows, with its document."""
        if kind != "fp32" and self.tensor_note:
            return self.tensor_note
        stated = self.clock_source
        return f"{self.note}; stated in {stated.title}, {stated.url}" if stated else self.note


# ---- sources: the vendor's document and the figure as it states it --------------------------
_A100_DATASHEET = Source(
    url=(
        "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
        "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
    ),
    says=(
        "FP32 19.5 TFLOPS; TF32 Tensor Core 156 TFLOPS | 312 TFLOPS*; "
        "BFLOAT16 Tensor Core 312 TFLOPS | 624 TFLOPS* (* With sparsity)"
    ),
    title="NVIDIA A100 Tensor Core GPU datasheet",
)
_AMPERE_WHITEPAPER = Source(
    url=(
        "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/"
        "nvidia-ampere-architecture-whitepaper.pdf"
    ),
    says="NVIDIA A100: 108 SMs; GPU Boost Clock 1410 MHz",
    title="NVIDIA A100 Tensor Core GPU Architecture whitepaper",
)
_A100_40GB_PCIE_BRIEF = Source(
    url="https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/A100-PCIE-Prduct-Brief.pdf",
    says="Boost clock 1410 MHz",
    title="NVIDIA A100 40GB PCIe GPU Accelerator product brief (PB-10137)",
)
_A100_80GB_PCIE_BRIEF = Source(
    url="https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/PB-10577-001_v02.pdf",
    says="Boost clock 1410 MHz",
    title="NVIDIA A100 80GB PCIe GPU product brief (PB-10577)",
)
_A10_PAGE = Source(
    url="https://www.nvidia.com/en-us/data-center/products/a10-gpu/",
    says=(
        "FP32 31.2 teraFLOPS; TF32 Tensor Core 62.5 teraFLOPS | 125 teraFLOPS*; "
        "BFLOAT16 Tensor Core 125 teraFLOPS | 250 teraFLOPS* (* With sparsity)"
    ),
    title="NVIDIA A10 Tensor Core GPU, specifications",
)
_A40_DATASHEET = Source(
    url="https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf",
    says=(
        "FP32 37.4 TFLOPS; TF32 Tensor Core 74.8 | 149.6* TFLOPS; "
        "BFLOAT16 Tensor Core 149.7 | 299.4* TFLOPS (* With sparsity)"
    ),
    title="NVIDIA A40 datasheet",
)
_V100_DATASHEET = Source(
    url=(
        "https://images.nvidia.com/content/technologies/volta/pdf/"
        "tesla-volta-v100-datasheet-letter-fnl-web.pdf"
    ),
    says="V100 SXM2: Single-Precision 15.7 teraFLOPS; Deep Learning 125 teraFLOPS",
    title="NVIDIA Tesla V100 datasheet",
)
_T4_DATASHEET = Source(
    url=(
        "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/"
        "t4-tensor-core-datasheet-951643.pdf"
    ),
    says="Single-Precision 8.1 TFLOPS; Mixed-Precision (FP16/FP32) 65 TFLOPS",
    title="NVIDIA T4 Tensor Core GPU datasheet",
)
_H100_DATASHEET = Source(
    url="https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
    says=(
        "H100 SXM | H100 PCIe: FP32 67 | 51 teraFLOPS; TF32 Tensor Core 989 | 756 teraFLOPS*; "
        "BFLOAT16 Tensor Core 1,979 | 1,513 teraFLOPS*; FP8 Tensor Core 3,958 | 3,026 "
        "teraFLOPS* (* Shown with sparsity. Specifications 1/2 lower without sparsity.)"
    ),
    title="NVIDIA H100 Tensor Core GPU datasheet",
)
_H100_PCIE_BRIEF = Source(
    url="https://www.nvidia.com/content/dam/en-zz/Solutions/gtcs22/data-center/h100/PB-11133-001_v01.pdf",
    says="Boost clock 1,755 MHz",
    title="NVIDIA H100 PCIe GPU product brief (PB-11133)",
)
_H100_PAGE = Source(
    url="https://www.nvidia.com/en-us/data-center/h100/",
    says=(
        "H100 SXM | H100 NVL: FP32 67 | 60 teraFLOPS; TF32 Tensor Core* 989 | 835 teraFLOPS; "
        "BFLOAT16 Tensor Core* 1,979 | 1,671 teraFLOPS; FP8 Tensor Core* 3,958 | 3,341 "
        "teraFLOPS (* With sparsity)"
    ),
    title="NVIDIA H100 Tensor Core GPU, specifications",
)
_H200_PAGE = Source(
    url="https://www.nvidia.com/en-us/data-center/h200/",
    says=(
        "H200 SXM: FP32 67 TFLOPS; TF32 Tensor Core 989 TFLOPS; BFLOAT16 Tensor Core 1,979 "
        "TFLOPS; FP8 Tensor Core 3,958 TFLOPS (Tensor Core figures with sparsity)"
    ),
    title="NVIDIA H200 Tensor Core GPU, specifications",
)
_GH200_PAGE = Source(
    url="https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/",
    says=(
        "FP32 67 teraFLOPS; TF32 Tensor Core 494 | 989* teraFLOPS; BFLOAT16 Tensor Core "
        "990 | 1,979* teraFLOPS; FP8 Tensor Core 1,979 | 3,958* teraFLOPS (* With sparsity)"
    ),
    title="NVIDIA GH200 Grace Hopper Superchip, specifications",
)
_H20_PRESS = Source(
    url=(
        "https://www.tomshardware.com/pc-components/gpus/new-nvidia-ai-gpus-designed-to-get-"
        "around-us-export-bans-come-to-china-h20-l20-and-l2-to-fill-void-left-by-restricted-models"
    ),
    says=(
        "HGX H20: INT8 | FP8 Tensor 296 | 296 TFLOPS; BF16 | FP16 Tensor 148 | 148 TFLOPS; "
        "TF32 Tensor 74 TFLOPS"
    ),
    title="Tom's Hardware on NVIDIA's H20, L20 and L2 for China (specification table)",
    primary=False,
)
_L4_PAGE = Source(
    url="https://www.nvidia.com/en-us/data-center/l4/",
    says=(
        "FP32 30.3 teraFLOPs; TF32 Tensor Core 120 teraFLOPs*; BFLOAT16 Tensor Core 242 "
        "teraFLOPs*; FP8 Tensor Core 485 teraFLOPs* (* Shown with sparsity)"
    ),
    title="NVIDIA L4 Tensor Core GPU, specifications",
)
_L4_BRIEF = Source(
    url="https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/l4/PB-11316-001_v01.pdf",
    says="Boost clock 2,040 MHz",
    title="NVIDIA L4 GPU Accelerator product brief (PB-11316)",
)
_L40S_PAGE = Source(
    url="https://www.nvidia.com/en-us/data-center/l40s/",
    says=(
        "FP32 91.6 teraFLOPS; TF32 Tensor Core 183 | 366* teraFLOPS; BFLOAT16 Tensor Core "
        "362.05 | 733* teraFLOPS; FP8 Tensor Core 733 | 1,466* teraFLOPS (* With sparsity)"
    ),
    title="NVIDIA L40S GPU, specifications",
)
_ADA_WHITEPAPER = Source(
    url="https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf",
    says=(
        "GeForce RTX 4090: GPU Boost Clock (MHz) 2520; Peak FP32 TFLOPS (non-Tensor) 82.6; "
        "Peak FP16 Tensor TFLOPS with FP32 Accumulate 165.2/330.4; Peak FP8 Tensor TFLOPS "
        "with FP32 Accumulate 330.3/660.6"
    ),
    title="NVIDIA Ada GPU Architecture whitepaper",
)
_RTX_6000_ADA_PAGE = Source(
    url="https://www.nvidia.com/en-us/design-visualization/rtx-6000/",
    says="Single-Precision Performance 91.1 TFLOPS; Tensor Performance 1,457 TFLOPS (FP8, sparse)",
    title="NVIDIA RTX 6000 Ada Generation, specifications",
)

_IMPLIED = "the clock that reproduces NVIDIA's dense figure"

# fmt: off
RATED_SKUS: tuple[RatedSku, ...] = (
    RatedSku(
        "A100 SXM4 40GB", "NVIDIA A100-SXM4-40GB", 0x20B0, 108, 1410, 1410,
        _A100_DATASHEET, "boost clock 1410 MHz",
        clock_source=_AMPERE_WHITEPAPER,
    ),
    RatedSku(
        "A100 SXM4 80GB", "NVIDIA A100-SXM4-80GB", 0x20B2, 108, 1410, 1410,
        _A100_DATASHEET, "boost clock 1410 MHz",
        clock_source=_AMPERE_WHITEPAPER,
    ),
    RatedSku(
        "A100 PCIe 40GB", "NVIDIA A100-PCIE-40GB", 0x20F1, 108, 1410, 1410,
        _A100_DATASHEET, "boost clock 1410 MHz",
        clock_source=_A100_40GB_PCIE_BRIEF,
    ),
    RatedSku(
        "A100 PCIe 80GB", "NVIDIA A100 80GB PCIe", 0x20B5, 108, 1410, 1410,
        _A100_DATASHEET, "boost clock 1410 MHz",
        clock_source=_A100_80GB_PCIE_BRIEF,
    ),
    RatedSku(
        "A10", "NVIDIA A10", 0x2236, 72, 1695, 1695, _A10_PAGE,
        f"1695 MHz is {_IMPLIED} (72 SMs × 1.695 GHz × 1024 = 125.0 BF16)",
    ),
    RatedSku(
        "A40", "NVIDIA A40", 0x2235, 84, 1740, 1740, _A40_DATASHEET,
        f"1740 MHz is {_IMPLIED} (84 SMs × 1.74 GHz × 1024 = 149.7 BF16)",
    ),
    RatedSku(
        "Tesla V100 SXM2 16GB", "Tesla V100-SXM2-16GB", 0x1DB1, 80, 1530, 1530,
        _V100_DATASHEET, f"1530 MHz is {_IMPLIED} (80 SMs × 1.53 GHz × 1024 = 125.3 FP16)",
    ),
    RatedSku(
        "T4", "Tesla T4", 0x1EB8, 40, 1590, 1590, _T4_DATASHEET,
        f"1590 MHz is {_IMPLIED} (40 SMs × 1.59 GHz × 1024 = 65.1 FP16)",
    ),
    # GH100 boards: NVIDIA ships several (pci.ids lists H100, H100 SXM5 94GB, H100 96GB …), so
    # these rows also check the device ID when NVML reports it.
    RatedSku(
        "H100 SXM5 80GB", "NVIDIA H100 80GB HBM3", 0x2330, 132, 1980, 1830,
        _H100_DATASHEET, f"1980 MHz is {_IMPLIED} (132 SMs × 1.98 GHz × 256 = 66.9 FP32)",
        tensor_note=f"1830 MHz is {_IMPLIED} (132 SMs × 1.83 GHz × 4096 = 989.4 BF16)",
    ),
    RatedSku(
        "H100 PCIe", "NVIDIA H100 PCIe", 0x2331, 114, 1755, 1620, _H100_DATASHEET,
        "boost clock 1755 MHz (114 SMs × 1.755 GHz × 256 = 51.2 FP32)",
        tensor_note=f"1620 MHz is {_IMPLIED} (114 SMs × 1.62 GHz × 4096 = 756.4 BF16)",
        clock_source=_H100_PCIE_BRIEF,
    ),
    RatedSku(
        "H100 NVL", "NVIDIA H100 NVL", 0x2321, 132, 1785, 1545, _H100_PAGE,
        "1785 MHz, the board's maximum boost clock as NVML reports it (132 SMs × 1.785 GHz × "
        "256 = 60.3 against NVIDIA's 60 FP32)",
        tensor_note=f"1545 MHz is {_IMPLIED} (132 SMs × 1.545 GHz × 4096 = 835.3 BF16)",
    ),
    RatedSku(
        "H200 SXM", "NVIDIA H200", 0x2335, 132, 1980, 1830, _H200_PAGE,
        f"1980 MHz is {_IMPLIED} (132 SMs × 1.98 GHz × 256 = 66.9 FP32)",
        tensor_note=f"1830 MHz is {_IMPLIED} (132 SMs × 1.83 GHz × 4096 = 989.4 BF16)",
    ),
    RatedSku(
        "GH200 480GB", "NVIDIA GH200 480GB", 0x2342, 132, 1980, 1830, _GH200_PAGE,
        f"1980 MHz is {_IMPLIED} (132 SMs × 1.98 GHz × 256 = 66.9 FP32)",
        tensor_note=f"1830 MHz is {_IMPLIED} (132 SMs × 1.83 GHz × 4096 = 989.4 BF16)",
    ),
    RatedSku(
        "H20", "NVIDIA H20", 0x2329, 78, None, None, _H20_PRESS,
        "firmware caps the tensor rate far below 78 SMs × clock × 4096, so the published "
        "figures are used as they are",
        published_tflops={"tf32": 74.0, "fp16": 148.0, "bf16": 148.0, "fp8": 296.0},
    ),
    RatedSku(
        "L4", "NVIDIA L4", 0x27B8, 58, 2040, 2040, _L4_PAGE,
        "boost clock 2040 MHz", clock_source=_L4_BRIEF,
    ),
    # The datasheet's dense BF16 362.05 is 142 × 2.49 GHz × 1024, while its own FP32, TF32 and
    # FP8 figures and its sparse BF16 733 all follow from 2520 MHz, NVML's maximum on an L40S.
    RatedSku(
        "L40S", "NVIDIA L40S", 0x26B9, 142, 2520, 2520, _L40S_PAGE,
        "2520 MHz reproduces NVIDIA's FP32, TF32 and FP8 figures (142 SMs × 2.52 GHz × 2048 "
        "= 733.0 FP8)",
    ),
    RatedSku(
        "GeForce RTX 4090", "NVIDIA GeForce RTX 4090", 0x2684, 128, 2520, 2520,
        _ADA_WHITEPAPER, "boost clock 2520 MHz, as the whitepaper states",
    ),
    RatedSku(
        "RTX 6000 Ada Generation", "NVIDIA RTX 6000 Ada Generation", 0x26B1, 142, 2505,
        2505, _RTX_6000_ADA_PAGE,
        "2505 MHz reproduces NVIDIA's figures (142 SMs × 2.505 GHz × 256 = 91.1 FP32; "
        "× 2048 × 2 = 1457 FP8 sparse)",
    ),
)
# fmt: on


def find_rated(
    *,
    name: str,
    sm_count: int,
    pci_device_id: Maybe[int] | None = None,
    power_limit_default_watts: Maybe[float] | None = None,
    table: tuple[RatedSku, ...] = RATED_SKUS,
) -> RatedSku | Unknown:
    """The row for a GPU as NVML reports it, or ``Unknown`` saying why none applies.

    The name must match exactly. A device ID or default power limit that NVML reported rules
    out rows that name another; one it could not report (``Unknown`` or ``None``) rules out
    nothing, as long as the name leaves a single row. The SM count must be the row's: a board
    with fewer SMs under the same name is not what NVIDIA's figures describe.
    """
    candidates = [row for row in table if row.nvml_name == name.strip()]
    if not candidates:
        return Unknown("the vendor's rated clock for this GPU is not in gpu-tui's table")
    if isinstance(pci_device_id, int):
        known = ", ".join(f"{r.pci_device_id:#06x}" for r in candidates if r.pci_device_id)
        candidates = [r for r in candidates if r.pci_device_id in (None, pci_device_id)]
        if not candidates:
            return Unknown(
                f"gpu-tui's table rates {name.strip()!r} only with PCI device ID {known}; "
                f"NVML reports {pci_device_id:#06x}"
            )
    if len(candidates) > 1 and isinstance(power_limit_default_watts, (int, float)):
        watts = power_limit_default_watts
        candidates = [r for r in candidates if r.power_limit_default_watts in (None, watts)]
        if not candidates:
            return Unknown(
                f"gpu-tui's table rates {name.strip()!r} at other default power limits; "
                f"NVML reports {watts:.0f} W"
            )
    if len(candidates) != 1:
        return Unknown(
            f"{len(candidates)} SKUs in gpu-tui's table share the name {name.strip()!r}; "
            "NVML did not report what tells them apart"
        )
    (row,) = candidates
    if row.sm_count != sm_count:
        return Unknown(
            f"NVML reports {sm_count} SMs; NVIDIA's rating for {row.sku} is for {row.sm_count}"
        )
    return row
