"""GPU vs TPU vs CPU side by side (one row per aspect), as data with its sources."""

from __future__ import annotations

from dataclasses import dataclass

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
        "~7.4 TFLOPS FP32 (derived); BF16 rate not published",
        "989 TFLOPS",
        "459 (v5p) / 918 (v6e) TFLOPS",
    ),
    Row(
        "Memory / bandwidth",
        "up to 6 TB DDR5 per socket / ≈0.46 TB/s (derived)",
        "80 GB HBM3 / 3.35 TB/s",
        "95 GB / 2.77 TB/s (v5p); 32 GB / 1.64 TB/s (v6e)",
    ),
    Row(
        "Scale-up link",
        "—",
        "NVLink 4: 450 GB/s each way (8-GPU node)",
        "ICI 3D torus (v5p: 1,200 GB/s bidirectional per chip)",
    ),
    Row("Ridge point (FLOP/B)", "~16 (derived)", "~295", "~240 (v5e MXU)"),
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
    "hpctech.co.jp/product/amd-epyc-9004-series/ (cores, DDR5 channels, 6 TB)",
    "jax-ml/scaling-book: gpus.md (SM counts, critical intensity 295, H200 ~$10/h vs "
    "TPU v5p $4/h, GPUs 'more modular', TPUs 'lean on the compiler')",
    "docs.cloud.google.com/tpu/docs/v5p-training (v5p specs, 1,200 GBps ICI)",
    "docs.cloud.google.com/tpu/docs/v6e.md.txt",
    "jax-ml/scaling-book: roofline.md (v5e 240 FLOP/B)",
    "derived: EPYC 9654 bandwidth = 12 channels × DDR5-4800 × 8 B; FP32 = cores × clock × "
    "FLOP/cycle",
)
