"""The Guide's explanations as data: key GPU metrics and "why GPUs work for AI", with sources.

Each source is a document's name and its https address, so the Guide can show both.
"""

from __future__ import annotations

from dataclasses import dataclass

_SCALING_GPUS = "How to Scale Your Model, GPUs chapter: https://jax-ml.github.io/scaling-book/gpus/"
_SCALING_ROOFLINE = (
    "How to Scale Your Model, roofline chapter: https://jax-ml.github.io/scaling-book/roofline/"
)
_GLOSSARY = "Modal GPU Glossary: https://modal.com/gpu-glossary/perf/"
_H100_DATASHEET = (
    "NVIDIA H100 datasheet (sparse figures marked *): "
    "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
)
_H100_WHITEPAPER = (
    "NVIDIA H100 whitepaper (dense and sparse peaks): "
    "https://nvdam.widen.net/s/95bdhpsgrs/nvidia_h100_tensor_core_gpu_architecture_whitepaper_v1.03"
)
_H200_PAGE = "NVIDIA H200 specifications (141 GB): https://www.nvidia.com/en-us/data-center/h200/"


@dataclass(frozen=True)
class Metric:
    """One spec-sheet number: what it is, why it matters for AI, how to read it."""

    name: str
    what: str
    why: str
    reading: str
    sources: tuple[str, ...]


@dataclass(frozen=True)
class Card:
    """One reason GPUs suit AI work, in a few short lines with real numbers."""

    title: str
    points: tuple[str, ...]
    sources: tuple[str, ...]


KEY_METRICS: tuple[Metric, ...] = (
    Metric(
        "VRAM capacity",
        "Device memory (HBM or GDDR).",
        "Weights + KV cache + activations must fit, or the model is sharded across GPUs. "
        "Weights = parameters × bytes (BF16 = 2 B): an 8B model is ~16 GB, a 70B model ~140 GB.",
        "'≥16 GB for modern LLMs' is a floor: 16 GB holds an 8B model only quantised or with a "
        "short context; 24–32 GB is comfortable. 70B in BF16 needs 2×80 GB or more: its 140 GB "
        "of weights leave a 141 GB H200 almost nothing for the KV cache, so one H200 needs 8-bit.",
        (
            "CoreWeave, selecting an instance: "
            "https://docs.coreweave.com/platform/instances/selecting-an-instance",
            "kv-cache-size README: https://docs.rs/crate/kv-cache-size/latest/source/README.md",
            _H200_PAGE,
        ),
    ),
    Metric(
        "Memory bandwidth",
        "Bytes per second from VRAM to the cores.",
        "Sets the speed of memory-bound work: element-wise ops, normalisation, LLM decode "
        "(tokens/s ≤ bandwidth ÷ weight bytes).",
        "Often the best single predictor of inference speed; divide peak FLOP/s by it to get "
        "the ridge point (H100 SXM: ~295 FLOP/B in BF16).",
        (_SCALING_ROOFLINE, _H100_WHITEPAPER, _H100_DATASHEET),
    ),
    Metric(
        "TFLOP/s per precision",
        "Peak math rate per format: FP64, FP32, TF32, BF16, FP8, FP4.",
        "Training and prefill are compute-bound, so these set their ceiling.",
        "Check dense vs 2:4-sparse (sparse doubles the marketing figure) and Tensor Core vs "
        "CUDA-core rates; each step down in precision doubles the rate.",
        (_H100_DATASHEET, _SCALING_GPUS),
    ),
    Metric(
        "Tensor Cores / matrix units",
        "Dedicated matrix-multiply-accumulate units.",
        "Deliver ~15× the CUDA cores' FLOP/s on an H100 (~990 vs ~66 TFLOP/s).",
        "Only matmul-shaped work benefits; element-wise ops stay memory-bound.",
        (
            _SCALING_GPUS,
            "Horace He, Making Deep Learning Go Brrrr: https://horace.io/brrr_intro.html",
        ),
    ),
    Metric(
        "Interconnect",
        "GPU↔GPU and host↔GPU links: NVLink/NVSwitch, PCIe, InfiniBand/Ethernet.",
        "Multi-GPU training needs all-reduce and tensor-parallel traffic; a slow link can make "
        "2 GPUs slower than 1 (the kitchen model).",
        "Each way per GPU: NVLink 3/4/5 300/450/900 GB/s; PCIe Gen5 x16 64 GB/s; "
        "IB NDR 50 GB/s; 100 GbE 12.5 GB/s.",
        (_SCALING_GPUS,),
    ),
    Metric(
        "TDP / board power",
        "Maximum sustained power.",
        "Sizes power and cooling, a large part of on-prem cost, and rack density.",
        "H100 SXM 700 W vs PCIe 350 W; B300 up to 1,400 W needs liquid cooling.",
        (
            _H100_DATASHEET,
            "Glenn K. Lockwood on B300, 1,400 W (secondary): "
            "https://glennklockwood.com/garden/processors/B300",
        ),
    ),
    Metric(
        "'GPU-Util' (nvidia-smi)",
        "Fraction of time any kernel is running.",
        "A quick liveness check, nothing more.",
        "100 % can mean one SM busy out of 132: it is not efficiency. On Hopper and newer the "
        "Monitor's CHIP row shows what the SMs and tensor cores really did beside it.",
        (f"{_GLOSSARY}streaming-multiprocessor-utilization",),
    ),
    Metric(
        "SM utilisation",
        "Fraction of time all SMs (streaming multiprocessors: the GPU's cores, 132 on an H100 "
        "SXM) are executing.",
        "Finer than GPU-Util.",
        "High SM utilisation with low pipe utilisation means busy but inefficient SMs.",
        (f"{_GLOSSARY}streaming-multiprocessor-utilization",),
    ),
    Metric(
        "Occupancy",
        "Active warps (groups of 32 threads that run in step) ÷ the most an SM can hold "
        "(theoretical vs achieved).",
        "More resident warps hide memory latency (Little's law).",
        "High occupancy does not guarantee speed; registers and shared memory limit it.",
        (f"{_GLOSSARY}occupancy",),
    ),
    Metric(
        "MFU (model FLOPs utilisation)",
        "The FLOP/s the model's own math delivers ÷ the hardware's peak FLOP/s.",
        "The true end-to-end efficiency of training.",
        "Llama 3.1 405B reported 38–43 % in BF16 on up to 16K H100s: a well-tuned large run.",
        ("The Llama 3 Herd of Models, section 3.3.2: https://arxiv.org/abs/2407.21783",),
    ),
)

