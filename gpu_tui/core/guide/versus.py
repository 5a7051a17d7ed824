"""GPU vs TPU vs CPU side by side (one row per aspect), as data with its sources.

The CPU column's peak follows the app's own rule for CPUs (``gpu_tui.core.devices.cpu``): cores
× the maximum boost clock × FP32 FLOP per cycle, not the base clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_tui.core.kitchen.figures import EPYC_9654

# The CPU is the same AMD EPYC 9654 the Kitchen compares with (one home for its figures). Zen 4
# does 32 FP32 FLOP per cycle per core (two 256-bit FMA pipes of 8 lanes; AVX-512 runs as 2 ×
# 256), the same rate gpu_tui.core.devices.peaks uses for Zen 4.
EPYC_9654_CORES = EPYC_9654.cores
EPYC_9654_BOOST_GHZ = float(EPYC_9654.boost_hz) / 1e9
ZEN4_FP32_FLOP_PER_CYCLE = 2 * EPYC_9654.fp32_fma_lanes
EPYC_9654_BANDWIDTH_TBPS = float(EPYC_9654.dram_bytes_per_s) / 1e12
EPYC_9654_FP32_TFLOPS = EPYC_9654_CORES * EPYC_9654_BOOST_GHZ * ZEN4_FP32_FLOP_PER_CYCLE / 1000
EPYC_9654_RIDGE = EPYC_9654_FP32_TFLOPS / EPYC_9654_BANDWIDTH_TBPS
"""FLOP per byte at which a kernel stops being memory-bound: 11.37 ÷ 0.4608 ≈ 24.7."""

COLUMNS: tuple[str, str, str] = (
    "CPU (AMD EPYC 9654, 2022)",
    "GPU (NVIDIA H100 SXM, 2022)",
    "TPU (Google v5p 2023 / v6e 2024)",
)


@dataclass(frozen=True)
class Row:
    """One aspect, as (CPU, GPU, TPU); "derived" marks a figure computed, not published."""

    aspect: str
    cpu: str
    gpu: str
    tpu: str


ROWS: tuple[Row, ...] = (
    Row(
        "Design goal",
        "latency: a few big out-of-order cores, large caches, branch prediction",
        "throughput: many SIMT lanes plus Tensor Cores; latency hidden by switching warps",
        "matrix throughput: systolic MXUs (v5p: 2 TensorCores; v6e: 1 with two 256×256 MXUs)",
    ),
    Row(
        "Parallel units",
        "96 cores / 192 threads",
        "132 SMs, 528 Tensor Cores, 16,896 FP32 lanes",
        "v5p: 2 TensorCores/chip, 8 MXUs; 8,960 chips per pod",
    ),
    Row(
        "Peak dense BF16",
        f"~{EPYC_9654_FP32_TFLOPS:.1f} TFLOP/s FP32 (derived at the 3.7 GHz boost clock); "
        "BF16 rate not published",
        "989 TFLOP/s",
        "459 (v5p) / 918 (v6e) TFLOP/s",
    ),
    Row(
        "Memory / bandwidth",
        "up to 6 TB DDR5 per socket / 0.46 TB/s (460.8 GB/s)",
        "80 GB HBM3 / 3.35 TB/s",
        "95 GB / 2.77 TB/s (v5p); 32 GB / 1.64 TB/s (v6e)",
    ),
    Row(
        "Scale-up link",
        "—",
        "NVLink 4: 450 GB/s each way (8-GPU node)",
        "ICI 3D torus (v5p: 1,200 GB/s bidirectional per chip)",
    ),
    Row("Ridge point (FLOP/B)", f"~{EPYC_9654_RIDGE:.0f} (derived)", "~295", "~240 (v5e MXU)"),
    Row(
        "Software",
        "any language",
        "CUDA, PyTorch, JAX, Triton",
        "JAX / PyTorch-XLA; leans on the compiler",
    ),
    Row("Where to get it", "everywhere", "buy, or rent from every cloud", "Google Cloud only"),
    Row(
        "Best at",
        "branchy, serial, latency-critical code; orchestration; small jobs",
        "general AI training and inference; flexible kernels",
        "large dense training and serving in JAX at pod scale",
    ),
    Row(
        "List price signal (Aug 2025)",
        "—",
        "~$10/h for an H200 on Google Cloud",
        "~$4/h for a TPU v5p",
    ),
)

SOURCES: tuple[str, ...] = (
    "AMD EPYC 9654 specifications (96 cores, base 2.4 GHz, boost up to 3.7 GHz, 12 DDR5-4800 "
    "channels, 460.8 GB/s per socket, 6 TB): https://www.amd.com/en/products/processors/server/"
    "epyc/4th-generation-9004-and-8004-series/amd-epyc-9654.html",
    "derived: EPYC 9654 FP32 = 96 cores × 3.7 GHz boost × 32 FLOP/cycle (Zen 4) = 11.4 TFLOP/s; "
    "ridge = 11.4 TFLOP/s ÷ 0.4608 TB/s ≈ 25 FLOP/B",
    "NVIDIA H100 whitepaper (132 SMs, 528 Tensor Cores, 989.4 dense BF16): "
    "https://nvdam.widen.net/s/95bdhpsgrs/nvidia_h100_tensor_core_gpu_architecture_whitepaper_v1.03",
    "NVIDIA H100 datasheet (80 GB, 3.35 TB/s): "
    "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
    "How to Scale Your Model, GPUs chapter (critical intensity 295, H200 ~$10/hour vs TPU v5p "
    '$4/hour, GPUs "more modular", TPUs lean on the compiler): '
    "https://jax-ml.github.io/scaling-book/gpus/",
    "Google Cloud TPU v5p documentation (459 TFLOP/s, 95 GB, 2,765 GB/s, 8,960 chips, ICI): "
    "https://cloud.google.com/tpu/docs/v5p",
    "Google Cloud TPU v6e documentation (918 TFLOP/s, 32 GB, 1,638 GB/s): "
    "https://cloud.google.com/tpu/docs/v6e",
    "How to Scale Your Model, roofline chapter (v5e 240 FLOP/B): "
    "https://jax-ml.github.io/scaling-book/roofline/",
)
