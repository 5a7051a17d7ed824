"""Will-it-fit figures gpu-tui computes, beside the same figures worked by hand from each model's
published configuration, with the source named.

The hand arithmetic, written out in every case below:

- weights = the publisher's parameter count × bytes per parameter (all experts of an MoE);
- KV cache per sequence, GQA: 2 (K and V) × layers × KV heads × head dim × bytes × tokens
  ("KV cache size = 2 · bytes per float · H · K · L · T", https://jax-ml.github.io/scaling-book/
  inference/); a sliding-window layer caches at most its window of tokens; MLA (DeepSeek-V3)
  caches layers × (kv_lora_rank + qk_rope_head_dim) × bytes per token (``kv_cache`` and
  ``pe_cache`` in DeepSeek-V3's inference/model.py);
- decode ceiling per sequence = devices × bandwidth ÷ (weights read per step + batch × KV per
  sequence), the book's "Theoretical Min Step Time = (Batch Size × KV Cache Size + Parameter
  Size) / Total Memory Bandwidth" (https://jax-ml.github.io/scaling-book/inference/);
- an MoE step reads its active parameters plus, for a batch, at most batch × active experts per
  layer (all of them at most): active + (total − active) × (experts read − k) ÷ (E − k).

The device is NVIDIA's H100 SXM as its datasheet states it ("GPU memory 80GB", "GPU memory
bandwidth 3.35TB/s", https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet),
its "80GB" read as memory makers mean it: 80 GiB (JEDEC: "giga (G) (as a prefix to units of
semiconductor storage capacity): A multiplier equal to 1 073 741 824").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from gpu_tui.core.guide.fit import Target, fit
from gpu_tui.core.guide.shapes import parse_params

H100_BYTES = 80 * 2**30
H100_BANDWIDTH = 3.35e12
H100 = Target("NVIDIA H100 SXM (datasheet)", H100_BYTES, H100_BANDWIDTH, "datasheet")
BF16, FP8, INT4 = 2, 1, 0.5

# Where each configuration is written (the app's own model table cites the same documents).
LLAMA = (
    "meta-llama/llama-models sku_list.py (https://github.com/meta-llama/llama-models/blob/"
    "8c88b8c0d75dbd136b6895220c4f56ccbe2f2d24/models/sku_list.py); parameter counts from the "
    "meta-llama model pages on huggingface.co"
)
MIXTRAL = (
    "Mixtral of Experts, Table 1 (https://arxiv.org/abs/2401.04088); 46.7B total / 12.9B per "
    "token (https://mistral.ai/news/mixtral-of-experts/)"
)
MIXTRAL_22B = (
    "mistralai/Mixtral-8x22B-v0.1 config.json; 141B total / 39B active "
    "(https://mistral.ai/news/mixtral-8x22b/)"
)
DEEPSEEK = (
    "DeepSeek-V3 inference/configs/config_671B.json and README, 671B total / 37B activated "
    "(https://github.com/deepseek-ai/DeepSeek-V3); DeepSeek-R1 README (same architecture)"
)
QWEN3 = (
    "Qwen3 Technical Report, Tables 1-2 (https://github.com/QwenLM/Qwen3); Qwen/<model> "
    "config.json (head_dim 128) and model cards on huggingface.co"
)
GPT_OSS = (
    "openai/gpt-oss README (117B / 5.1B; 21B / 3.6B) and gpt_oss/torch/model.py "
    "(https://github.com/openai/gpt-oss); openai/gpt-oss-20b config.json"
)


@dataclass(frozen=True)
class Case:
    """One model at one precision, context and batch, with the figures worked by hand."""

    model: str
    dtype: str
    context: int
    batch: int
    weights: float
    """Bytes of all parameters."""
    kv: float
    """Bytes of every sequence's KV cache at the full context."""
    read: float
    """Bytes one decode step reads: the weights it touches plus ``kv``."""
    devices: int
    """H100s whose memory holds weights + KV: ceil((weights + kv) / 80 GiB)."""
    source: str

    @property
    def id(self) -> str:
        return f"{self.model}-{self.dtype}-{self.context}x{self.batch}"

    @property
    def decode(self) -> float:
        """devices × bandwidth ÷ bytes read per step: tokens/s per sequence, a ceiling."""
        return self.devices * H100_BANDWIDTH / self.read


def kv_gqa(layers: int, kv_heads: int, head_dim: int, width: float, tokens: int) -> float:
    return 2 * layers * kv_heads * head_dim * width * tokens