WHY_GPUS: tuple[Card, ...] = (
    Card(
        "Parallel architecture",
        (
            "H100: 132 SMs × 4 sub-partitions × 32 FP32 lanes = 16,896 'CUDA cores'.",
            "B200: 148 SMs (18,944 lanes).",
            "Up to 64 warps resident per SM; switching between them hides memory latency.",
            "A CPU socket has tens of big cores built for latency: caches, branch prediction, "
            "speculation.",
        ),
        (
            _SCALING_GPUS,
            _H100_WHITEPAPER,
            "moderngpu, performance: https://moderngpu.github.io/performance.html",
        ),
    ),
    Card(
        "Memory hierarchy",
        (
            "Per H100 SM: 256 KB registers + 256 KB SMEM/L1 (~33 MB of each per chip).",
            "L2 ~50 MB at ~5.5 TB/s measured.",
            "HBM: 80 GB at 3.35 TB/s (H200 141 GB at 4.8 TB/s; B200 8 TB/s).",
            "A CPU socket's DDR5: 0.46 TB/s (12 channels × DDR5-4800 × 8 B; AMD EPYC 9654).",
        ),
        (
            _SCALING_GPUS,
            _H100_DATASHEET,
            _H200_PAGE,
            "AMD EPYC 9654 specifications (460.8 GB/s per socket): https://www.amd.com/en/products"
            "/processors/server/epyc/4th-generation-9004-and-8004-series/amd-epyc-9654.html",
        ),
    ),
    Card(
        "Specialised instructions",
        (
            "Tensor Cores: ~990 BF16 TFLOP/s on an H100 vs ~66 from CUDA cores, about 15×.",
            "Each step down in precision doubles throughput: FP8 = 2× BF16; B200 adds FP4.",
            "2:4 structured sparsity doubles the marketing figure again: compare dense to dense.",
        ),
        (_SCALING_GPUS, _H100_DATASHEET),
    ),
)
