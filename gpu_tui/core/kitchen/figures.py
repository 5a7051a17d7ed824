"""Real hardware behind the kitchen: sourced figures for one GPU, one server CPU and their links.

Every number the Kitchen states about real hardware comes from here, exactly (``Fraction``), with
the document that states it. The teaching values of the scenarios (a chef's 2 s per onion, a
5 s briefing) are not here: they are chosen to tell a story, and the "in real life" lines put
these figures beside them.

Where only a secondary page (a reseller's table, a benchmark blog) states a figure, its
``Source`` says so (``primary=False``) rather than pretending a vendor said it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from gpu_tui.core.devices.catalog import H100_DATASHEET, HOPPER_WHITEPAPER
from gpu_tui.core.devices.sources import Source

GIGA = 10**9
TERA = 10**12
MIB = 1 << 20

# The H100 SXM's figures come from NVIDIA's own documents, as the catalog cites them.
H100_SPECS = H100_DATASHEET
"""FP32 67 teraFLOPS and 3.35 TB/s (with 80 GB), NVIDIA's H100 datasheet."""
H100_TABLE = Source(
    url=HOPPER_WHITEPAPER.url,
    says="H100 SXM5: SMs 132; FP32 Cores / SM 128; FP32 Cores / GPU 16896; Memory Bandwidth "
    "3352 GB/sec",
    title=HOPPER_WHITEPAPER.title,
)
H100_LINKS = Source(
    url="https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
    says="Interconnect | H100 SXM: NVIDIA NVLink: 900GB/s, PCIe Gen5: 128GB/s",
    title="NVIDIA H100 Tensor Core GPU datasheet (interconnect)",
)
EPYC_TABLE = Source(
    url=(
        "https://www.amd.com/en/products/processors/server/epyc/4th-generation-9004-and-8004-"
        "series/amd-epyc-9654.html"
    ),
    says=(
        "# of CPU Cores 96; # of Threads 192; Max. Boost Clock Up to 3.7GHz; Base Clock 2.4GHz; "
        "L3 Cache 384MB; Memory Channels 12; Max Memory Speed DDR5 4800 MT/s; Per Socket Mem "
        "BW 460.8 GB/s"
    ),
    title="AMD EPYC 9654, specifications",
)
GENOA_L2 = Source(
    url="https://www.xda-developers.com/amd-128-core-bergame-genoa-epyc-cpu/",
    says="Genoa Bergamo Cores/Threads 96/192 128/256 L2 Cache 96MB 128MB L3 Cache 384MB 256MB",
    title="XDA Developers, AMD's 128-core Bergamo and Genoa-X launch",
    primary=False,
)
ZEN_FMA_PIPES = Source(
    url="https://wlog.flatlib.jp/2024/01/13/ryzen-zen3-vfpbench/",
    says=(
        "実行ユニットは Zen2 同様 256bit の乗算(積和) x2 + 加算 x2 の構成です ... Zen4 の場合は"
        "これに加えてさらに AVX512 にも対応します。fma だけ見ると違いがないように見えるかも"
        "しれませんが"
    ),
    title="flatlib, vfpbench on Zen 3: two 256-bit FMA pipes per core, the same FMA rate on "
    "Zen 4 with AVX-512",
    primary=False,
)
ZEN_CACHE_RATES = Source(
    url="https://news.mynavi.jp/article/20170302-ryzen/29",
    says=(
        "まずRead(グラフ157)では、L1で32Bytes/cycle、L2で24Bytes/cycle、L3で20Bytes/cycleという"
        "高い性能を出しており"
    ),
    title="Mynavi, RYZEN analysis: read bandwidth per core per cycle, measured on the first Zen",
    primary=False,
)
NULL_KERNEL_LAUNCH = Source(
    url="https://forums.developer.nvidia.com/t/too-much-time-for-kernel-launch-latency/233645/3",
    says=(
        "the launch overhead of null kernels (kernels that don't do anything) appears to have "
        "been reduced to about 3 microseconds with recent hardware and software"
    ),
    title="NVIDIA Developer Forums, Too much time for kernel launch latency",
    primary=False,
)
CUDA_GRAPHS = Source(
    url="https://docs.nvidia.com/cuda/cuda-programming-guide/04-special-topics/cuda-graphs.html",
    says=(
        "These operations, necessary for setting up and launching the kernel, are an overhead "
        "cost which must be paid for each kernel that is issued. ... these overhead costs can be "
        "paid once for the entire graph during instantiation, and the graph itself can then be "
        "launched repeatedly with very little overhead."
    ),
    title="NVIDIA CUDA Programming Guide, 4.2 CUDA Graphs",
)
FRAMEWORK_LAUNCH = Source(
    url="https://developer.nvidia.com/blog/understanding-the-visualization-of-overhead-and-latency-in-nsight-systems/",
    says=(
        "There are about 20 µs of launch latency in Figure 1 between the beginning of the launch "
        "call (in the CUDA API row) and the beginning of the kernel execution (in the CUDA Tesla "
        "V100-SXM row)."
    ),
    title="NVIDIA Technical Blog, Understanding the Visualization of Overhead and Latency in "
    "NVIDIA Nsight Systems (one PyTorch element-wise op)",
)
NCCL_BUS_BANDWIDTH = Source(
    url="https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md",
    says="t = (S/B) * (2*(n-1)/n) ... AllReduce : 2*(n-1)/n",
    title="NCCL tests, Performance reported by NCCL tests (AllReduce bus bandwidth)",
)
AMP_KEEPS_FP32_WEIGHTS = Source(
    url="https://docs.pytorch.org/docs/stable/amp.html",
    says=(
        "You should not call ``half()`` or ``bfloat16()`` on your model(s) or inputs when using "
        "autocasting. ... # Creates model and optimizer in default precision"
    ),
    title="PyTorch, Automatic Mixed Precision package - torch.amp (torch.autocast)",
)
DDP_REDUCES_GRADIENT_DTYPE = Source(
    url="https://github.com/pytorch/pytorch/blob/00aef22ae9f4c535402c4317c1c14e41afc22efb/torch/distributed/algorithms/ddp_comm_hooks/default_hooks.py",
    says=(
        "This DDP communication hook implements a simple gradient compression approach that "
        "converts ``GradBucket`` tensors whose type is assumed to be ``torch.float32`` to "
        "half-precision floating point format (``torch.float16``)."
    ),
    title="PyTorch, DDP communication hooks (fp16_compress_hook): DDP's gradients are fp32 "
    "unless a hook compresses them",
)
FSDP_REDUCE_DTYPE = Source(
    url="https://docs.pytorch.org/docs/stable/distributed.fsdp.fully_shard.html",
    says=(
        "reduce_dtype (Optional[torch.dtype]): This specifies the dtype for gradient reduction "
        "(i.e. reduce-scatter or all-reduce)."
    ),
    title="PyTorch, torch.distributed.fsdp.fully_shard (MixedPrecisionPolicy)",
)