CASES = [
    # Llama 3.1 8B: 32 layers, 8 KV heads × 128; 8.03B parameters.
    Case(
        "llama-3.1-8b", "bf16", 8192, 1,
        weights=8.03e9 * BF16,
        kv=kv_gqa(32, 8, 128, BF16, 8192) * 1,  # 1 GiB
        read=8.03e9 * BF16 + kv_gqa(32, 8, 128, BF16, 8192) * 1,
        devices=1,
        source=LLAMA,
    ),
    # int4 weights keep a bf16 cache; 128k tokens × 8 sequences dwarf 4 GB of weights.
    Case(
        "llama-3.1-8b", "int4", 128_000, 8,
        weights=8.03e9 * INT4,
        kv=kv_gqa(32, 8, 128, BF16, 128_000) * 8,
        read=8.03e9 * INT4 + kv_gqa(32, 8, 128, BF16, 128_000) * 8,
        devices=math.ceil((8.03e9 * INT4 + kv_gqa(32, 8, 128, BF16, 128_000) * 8) / H100_BYTES),
        source=LLAMA,
    ),
    Case(
        "llama-3.1-8b", "fp8", 32768, 4,
        weights=8.03e9 * FP8,
        kv=kv_gqa(32, 8, 128, FP8, 32768) * 4,
        read=8.03e9 * FP8 + kv_gqa(32, 8, 128, FP8, 32768) * 4,
        devices=1,
        source=LLAMA,
    ),
    # Llama 3.1 70B: 80 layers, 8 KV heads × 128; 70.6B parameters.
    Case(
        "llama-3.1-70b", "bf16", 128_000, 8,
        weights=70.6e9 * BF16,
        kv=kv_gqa(80, 8, 128, BF16, 128_000) * 8,
        read=70.6e9 * BF16 + kv_gqa(80, 8, 128, BF16, 128_000) * 8,
        devices=math.ceil((70.6e9 * BF16 + kv_gqa(80, 8, 128, BF16, 128_000) * 8) / H100_BYTES),
        source=LLAMA,
    ),
    Case(
        "llama-3.1-70b", "fp8", 4096, 1,
        weights=70.6e9 * FP8,
        kv=kv_gqa(80, 8, 128, FP8, 4096),
        read=70.6e9 * FP8 + kv_gqa(80, 8, 128, FP8, 4096),
        devices=1,
        source=LLAMA,
    ),
    # Llama 3.1 405B: 126 layers, 8 KV heads × 128; Meta states 405B parameters.
    Case(
        "llama-3.1-405b", "fp8", 131_072, 1,
        weights=405e9 * FP8,
        kv=kv_gqa(126, 8, 128, FP8, 131_072),
        read=405e9 * FP8 + kv_gqa(126, 8, 128, FP8, 131_072),
        devices=math.ceil((405e9 * FP8 + kv_gqa(126, 8, 128, FP8, 131_072)) / H100_BYTES),
        source=LLAMA,
    ),
    # Mixtral 8x7B: 32 layers, 8 KV heads × 128, 8 experts, 2 per token; 46.7B / 12.9B.
    Case(
        "mixtral-8x7b", "bf16", 32768, 1,
        weights=46.7e9 * BF16,
        kv=kv_gqa(32, 8, 128, BF16, 32768),
        read=12.9e9 * BF16 + kv_gqa(32, 8, 128, BF16, 32768),  # 2 of 8 experts
        devices=math.ceil((46.7e9 * BF16 + kv_gqa(32, 8, 128, BF16, 32768)) / H100_BYTES),
        source=MIXTRAL,
    ),
    Case(
        "mixtral-8x7b", "int4", 4096, 2,
        weights=46.7e9 * INT4,
        kv=kv_gqa(32, 8, 128, BF16, 4096) * 2,
        # 2 sequences × 2 experts: 4 of 8 read, 2 more than one token's.
        read=(12.9e9 + (46.7e9 - 12.9e9) * (4 - 2) / (8 - 2)) * INT4
        + kv_gqa(32, 8, 128, BF16, 4096) * 2,
        devices=1,
        source=MIXTRAL,
    ),
    Case(
        "mixtral-8x7b", "fp8", 4096, 16,
        weights=46.7e9 * FP8,
        kv=kv_gqa(32, 8, 128, FP8, 4096) * 16,
        read=46.7e9 * FP8 + kv_gqa(32, 8, 128, FP8, 4096) * 16,  # 16 × 2 ≥ 8: every expert
        devices=1,
        source=MIXTRAL,
    ),
    # Mixtral 8x22B: 56 layers, 8 KV heads × 128, 8 experts, 2 per token; 141B / 39B.
    Case(
        "mixtral-8x22b", "bf16", 65536, 1,
        weights=141e9 * BF16,
        kv=kv_gqa(56, 8, 128, BF16, 65536),
        read=39e9 * BF16 + kv_gqa(56, 8, 128, BF16, 65536),
        devices=math.ceil((141e9 * BF16 + kv_gqa(56, 8, 128, BF16, 65536)) / H100_BYTES),
        source=MIXTRAL_22B,
    ),
    # DeepSeek-V3: 61 layers of MLA (latent 512 + RoPE key 64), 256 routed experts, 8 per
    # token; 671B / 37B.
    Case(
        "deepseek-v3", "fp8", 131_072, 1,
        weights=671e9 * FP8,
        kv=61 * (512 + 64) * FP8 * 131_072,
        read=37e9 * FP8 + 61 * (512 + 64) * FP8 * 131_072,
        devices=math.ceil((671e9 * FP8 + 61 * (512 + 64) * FP8 * 131_072) / H100_BYTES),
        source=DEEPSEEK,
    ),
    Case(
        "deepseek-v3", "bf16", 32768, 8,
        weights=671e9 * BF16,
        kv=61 * (512 + 64) * BF16 * 32768 * 8,
        # 8 sequences × 8 experts: 64 of 256 read per layer.
        read=(37e9 + (671e9 - 37e9) * (64 - 8) / (256 - 8)) * BF16
        + 61 * (512 + 64) * BF16 * 32768 * 8,
        devices=math.ceil((671e9 * BF16 + 61 * (512 + 64) * BF16 * 32768 * 8) / H100_BYTES),
        source=DEEPSEEK,
    ),
    Case(
        "deepseek-r1", "fp8", 65536, 64,
        weights=671e9 * FP8,
        kv=61 * (512 + 64) * FP8 * 65536 * 64,
        read=671e9 * FP8 + 61 * (512 + 64) * FP8 * 65536 * 64,  # 64 × 8 ≥ 256: all
        devices=math.ceil((671e9 * FP8 + 61 * (512 + 64) * FP8 * 65536 * 64) / H100_BYTES),
        source=DEEPSEEK,
    ),
    # Qwen3-32B: 64 layers, 8 KV heads × 128; 32.8B.
    Case(
        "qwen3-32b", "bf16", 32768, 4,
        weights=32.8e9 * BF16,
        kv=kv_gqa(64, 8, 128, BF16, 32768) * 4,
        read=32.8e9 * BF16 + kv_gqa(64, 8, 128, BF16, 32768) * 4,
        devices=math.ceil((32.8e9 * BF16 + kv_gqa(64, 8, 128, BF16, 32768) * 4) / H100_BYTES),
        source=QWEN3,
    ),
    # Qwen3-235B-A22B: 94 layers, 4 KV heads × 128, 128 experts, 8 per token; 235B / 22B.
    Case(
        "qwen3-235b-a22b", "fp8", 32768, 8,
        weights=235e9 * FP8,
        kv=kv_gqa(94, 4, 128, FP8, 32768) * 8,
        read=(22e9 + (235e9 - 22e9) * (64 - 8) / (128 - 8)) * FP8
        + kv_gqa(94, 4, 128, FP8, 32768) * 8,
        devices=math.ceil((235e9 * FP8 + kv_gqa(94, 4, 128, FP8, 32768) * 8) / H100_BYTES),
        source=QWEN3,
    ),
    # Qwen3-30B-A3B: 48 layers, 4 KV heads × 128, 128 experts, 8 per token; 30.5B / 3.3B.
    Case(
        "qwen3-30b-a3b", "bf16", 131_072, 1,
        weights=30.5e9 * BF16,
        kv=kv_gqa(48, 4, 128, BF16, 131_072),
        read=3.3e9 * BF16 + kv_gqa(48, 4, 128, BF16, 131_072),
        devices=1,
        source=QWEN3,
    ),
    # gpt-oss-120b: 36 layers, half of them banded to 128 tokens; 8 KV heads × 64; 128
    # experts, 4 per token; 117B / 5.1B.
    Case(
        "gpt-oss-120b", "int4", 131_072, 1,
        weights=117e9 * INT4,
        kv=2 * 8 * 64 * BF16 * (18 * 131_072 + 18 * 128),
        read=5.1e9 * INT4 + 2 * 8 * 64 * BF16 * (18 * 131_072 + 18 * 128),
        devices=1,
        source=GPT_OSS,
    ),
    Case(
        "gpt-oss-120b", "bf16", 4096, 8,
        weights=117e9 * BF16,
        kv=2 * 8 * 64 * BF16 * (18 * 4096 + 18 * 128) * 8,
        read=(5.1e9 + (117e9 - 5.1e9) * (32 - 4) / (128 - 4)) * BF16
        + 2 * 8 * 64 * BF16 * (18 * 4096 + 18 * 128) * 8,
        devices=math.ceil(
            (117e9 * BF16 + 2 * 8 * 64 * BF16 * (18 * 4096 + 18 * 128) * 8) / H100_BYTES
        ),
        source=GPT_OSS,
    ),
    # gpt-oss-20b: 24 layers, 12 banded; 32 experts, 4 per token; 21B / 3.6B. A context
    # shorter than the window is cached whole in every layer.
    Case(
        "gpt-oss-20b", "fp8", 100, 2,
        weights=21e9 * FP8,
        kv=2 * 8 * 64 * FP8 * (12 * 100 + 12 * 100) * 2,
        read=(3.6e9 + (21e9 - 3.6e9) * (8 - 4) / (32 - 4)) * FP8
        + 2 * 8 * 64 * FP8 * (12 * 100 + 12 * 100) * 2,
        devices=1,
        source=GPT_OSS,
    ),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_fit_and_decode_match_the_published_configuration(case: Case) -> None:
    params, shape = parse_params(case.model)
    result = fit(
        params, case.dtype, context=case.context, batch=case.batch, shape=shape, targets=[H100]
    )
    (h100,) = result.placements
    assert result.weight_bytes == pytest.approx(case.weights, rel=1e-12), case.source
    assert result.kv_cache_bytes == pytest.approx(case.kv, rel=1e-12), case.source
    assert result.bytes_read_per_step == pytest.approx(case.read, rel=1e-12), case.source
    assert h100.devices_needed == case.devices
    assert h100.decode_tokens_per_second_max == pytest.approx(case.decode, rel=1e-12)


def test_the_cases_cover_six_models_three_precisions_and_long_contexts() -> None:
    assert len({case.model for case in CASES}) >= 6
    assert {case.dtype for case in CASES} >= {"bf16", "fp8", "int4"}
    assert max(case.context for case in CASES) >= 128_000
    assert max(case.batch for case in CASES) >= 8


def test_regression_70b_bf16_at_128k_and_batch_8_reads_its_kv_cache_each_step() -> None:
    """A bare "70B" in BF16, 128,000 tokens × 8 sequences, on H100s.

    Weights 70e9 × 2 = 140 GB; KV 2 × 80 layers × 8 KV heads × 128 × 2 B × 128,000 × 8 =
    335.5 GB (the assumed shape is Llama 3.1 70B's). 475.5 GB needs ceil(475.5 / 85.9) = 6
    H100s, and each step reads all 475.5 GB: 6 × 3.35 TB/s ÷ 475.5 GB = 42.3 tok/s per
    sequence. Counting the weights alone gave 6 × 3.35 TB/s ÷ 140 GB = 143.6, 3.4× too high.
    """
    result = fit(70e9, "bf16", context=128_000, batch=8, targets=[H100])
    (h100,) = result.placements
    weights = 70e9 * BF16
    kv = kv_gqa(80, 8, 128, BF16, 128_000) * 8
    assert (result.weight_bytes, result.kv_cache_bytes) == (weights, kv)
    assert h100.devices_needed == math.ceil((weights + kv) / H100_BYTES) == 6
    assert h100.decode_tokens_per_second_max == pytest.approx(6 * H100_BANDWIDTH / (weights + kv))
    assert h100.decode_tokens_per_second_max == pytest.approx(42.27, abs=0.01)
    assert not result.shape.exact  # a bare size: its shape is assumed, and says so


def test_regression_8b_int4_at_128k_and_batch_8_counts_the_kv_cache_it_reports() -> None:
    """A bare "8B" in int4 (bf16 cache), 128,000 tokens × 8 sequences.

    Weights 8e9 × 0.5 = 4 GB; KV 2 × 32 × 8 × 128 × 2 B × 128,000 × 8 = 134.2 GB. Two H100s
    hold 138.2 GB and read it all each step: 2 × 3.35 TB/s ÷ 138.2 GB = 48.5 tok/s per
    sequence, not the 1,675 that the 4 GB of weights alone would allow.
    """
    result = fit(8e9, "int4", context=128_000, batch=8, targets=[H100])
    (h100,) = result.placements
    weights = 8e9 * INT4
    kv = kv_gqa(32, 8, 128, BF16, 128_000) * 8
    assert (result.weight_bytes, result.kv_cache_bytes) == (weights, kv)
    assert h100.devices_needed == 2
    assert h100.decode_tokens_per_second_max == pytest.approx(2 * H100_BANDWIDTH / (weights + kv))
    assert h100.decode_tokens_per_second_max == pytest.approx(48.48, abs=0.01)
    assert result.bytes_read_per_step == weights + kv


# ---- Published parameter counts against the configurations they come with ------------------
# Each count is worked from the configuration and rounded to the digits the publisher gives;
# the app's figure must be the publisher's.


def llama_params(dim: int, layers: int, heads: int, kv_heads: int, mult: float, of: int) -> int:
    """Meta's Llama 3 model.py: FFN = multiple_of-rounded int(mult × int(2 × 4 × dim / 3))."""
    head_dim = dim // heads
    ffn = int(mult * int(2 * 4 * dim / 3))
    ffn = of * ((ffn + of - 1) // of)
    attention = 2 * dim * heads * head_dim + 2 * dim * kv_heads * head_dim
    per_layer = attention + 3 * dim * ffn + 2 * dim  # two RMSNorms
    return layers * per_layer + 2 * 128_256 * dim + dim  # embeddings, output, final norm


def mixtral_params(active: bool) -> int:
    """Mixtral 8x7B, Table 1: dim 4096, 32 layers, 32 heads / 8 KV × 128, FFN 14336, vocab 32000."""
    dim, experts = 4096, 2 if active else 8
    attention = 2 * dim * dim + 2 * dim * 8 * 128
    per_layer = attention + dim * 8 + experts * 3 * dim * 14336 + 2 * dim
    return 32 * per_layer + 2 * 32_000 * dim + dim


def deepseek_v3_params(active: bool) -> int:
    """config_671B.json; the active count leaves out the input embedding (a row lookup)."""
    dim, heads = 7168, 128
    attention = (
        dim * 1536
        + 1536  # q_lora down-projection and its norm
        + 1536 * heads * (128 + 64)  # q up-projection: nope + rope dims
        + dim * (512 + 64)
        + 512  # kv latent and rope key, and the latent's norm
        + 512 * heads * (128 + 128)  # k_nope and v up-projection
        + heads * 128 * dim  # output
    )
    expert = 3 * dim * 2048
    routed = 8 if active else 256
    dense_layer = attention + 3 * dim * 18432 + 2 * dim
    moe_layer = attention + 256 * dim + 256 + (routed + 1) * expert + 2 * dim  # + 1 shared
    embeddings = (1 if active else 2) * 129_280 * dim
    return 3 * dense_layer + 58 * moe_layer + embeddings + dim


def gpt_oss_120b_params(active: bool) -> int:
    """gpt_oss/torch/model.py's ModelConfig (biases and sinks included); the active count
    leaves out the input embedding, as OpenAI's model card does."""
    dim, q, kv = 2880, 64 * 64, 8 * 64
    attention = dim * q + q + 2 * (dim * kv + kv) + q * dim + dim + 64  # + 64 sinks
    expert = dim * 2 * 2880 + 2 * 2880 + 2880 * dim + dim  # gate/up and down, with biases
    experts = 4 if active else 128
    per_layer = attention + dim * 128 + 128 + experts * expert + 2 * dim
    return 36 * per_layer + (1 if active else 2) * 201_088 * dim + dim


@pytest.mark.parametrize(
    ("model", "count", "digits", "active_count", "active_digits"),
    [
        # Llama 3.1 8B: dim 4096, 32 layers, 32 heads, 8 KV, ffn_dim_multiplier 1.3, of 1024.
        ("llama-3.1-8b", llama_params(4096, 32, 32, 8, 1.3, 1024), 7, None, 0),
        # Llama 3.1 70B: dim 8192, 80 layers, 64 heads, 8 KV, 1.3, multiple_of 4096.
        ("llama-3.1-70b", llama_params(8192, 80, 64, 8, 1.3, 4096), 8, None, 0),
        ("mixtral-8x7b", mixtral_params(False), 8, mixtral_params(True), 8),
        ("deepseek-v3", deepseek_v3_params(False), 9, deepseek_v3_params(True), 9),
        ("gpt-oss-120b", gpt_oss_120b_params(False), 9, gpt_oss_120b_params(True), 8),
    ],
)
def test_published_parameter_counts_agree_with_the_configuration(
    model: str, count: int, digits: int, active_count: int | None, active_digits: int
) -> None:
    params, shape = parse_params(model)
    assert shape is not None
    assert params == round(count, -digits)
    if active_count is not None:
        assert shape.active == round(active_count, -active_digits)
