"""Will-it-fit arithmetic: weights, KV cache (GQA, MLA, windows), MoE reads, devices, decode."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from gpu_tui.core.errors import UsageError
from gpu_tui.core.guide.fit import (
    GIB,
    Target,
    accelerator_target,
    catalog_targets,
    default_kv_dtype,
    devices_needed,
    experts_read,
    fit,
    kv_bytes_per_sequence,
    kv_cache_bytes,
    machine_targets,
    params_read_per_step,
    published_memory_bytes,
    this_machine,
    weight_bytes,
    with_targets,
)
from gpu_tui.core.guide.models import NAMED_MODELS, find_model
from gpu_tui.core.guide.shapes import choose_shape, parse_params
from tests.core.guide.fakes import make_device

MODELS = {model.key: model for model in NAMED_MODELS}
# NVIDIA's H100 SXM as published: "80 GB" (= 80 GiB) and 3.35 TB/s.
H100 = Target("H100", 80 * GIB, 3.35e12, "test")


def by_name(result_targets: tuple[Target, ...], name: str) -> Target:
    return next(t for t in result_targets if t.name == name)


@pytest.mark.parametrize(
    ("text", "params"),
    [
        ("8B", 8e9),
        ("8b", 8e9),
        (" 8 B ", 8e9),
        ("70e9", 70e9),
        ("405B", 405e9),
        ("1.5T", 1.5e12),
        ("350M", 350e6),
        (".5B", 0.5e9),
        ("7000000000", 7e9),
    ],
)
def test_parse_params_accepts_counts_with_suffixes(text: str, params: float) -> None:
    assert parse_params(text) == (params, None)


@pytest.mark.parametrize(
    ("text", "key", "params"),
    [
        ("Llama-3.1-70B", "llama-3.1-70b", 70.6e9),
        ("llama-3.1-8b", "llama-3.1-8b", 8.03e9),
        ("meta-llama/Meta-Llama-3-8B", "llama-3-8b", 8.03e9),
        ("MIXTRAL-8X7B", "mixtral-8x7b", 46.7e9),
        ("deepseek-ai/DeepSeek-V3", "deepseek-v3", 671e9),
        ("deepseek_r1", "deepseek-r1", 671e9),
        ("Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b", 235e9),
        ("qwen3 30b a3b", "qwen3-30b-a3b", 30.5e9),
        ("gpt-oss-120b", "gpt-oss-120b", 117e9),
    ],
)
def test_parse_params_accepts_named_models_case_insensitively(
    text: str, key: str, params: float
) -> None:
    assert parse_params(text) == (params, MODELS[key])


@pytest.mark.parametrize("text", ["", "abc", "-8B", "8X", "8BB", "0", "1e20", "nanB", "8e", "1e2"])
def test_parse_params_refuses_anything_else(text: str) -> None:
    with pytest.raises(UsageError, match=r"or a named model such as llama-3\.1-70b"):
        parse_params(text)


def test_every_named_model_has_a_source_for_its_figures() -> None:
    assert len({m.key for m in NAMED_MODELS}) == len(NAMED_MODELS)
    for model in NAMED_MODELS:
        assert find_model(model.key) is model
        assert model.sources
        assert all(s.url.startswith("https://") and s.says and s.title for s in model.sources)
        assert model.moe == (model.active_params is not None)
        assert model.active <= model.params


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [("fp32", 32e9), ("bf16", 16e9), ("fp16", 16e9), ("fp8", 8e9), ("int4", 4e9)],
)
def test_an_8b_model_weighs_params_times_bytes(dtype: str, expected: float) -> None:
    assert weight_bytes(8e9, dtype) == expected


@pytest.mark.parametrize(
    ("key", "per_token"),
    [
        ("llama-3.1-8b", 131_072),  # 2 × 2 B × 32 layers × 8 KV heads × 128: 128 KiB/token
        ("llama-3.1-70b", 327_680),
        ("llama-3.1-405b", 516_096),
        ("llama-2-7b", 524_288),  # full multi-head attention: 4x Llama 3.1 8B
        ("llama-2-13b", 819_200),
        ("mixtral-8x7b", 131_072),
        ("qwen3-235b-a22b", 192_512),  # 2 × 2 × 94 × 4 × 128
        ("deepseek-v3", 70_272),  # MLA: 61 layers × (512 + 64) × 2 B
        ("gpt-oss-120b", 73_728),  # 2 × 2 × 36 × 8 × 64, all layers while within the window
    ],
)
def test_kv_bytes_per_token_in_bf16(key: str, per_token: int) -> None:
    assert kv_cache_bytes(MODELS[key], 1, 1, "bf16") == per_token


def test_kv_cache_scales_with_context_batch_and_width() -> None:
    shape = MODELS["llama-3.1-8b"]
    assert kv_cache_bytes(shape, 8192, 1, "bf16") == 2**30
    assert kv_cache_bytes(shape, 8192, 4, "bf16") == 4 * 2**30
    assert kv_cache_bytes(shape, 8192, 1, "fp8") == 2**29
    assert kv_cache_bytes(shape, 0, 1, "bf16") == 0


def test_mla_caches_a_latent_far_smaller_than_a_gqa_guess() -> None:
    v3 = MODELS["deepseek-v3"]
    assert kv_bytes_per_sequence(v3, 4096, "bf16") == 61 * (512 + 64) * 2 * 4096
    # Caching every head's K (192 dims) and V (128) instead would be 71x as much.
    mha = replace(v3, kv_lora_rank=0, rope_head_dim=0, head_dim=160)
    assert kv_bytes_per_sequence(mha, 4096, "bf16") / kv_bytes_per_sequence(v3, 4096, "bf16") > 70


def test_sliding_window_layers_cache_only_their_window() -> None:
    oss = MODELS["gpt-oss-120b"]
    per_layer_token = 2 * 2 * 8 * 64
    assert kv_bytes_per_sequence(oss, 128, "bf16") == 36 * 128 * per_layer_token
    assert (
        kv_bytes_per_sequence(oss, 131_072, "bf16") == (18 * 131_072 + 18 * 128) * per_layer_token
    )


def test_a_bare_size_gets_an_assumed_shape_even_at_a_known_size() -> None:
    for params in (8e9, 8.03e9, 70e9):
        choice = choose_shape(params)
        assert not choice.exact
        assert choice.how.startswith("assumed shape")
        assert choice.shape.params == params
    assert choose_shape(70e9).borrowed_from == "Llama 3.1 70B"
    assert choose_shape(70e9, MODELS["llama-3.1-70b"]).exact


@pytest.mark.parametrize(
    ("params", "borrowed"),
    [
        (1e9, "Llama 3.1 8B"),
        (30e9, "Llama 3.1 70B"),
        (20e9, "Llama 3.1 8B"),
        (1e12, "Llama 3.1 405B"),
    ],
)
def test_other_sizes_borrow_the_nearest_llama_31_shape_on_a_log_scale(
    params: float, borrowed: str
) -> None:
    choice = choose_shape(params)
    assert choice.borrowed_from == borrowed
    assert not choice.shape.moe


def test_int4_weights_keep_a_16_bit_cache_and_others_their_own() -> None:
    assert default_kv_dtype("int4") == "bf16"
    assert default_kv_dtype("fp8") == "fp8"
    assert fit(8e9, "int4", context=1).kv_bytes_per_token == 131_072


@pytest.mark.parametrize(
    ("key", "batch", "experts"),
    [
        ("mixtral-8x7b", 1, 2),
        ("mixtral-8x7b", 3, 6),
        ("mixtral-8x7b", 4, 8),
        ("mixtral-8x7b", 64, 8),
        ("deepseek-v3", 8, 64),
        ("deepseek-v3", 32, 256),
        ("llama-3.1-8b", 8, 0),
    ],
)
def test_a_batch_reads_at_most_batch_times_active_experts(
    key: str, batch: int, experts: int
) -> None:
    assert experts_read(MODELS[key], batch) == experts


def test_moe_reads_active_parameters_alone_then_up_to_all() -> None:
    mixtral = MODELS["mixtral-8x7b"]
    assert params_read_per_step(mixtral, 46.7e9, 1) == pytest.approx(12.9e9)
    # Each extra expert adds (46.7 − 12.9) ÷ 6 B parameters.
    assert params_read_per_step(mixtral, 46.7e9, 2) == pytest.approx(12.9e9 + 2 * 33.8e9 / 6)
    assert params_read_per_step(mixtral, 46.7e9, 100) == pytest.approx(46.7e9)
    dense = MODELS["llama-3.1-70b"]
    assert params_read_per_step(dense, 70.6e9, 64) == 70.6e9


def test_moe_keeps_every_expert_in_memory_and_reads_few() -> None:
    result = fit(671e9, "fp8", context=0, shape=MODELS["deepseek-v3"])
    assert result.weight_bytes == 671e9
    assert result.weight_bytes_read_per_step == pytest.approx(37e9)
    assert result.flops_per_token == 74e9


def test_70b_bf16_needs_two_80_gb_gpus_or_one_h200_for_its_weights() -> None:
    result = fit(70e9, "bf16", context=0, targets=catalog_targets())
    needed = {p.target.name: p.devices_needed for p in result.placements}
    assert result.total_bytes == 140e9
    assert needed["NVIDIA H100 SXM"] == 2
    assert needed["NVIDIA A100 80GB SXM"] == 2
    assert needed["NVIDIA H200 SXM"] == 1
    assert needed["AMD Instinct MI300X"] == 1
    assert needed["NVIDIA RTX 4090"] == 6


def test_70b_with_a_4k_context_fits_one_h200_as_nvidia_means_141_gb() -> None:
    result = fit(70e9, "bf16", targets=catalog_targets())
    h200 = next(p for p in result.placements if p.target.name == "NVIDIA H200 SXM")
    assert result.kv_cache_bytes == 327_680 * 4096
    assert result.total_bytes == 141_342_177_280
    assert h200.devices_needed == 1  # 141 GiB = 151.4 GB
    assert h200.fraction_of_one == pytest.approx(141_342_177_280 / (141 * GIB))


def test_decode_ceiling_divides_bandwidth_by_weights_and_kv_read() -> None:
    small = fit(8e9, "bf16", targets=[H100]).placements[0]
    assert small.devices_needed == 1
    assert small.fits_on_one
    kv = 131_072 * 4096
    assert small.decode_tokens_per_second_max == pytest.approx(3.35e12 / (16e9 + kv))
    big = fit(70e9, "bf16", context=0, targets=[H100]).placements[0]
    assert big.devices_needed == 2
    assert big.decode_tokens_per_second_max == pytest.approx(2 * 3.35e12 / 140e9)


def test_a_longer_context_or_a_bigger_batch_lowers_the_ceiling_per_sequence() -> None:
    def rate(context: int, batch: int) -> float:
        placement = fit(8e9, "int4", context=context, batch=batch, targets=[H100]).placements[0]
        assert placement.decode_tokens_per_second_max is not None
        return placement.decode_tokens_per_second_max

    assert rate(128_000, 1) < rate(4096, 1)
    assert rate(4096, 8) < rate(4096, 1)


def test_unknown_capacity_or_bandwidth_gives_none_not_a_guess() -> None:
    placement = fit(8e9, targets=[Target("mystery", None, None, "test")]).placements[0]
    assert placement.devices_needed is None
    assert placement.decode_tokens_per_second_max is None
    assert placement.fraction_of_one is None
    assert devices_needed(1e9, 0) is None
    no_bandwidth = fit(8e9, targets=[Target("x", 80e9, None, "test")]).placements[0]
    assert no_bandwidth.devices_needed == 1
    assert no_bandwidth.decode_tokens_per_second_max is None


def test_a_published_gb_of_memory_is_a_gib() -> None:
    assert published_memory_bytes(80) == (80 * 2**30, 'published "80 GB" = 80 GiB')
    # A capacity published in GiB (a TPU v4's "32 GiB") is kept in GiB by the catalog too.
    assert published_memory_bytes(32) == (32 * 2**30, 'published "32 GB" = 32 GiB')


def test_catalog_targets_convert_published_units_and_keep_sources() -> None:
    targets = catalog_targets()
    h100 = by_name(targets, "NVIDIA H100 SXM")
    assert h100.memory_bytes == 80 * 2**30
    assert h100.memory_basis == 'published "80 GB" = 80 GiB'
    assert h100.bandwidth_bytes_per_second == 3.35e12
    assert "H100" in h100.source
    # Published as "32 GiB"; the catalog writes it in 10^9 bytes (to one decimal).
    assert by_name(targets, "Google TPU v4").memory_bytes == pytest.approx(32 * GIB, rel=2e-3)
    assert by_name(targets, "NVIDIA B200 (GB200)").memory_bytes is None
    assert all(t.source for t in targets)
    assert not any(t.local for t in targets)


@pytest.mark.parametrize(
    "kwargs",
    [{"context": -1}, {"context": 10_000_001}, {"batch": 0}, {"batch": 100_001}],
)
def test_fit_refuses_out_of_range_context_and_batch(kwargs: dict[str, int]) -> None:
    with pytest.raises(UsageError):
        fit(8e9, "bf16", **kwargs)


@pytest.mark.parametrize(("dtype", "kv"), [("fp64", None), ("bf16", "int2")])
def test_fit_refuses_unknown_dtypes(dtype: str, kv: str | None) -> None:
    with pytest.raises(UsageError, match="dtype must be one of"):
        fit(8e9, dtype, kv_dtype=kv)


def test_a_detected_device_uses_driver_memory_and_computed_bandwidth() -> None:
    target = accelerator_target(make_device(memory=143_771 * 2**20, bandwidth_gbps=4917.0))
    assert target.local
    assert target.name == "NVIDIA H200"
    assert target.memory_bytes == 143_771 * 2**20
    assert target.memory_basis == "as reported: 143,771 MiB"
    assert target.bandwidth_bytes_per_second == 4917e9
    assert "nvml" in target.source
    assert "3201 MHz" in target.source
    assert fit(70e9, targets=[target]).placements[0].devices_needed == 1


def test_a_simulated_device_says_so_once_and_unknowns_stay_unknown() -> None:
    target = accelerator_target(make_device(memory=None, bandwidth_gbps=None, simulated=True))
    assert target.name == "NVIDIA H200 (SIMULATED)"
    assert target.memory_bytes is None
    assert target.bandwidth_bytes_per_second is None
    named = replace(make_device(memory=None, bandwidth_gbps=None, simulated=True))
    named = replace(named, name="NVIDIA H100 80GB HBM3 (SIMULATED #0)")
    assert accelerator_target(named).name == "NVIDIA H100 80GB HBM3 (SIMULATED #0)"


def inventory(*devices: object, ram: int = 24 * 2**30) -> SimpleNamespace:
    return SimpleNamespace(
        accelerators=devices,
        cpu=SimpleNamespace(model="Test CPU"),
        memory=SimpleNamespace(total_bytes=ram),
    )


def test_this_machine_lists_its_gpus_then_its_ram() -> None:
    gpu = make_device(memory=143_771 * 2**20, bandwidth_gbps=4917.0)
    targets = machine_targets(inventory(gpu, replace(gpu, lost=True)))  # type: ignore[arg-type]
    assert [t.name for t in targets] == ["NVIDIA H200", "CPU: Test CPU (RAM)"]
    assert all(t.local for t in targets)
    assert [t.ram for t in targets] == [False, True]


def answer(key: str, *devices: object, ram: int = 24 * 2**30, **kwargs: int) -> str:
    params, shape = parse_params(key)
    targets = machine_targets(inventory(*devices, ram=ram))  # type: ignore[arg-type]
    return this_machine(with_targets(fit(params, shape=shape, **kwargs), targets))


def test_this_machine_answers_in_one_line() -> None:
    h200 = make_device(memory=143_771 * 2**20, bandwidth_gbps=4917.0)
    fits = answer("llama-3.1-8b", h200)
    total = 8.03e9 * 2 + 131_072 * 4096
    assert fits == (
        "On this machine (1 × NVIDIA H200, 140.4 GiB each): fits on one GPU; "
        f"decode ≤ {4917e9 / total:,.1f} tok/s per sequence."
    )
    two = answer("llama-3.1-70b", h200, h200, context=128_000, batch=8)
    assert two.startswith(
        "On this machine (2 × NVIDIA H200, 140.4 GiB each): does not fit: needs 4"
    )
    spread = answer("llama-3.1-70b", *[h200] * 8, context=128_000, batch=8)
    assert "fits on 4 of its 8 GPUs; decode ≤ " in spread
    assert "\n" not in spread


def test_without_a_gpu_the_answer_is_about_ram() -> None:
    assert answer("llama-3.1-8b") == (
        "On this machine (no GPU found; 24.0 GiB of RAM): fits in RAM (64 % of it); "
        "no decode ceiling (gpu-tui computes no CPU memory bandwidth)."
    )
    assert answer("llama-3.1-70b", ram=16 * 2**30) == (
        "On this machine (no GPU found; 16.0 GiB of RAM): does not fit in RAM: needs 132.8 GiB."
    )
    unknown = make_device(memory=None, bandwidth_gbps=None)
    assert "memory size is unknown" in answer("8B", unknown)