@dataclass(frozen=True)
class Gpu:
    """One GPU: its FP32 lanes and clock, its memory and its two links (per direction)."""

    name: str
    fp32_lanes: int
    clock_hz: Fraction
    memory_bytes_per_s: Fraction
    host_link_bytes_per_s: Fraction  # PCIe, one direction
    peer_link_bytes_per_s: Fraction  # NVLink, one direction


@dataclass(frozen=True)
class Cache:
    """A level of the CPU's cache: the bytes it holds (whole chip) and what each core reads."""

    name: str
    capacity_bytes: int
    bytes_per_core_cycle: int


@dataclass(frozen=True)
class Cpu:
    """One server CPU socket: cores, FP32 lanes per core per cycle, clocks, caches, DRAM."""

    name: str
    cores: int
    fp32_fma_lanes: int  # FMAs a core starts per cycle, counted in FP32 lanes
    base_hz: Fraction
    boost_hz: Fraction
    caches: tuple[Cache, ...]  # smallest first: a working set streams from the first that holds it
    dram_bytes_per_s: Fraction


H100_SXM = Gpu(
    name="H100 SXM",
    fp32_lanes=16_896,
    clock_hz=Fraction(198, 100) * GIGA,
    memory_bytes_per_s=Fraction(335, 100) * TERA,
    host_link_bytes_per_s=Fraction(128, 2) * GIGA,  # 128 GB/s PCIe Gen5 is both directions
    peer_link_bytes_per_s=Fraction(900, 2) * GIGA,  # 900 GB/s NVLink is both directions
)
H100_SOURCES = (H100_SPECS, H100_TABLE, H100_LINKS)

# Zen 4 runs AVX-512 on two 256-bit FMA pipes: 2 × 8 FP32 lanes a cycle, like AVX2.
# The per-core cache read rates were measured on the first Zen core. They stand in for Zen 4's
# on the assumption that later cores did not narrow these paths, and they are taken at the
# 2.4 GHz base clock: both choices make the CPU's caches slower here, not faster. Only whether
# a cache outruns the GPU's memory matters for the crossover, and even at these rates each does.
EPYC_9654 = Cpu(
    name="EPYC 9654",
    cores=96,
    fp32_fma_lanes=2 * 8,
    base_hz=Fraction(24, 10) * GIGA,
    boost_hz=Fraction(37, 10) * GIGA,
    caches=(
        Cache("L2", 96 * MIB, 24),
        Cache("L3", 384 * MIB, 20),
    ),
    dram_bytes_per_s=Fraction(12 * 4800 * 10**6 * 8),  # 12 channels × DDR5-4800 × 8 B
)
EPYC_SOURCES = (EPYC_TABLE, GENOA_L2, ZEN_FMA_PIPES, ZEN_CACHE_RATES)

NULL_KERNEL_LAUNCH_SECONDS = Fraction(3, 10**6)
"""A bare CUDA kernel launch today: about 3 µs for an empty kernel. Frameworks add their own
dispatch on top (about 20 µs through PyTorch on a V100); a CUDA graph pays it once for many."""
LAUNCH_SOURCES = (NULL_KERNEL_LAUNCH, FRAMEWORK_LAUNCH, CUDA_GRAPHS)

ETHERNET_100G_BYTES_PER_S = Fraction(100 * GIGA, 8)
"""100 GbE: 100 Gb/s is 12.5 GB/s in each direction."""

DDP_AMP_GRADIENT_BYTES = 4
"""PyTorch DDP under autocast: the weights stay fp32, so each gradient all-reduced is 4 bytes."""
BF16_REDUCE_GRADIENT_BYTES = 2
"""FSDP (or ZeRO) with a bf16 ``reduce_dtype``: 2 bytes per gradient."""
GRADIENT_SOURCES = (
    AMP_KEEPS_FP32_WEIGHTS,
    DDP_REDUCES_GRADIENT_DTYPE,
    FSDP_REDUCE_DTYPE,
    NCCL_BUS_BANDWIDTH,
)
