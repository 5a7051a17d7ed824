"""Named models' published configurations (layers, heads, experts, parameters), with sources."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_tui.core.devices.sources import Source


@dataclass(frozen=True)
class ModelShape:
    """A decoder-only transformer as far as memory and decode need it, and where that is written.

    Grouped-query attention (GQA) caches a key and a value of ``head_dim`` for each of
    ``kv_heads`` heads, per layer and token. Multi-head latent attention (MLA, DeepSeek-V2/V3)
    caches one compressed latent of ``kv_lora_rank`` plus a RoPE key of ``rope_head_dim`` instead.
    Sliding-window layers cache only the last ``window`` tokens. A mixture-of-experts (MoE)
    model keeps all ``params`` in memory but sends each token through ``active_params``.
    """

    key: str
    """What a user types to pick it, e.g. ``llama-3.1-70b``."""
    name: str
    params: float
    """Total parameters, as the publisher states them: all of them are held in memory."""
    layers: int
    hidden: int
    heads: int
    """Query (attention) heads."""
    kv_heads: int
    """Key/value heads of GQA; for MLA the attention heads, whose keys and values are not
    cached (the latent is)."""
    head_dim: int
    sources: tuple[Source, ...]
    active_params: float | None = None
    """Parameters each token passes through, as published (MoE); ``None``: all (dense)."""
    experts: int = 0
    """Routed experts per MoE layer; 0 for a dense model."""
    active_experts: int = 0
    """Routed experts each token is sent to."""
    kv_lora_rank: int = 0
    """MLA: width of the key/value latent cached per token and layer; 0 without MLA."""
    rope_head_dim: int = 0
    """MLA: width of the decoupled RoPE key cached beside the latent."""
    window_layers: int = 0
    """Layers with sliding-window attention."""
    window: int = 0
    """Tokens a sliding-window layer attends to (and caches)."""

    @property
    def mla(self) -> bool:
        """True for multi-head latent attention."""
        return self.kv_lora_rank > 0

    @property
    def moe(self) -> bool:
        """True for a mixture-of-experts model."""
        return self.experts > 0

    @property
    def active(self) -> float:
        """Parameters one token passes through (all of them for a dense model)."""
        return self.params if self.active_params is None else self.active_params


# The files read are pinned to the commit they were read at, so the address keeps saying it.
_LLAMA_SKUS = (
    "https://github.com/meta-llama/llama-models/blob/"
    "8c88b8c0d75dbd136b6895220c4f56ccbe2f2d24/models/sku_list.py"
)
_LLAMA_CARDS = "https://github.com/meta-llama/llama-models/blob/main/models"


def _llama(version: str, size: str, says: str, params: Source) -> tuple[Source, ...]:
    config = Source(
        _LLAMA_SKUS,
        says,
        f"meta-llama/llama-models sku_list.py, Llama {version} {size} arch_args",
    )
    return config, params


def _hf_size(repo: str, says: str) -> Source:
    """The publisher's own model page, where the checkpoint's parameter count is shown."""
    return Source(f"https://huggingface.co/{repo}", says, f"{repo} model page")


_LLAMA3_8B = (
    '"dim": 4096, "n_layers": 32, "n_heads": 32, "n_kv_heads": 8 (head dim = 4096 / 32 = 128)'
)
_LLAMA3_70B = (
    '"dim": 8192, "n_layers": 80, "n_heads": 64, "n_kv_heads": 8 (head dim = 8192 / 64 = 128)'
)
_LLAMA3_405B = (
    '"dim": 16384, "n_layers": 126, "n_heads": 128, "n_kv_heads": 8 (head dim = 16384 / 128 = 128)'
)
_LLAMA2_CARD = Source(
    f"{_LLAMA_CARDS}/llama2/MODEL_CARD.md",
    "Params 7B, 13B: GQA ✗ (not used); 70B: GQA ✔",
    "Llama 2 model card (Meta)",
)
_LLAMA31_CARD = Source(
    f"{_LLAMA_CARDS}/llama3_1/MODEL_CARD.md",
    "Llama 3.1 ... in 8B, 70B and 405B sizes ... All model versions use Grouped-Query Attention",
    "Llama 3.1 model card (Meta)",
)

_MIXTRAL_PAPER = Source(
    "https://arxiv.org/abs/2401.04088",
    "Table 1: dim 4096, n_layers 32, head_dim 128, hidden_dim 14336, n_heads 32, n_kv_heads 8, "
    "context_len 32768, vocab_size 32000, num_experts 8, top_k_experts 2",
    "Mixtral of Experts (Jiang et al., Mistral AI, 2024)",
)

_DEEPSEEK_V3 = (
    "https://github.com/deepseek-ai/DeepSeek-V3/blob/9b4e9788e4a3a731f7567338ed15d3ec549ce03b"
)
_DEEPSEEK_CONFIG = Source(
    f"{_DEEPSEEK_V3}/inference/configs/config_671B.json",
    '"dim": 7168, "n_layers": 61, "n_dense_layers": 3, "n_heads": 128, '
    '"n_routed_experts": 256, "n_shared_experts": 1, "n_activated_experts": 8, '
    '"kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128',
    "DeepSeek-V3 inference/configs/config_671B.json",
)
SOURCE_MLA_CACHE = Source(
    f"{_DEEPSEEK_V3}/inference/model.py",
    'register_buffer("kv_cache", torch.zeros(max_batch_size, max_seq_len, kv_lora_rank)); '
    'register_buffer("pe_cache", torch.zeros(max_batch_size, max_seq_len, qk_rope_head_dim))',
    "DeepSeek-V3 inference/model.py, MLA's cache (absorbed attention)",
)

_QWEN3_REPORT = Source(
    "https://github.com/QwenLM/Qwen3/blob/7a2f61ffc7a20d47efcd2bf97f6f2bf52729042e/"
    "Qwen3_Technical_Report.pdf",
    "Table 1 (dense): Qwen3-8B 36 layers, Heads (Q / KV) 32 / 8; Qwen3-14B 40, 40 / 8; "
    "Qwen3-32B 64, 64 / 8. Table 2 (MoE): Qwen3-30B-A3B 48 layers, 32 / 4, experts "
    "128 / 8; Qwen3-235B-A22B 94, 64 / 4, 128 / 8",
    "Qwen3 Technical Report, Tables 1 and 2",
)


def _qwen3(repo: str, config: str, size: str) -> tuple[Source, ...]:
    return (
        _QWEN3_REPORT,
        Source(
            f"https://huggingface.co/{repo}/blob/main/config.json",
            config,
            f"{repo} config.json",
        ),
        _hf_size(repo, size),
    )


_GPT_OSS = "https://github.com/openai/gpt-oss/blob/7b583341fe16729127f6d5b94a7b09ccae97e1a1"
_GPT_OSS_README = Source(
    f"{_GPT_OSS}/README.md",
    "gpt-oss-120b ... (117B parameters with 5.1B active parameters); gpt-oss-20b ... "
    "(21B parameters with 3.6B active parameters)",
    "openai/gpt-oss README",
)
SOURCE_WINDOW_CACHE = Source(
    f"{_GPT_OSS}/gpt_oss/torch/model.py",
    "ModelConfig: num_hidden_layers 36, num_experts 128, experts_per_token 4, hidden_size 2880, "
    "head_dim 64, num_attention_heads 64, num_key_value_heads 8, sliding_window 128; "
    "AttentionBlock: sliding_window = config.sliding_window if layer_idx % 2 == 0 else 0",
    "openai/gpt-oss gpt_oss/torch/model.py (the 120b configuration; every other layer windowed)",
)
_GPT_OSS_CARD = Source(
    "https://arxiv.org/abs/2508.10925",
    "attention blocks alternate between banded window (128 tokens) and fully dense patterns; "
    "64 query heads of dimension 64, 8 key-value heads",
    "gpt-oss-120b & gpt-oss-20b Model Card (OpenAI, 2025)",
)


# fmt: off
NAMED_MODELS: tuple[ModelShape, ...] = (
    ModelShape(
        "llama-2-7b", "Llama 2 7B", 6.74e9, 32, 4096, 32, 32, 128,
        (
            _LLAMA2_CARD,
            Source(_LLAMA_SKUS, '"dim": 4096, "n_layers": 32, "n_heads": 32',
                   "meta-llama/llama-models sku_list.py, Llama 2 7B arch_args"),
            _hf_size("meta-llama/Llama-2-7b-hf", "Model size 6.74B params"),
        ),
    ),
    ModelShape(
        "llama-2-13b", "Llama 2 13B", 13.0e9, 40, 5120, 40, 40, 128,
        (
            _LLAMA2_CARD,
            Source(_LLAMA_SKUS, '"dim": 5120, "n_layers": 40, "n_heads": 40',
                   "meta-llama/llama-models sku_list.py, Llama 2 13B arch_args"),
            _hf_size("meta-llama/Llama-2-13b-hf", "Model size 13B params"),
        ),
    ),
    ModelShape(
        "llama-3-8b", "Llama 3 8B", 8.03e9, 32, 4096, 32, 8, 128,
        _llama("3", "8B", _LLAMA3_8B,
               _hf_size("meta-llama/Meta-Llama-3-8B", "Model size 8.03B params")),
    ),
    ModelShape(
        "llama-3-70b", "Llama 3 70B", 70.6e9, 80, 8192, 64, 8, 128,
        _llama("3", "70B", _LLAMA3_70B,
               _hf_size("meta-llama/Meta-Llama-3-70B", "Model size 70.6B params")),
    ),
    ModelShape(
        "llama-3.1-8b", "Llama 3.1 8B", 8.03e9, 32, 4096, 32, 8, 128,
        (*_llama("3.1", "8B", _LLAMA3_8B,
                 _hf_size("meta-llama/Llama-3.1-8B", "Model size 8.03B params")),
         _LLAMA31_CARD),
    ),
    ModelShape(
        "llama-3.1-70b", "Llama 3.1 70B", 70.6e9, 80, 8192, 64, 8, 128,
        (*_llama("3.1", "70B", _LLAMA3_70B,
                 _hf_size("meta-llama/Llama-3.1-70B", "Model size 70.6B params")),
         _LLAMA31_CARD),
    ),
    ModelShape(
        "llama-3.3-70b", "Llama 3.3 70B", 70.6e9, 80, 8192, 64, 8, 128,
        _llama("3.3", "70B Instruct", _LLAMA3_70B,
               _hf_size("meta-llama/Llama-3.3-70B-Instruct", "Model size 70.6B params")),
    ),
    ModelShape(
        "llama-3.1-405b", "Llama 3.1 405B", 405e9, 126, 16384, 128, 8, 128,
        _llama("3.1", "405B", _LLAMA3_405B, _LLAMA31_CARD),
    ),
    ModelShape(
        "mixtral-8x7b", "Mixtral 8x7B", 46.7e9, 32, 4096, 32, 8, 128,
        (
            _MIXTRAL_PAPER,
            Source("https://mistral.ai/news/mixtral-of-experts/",
                   "Mixtral has 46.7B total parameters but only uses 12.9B parameters per token",
                   "Mixtral of experts (Mistral AI, December 2023)"),
        ),
        active_params=12.9e9, experts=8, active_experts=2,
    ),
    ModelShape(
        "mixtral-8x22b", "Mixtral 8x22B", 141e9, 56, 6144, 48, 8, 128,
        (
            Source("https://huggingface.co/mistralai/Mixtral-8x22B-v0.1/blob/main/config.json",
                   '"hidden_size": 6144, "intermediate_size": 16384, "num_attention_heads": 48, '
                   '"num_hidden_layers": 56, "num_key_value_heads": 8, "num_local_experts": 8, '
                   '"num_experts_per_tok": 2 (head dim = 6144 / 48 = 128)',
                   "mistralai/Mixtral-8x22B-v0.1 config.json"),
            Source("https://mistral.ai/news/mixtral-8x22b/",
                   "a sparse Mixture-of-Experts (SMoE) model that uses only 39B active "
                   "parameters out of 141B",
                   "Cheaper, Better, Faster, Stronger (Mistral AI, April 2024)"),
        ),
        active_params=39e9, experts=8, active_experts=2,
    ),
    ModelShape(
        "deepseek-v3", "DeepSeek-V3", 671e9, 61, 7168, 128, 128, 128,
        (
            _DEEPSEEK_CONFIG,
            SOURCE_MLA_CACHE,
            Source(f"{_DEEPSEEK_V3}/README.md",
                   "DeepSeek-V3, a strong Mixture-of-Experts (MoE) language model with 671B "
                   "total parameters with 37B activated for each token",
                   "DeepSeek-V3 README"),
        ),
        active_params=37e9, experts=256, active_experts=8, kv_lora_rank=512, rope_head_dim=64,
    ),
    ModelShape(
        "deepseek-r1", "DeepSeek-R1", 671e9, 61, 7168, 128, 128, 128,
        (
            Source("https://github.com/deepseek-ai/DeepSeek-R1/blob/"
                   "0cf78561f1d51c84a21b2190626b21116d5c68bb/README.md",
                   "DeepSeek-R1 | 671B | 37B | 128K ... DeepSeek-R1-Zero & DeepSeek-R1 are "
                   "trained based on DeepSeek-V3-Base",
                   "DeepSeek-R1 README"),
            _DEEPSEEK_CONFIG,
            SOURCE_MLA_CACHE,
        ),
        active_params=37e9, experts=256, active_experts=8, kv_lora_rank=512, rope_head_dim=64,
    ),
    ModelShape(
        "qwen3-8b", "Qwen3-8B", 8.2e9, 36, 4096, 32, 8, 128,
        _qwen3("Qwen/Qwen3-8B",
               '"head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32, '
               '"num_hidden_layers": 36, "num_key_value_heads": 8',
               "Number of Parameters: 8.2B"),
    ),
    ModelShape(
        "qwen3-14b", "Qwen3-14B", 14.8e9, 40, 5120, 40, 8, 128,
        _qwen3("Qwen/Qwen3-14B",
               '"head_dim": 128, "hidden_size": 5120, "num_attention_heads": 40, '
               '"num_hidden_layers": 40, "num_key_value_heads": 8',
               "Number of Parameters: 14.8B"),
    ),
    ModelShape(
        "qwen3-32b", "Qwen3-32B", 32.8e9, 64, 5120, 64, 8, 128,
        _qwen3("Qwen/Qwen3-32B",
               '"head_dim": 128, "hidden_size": 5120, "num_attention_heads": 64, '
               '"num_hidden_layers": 64, "num_key_value_heads": 8',
               "Number of Parameters: 32.8B"),
    ),
    ModelShape(
        "qwen3-30b-a3b", "Qwen3-30B-A3B", 30.5e9, 48, 2048, 32, 4, 128,
        _qwen3("Qwen/Qwen3-30B-A3B",
               '"head_dim": 128, "hidden_size": 2048, "num_attention_heads": 32, '
               '"num_hidden_layers": 48, "num_key_value_heads": 4, "num_experts": 128, '
               '"num_experts_per_tok": 8',
               "Number of Parameters: 30.5B in total and 3.3B activated"),
        active_params=3.3e9, experts=128, active_experts=8,
    ),
    ModelShape(
        "qwen3-235b-a22b", "Qwen3-235B-A22B", 235e9, 94, 4096, 64, 4, 128,
        _qwen3("Qwen/Qwen3-235B-A22B",
               '"head_dim": 128, "hidden_size": 4096, "num_attention_heads": 64, '
               '"num_hidden_layers": 94, "num_key_value_heads": 4, "num_experts": 128, '
               '"num_experts_per_tok": 8',
               "Number of Parameters: 235B in total and 22B activated"),
        active_params=22e9, experts=128, active_experts=8,
    ),
    ModelShape(
        "gpt-oss-20b", "gpt-oss-20b", 21e9, 24, 2880, 64, 8, 64,
        (
            _GPT_OSS_README,
            Source("https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json",
                   '"num_hidden_layers": 24, "hidden_size": 2880, "num_attention_heads": 64, '
                   '"num_key_value_heads": 8, "head_dim": 64, "num_local_experts": 32, '
                   '"num_experts_per_tok": 4, "sliding_window": 128, "layer_types": '
                   '["sliding_attention", "full_attention", ...] (alternating)',
                   "openai/gpt-oss-20b config.json"),
            _GPT_OSS_CARD,
        ),
        active_params=3.6e9, experts=32, active_experts=4, window_layers=12, window=128,
    ),
    ModelShape(
        "gpt-oss-120b", "gpt-oss-120b", 117e9, 36, 2880, 64, 8, 64,
        (
            _GPT_OSS_README,
            SOURCE_WINDOW_CACHE,
            _GPT_OSS_CARD,
        ),
        active_params=5.1e9, experts=128, active_experts=4, window_layers=18, window=128,
    ),
)
# fmt: on

_BY_KEY = {model.key: model for model in NAMED_MODELS}


def find_model(text: str) -> ModelShape | None:
    """The named model ``text`` picks, case-insensitively; ``None`` if it names none.

    A Hugging Face repository id works too (``meta-llama/Llama-3.1-70B``, ``Qwen/Qwen3-32B``):
    the organisation is dropped, and ``Meta-`` before a Llama 3 name, as Meta wrote it then.
    """
    cleaned = text.strip().lower().replace("_", "-").replace(" ", "-")
    cleaned = cleaned.rsplit("/", 1)[-1].removeprefix("meta-")
    return _BY_KEY.get(cleaned)
