"""Will-it-fit arithmetic against worked examples: weights, KV cache, devices, decode bound."""

from __future__ import annotations

import pytest

from gpu_tui.core.errors import UsageError
from gpu_tui.core.guide.fit import (
    Target,
    accelerator_target,
    catalog_targets,
    default_kv_dtype,
    devices_needed,
    fit,
    kv_cache_bytes,
    weight_bytes,
)
from gpu_tui.core.guide.shapes import KNOWN_SHAPES, choose_shape, parse_params
from tests.core.guide.fakes import make_device

SHAPES = {shape.key: shape for shape in KNOWN_SHAPES}


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


def test_parse_params_accepts_known_model_names() -> None:
    assert parse_params("Llama-3.1-70B") == (70e9, SHAPES["llama-3.1-70b"])


@pytest.mark.parametrize("text", ["", "abc", "-8B", "8X", "8BB", "0", "1e20", "nanB", "8e", "1e2"])
def test_parse_params_refuses_anything_else(text: str) -> None:
    with pytest.raises(UsageError):
        parse_params(text)


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [("fp32", 32e9), ("bf16", 16e9), ("fp16", 16e9), ("fp8", 8e9), ("int4", 4e9)],
)
def test_an_8b_model_weighs_params_times_bytes(dtype: str, expected: float) -> None:
    assert weight_bytes(8e9, dtype) == expected


def test_70b_bf16_weighs_140_gb() -> None:
    assert weight_bytes(70e9, "bf16") == 140e9


@pytest.mark.parametrize(
    ("key", "per_token"),
    [
        ("llama-3.1-8b", 131_072),  # 128 KiB/token in BF16, as the reference says
        ("llama-3.1-70b", 327_680),
        ("llama-3.1-405b", 516_096),
        ("llama-2-7b", 524_288),  # full multi-head attention: 4x Llama 3.1 8B
        ("llama-2-13b", 819_200),
    ],
)
def test_kv_bytes_per_token_in_bf16(key: str, per_token: int) -> None:
    assert kv_cache_bytes(SHAPES[key], 1, 1, "bf16") == per_token


def test_kv_cache_scales_with_context_batch_and_width() -> None:
    shape = SHAPES["llama-3.1-8b"]
    assert kv_cache_bytes(shape, 8192, 1, "bf16") == 2**30
    assert kv_cache_bytes(shape, 8192, 4, "bf16") == 4 * 2**30
    assert kv_cache_bytes(shape, 8192, 1, "fp8") == 2**29
    assert kv_cache_bytes(shape, 0, 1, "bf16") == 0


def test_known_sizes_pick_their_shape_within_two_percent() -> None:
    assert choose_shape(8.03e9).shape.key == "llama-3.1-8b"
    assert choose_shape(8.03e9).exact
    assert choose_shape(7e9).shape.key == "llama-2-7b"


@pytest.mark.parametrize(
    ("params", "borrowed"),
    [
        (1e9, "llama-3.1-8b"),
        (30e9, "llama-3.1-70b"),
        (20e9, "llama-3.1-8b"),
        (1e12, "llama-3.1-405b"),
    ],
)
def test_other_sizes_borrow_the_nearest_llama_31_shape_on_a_log_scale(
    params: float, borrowed: str
) -> None:
    choice = choose_shape(params)
    assert choice.shape.key == borrowed
    assert not choice.exact
    assert choice.how.startswith("assumed:")


def test_int4_weights_keep_a_16_bit_cache_and_others_their_own() -> None:
    assert default_kv_dtype("int4") == "bf16"
    assert default_kv_dtype("fp8") == "fp8"
    assert fit(8e9, "int4", context=1).kv_bytes_per_token == 131_072


def test_70b_bf16_needs_two_80_gb_gpus_or_one_h200_for_its_weights() -> None:
    result = fit(70e9, "bf16", context=0, targets=catalog_targets())
    needed = {p.target.name: p.devices_needed for p in result.placements}
    assert result.total_bytes == 140e9
    assert needed["NVIDIA H100 SXM"] == 2
    assert needed["NVIDIA A100 80GB SXM"] == 2
    assert needed["NVIDIA H200 SXM"] == 1
    assert needed["AMD Instinct MI300X"] == 1
    assert needed["NVIDIA RTX 4090"] == 6


def test_70b_with_a_4k_context_is_just_too_big_for_one_published_h200() -> None:
    result = fit(70e9, "bf16", targets=catalog_targets())
    h200 = next(p for p in result.placements if p.target.name == "NVIDIA H200 SXM")
    assert result.kv_cache_bytes == 327_680 * 4096
    assert result.total_bytes == 141_342_177_280
    assert h200.devices_needed == 2
    assert h200.fraction_of_one == pytest.approx(141_342_177_280 / 141e9)


def test_decode_bound_is_bandwidth_over_weight_bytes() -> None:
    h100 = Target("H100", 80e9, 3.35e12, "test")
    small = fit(8e9, "bf16", targets=[h100]).placements[0]
    assert small.devices_needed == 1
    assert small.fits_on_one
    assert small.decode_tokens_per_second_max == pytest.approx(209.375)
    big = fit(70e9, "bf16", context=0, targets=[h100]).placements[0]
    assert big.devices_needed == 2
    assert big.decode_tokens_per_second_max == pytest.approx(2 * 3.35e12 / 140e9)


def test_unknown_capacity_or_bandwidth_gives_none_not_a_guess() -> None:
    placement = fit(8e9, targets=[Target("mystery", None, None, "test")]).placements[0]
    assert placement.devices_needed is None
    assert placement.decode_tokens_per_second_max is None
    assert placement.fraction_of_one is None
    assert devices_needed(1e9, 0) is None
    no_bandwidth = fit(8e9, targets=[Target("x", 80e9, None, "test")]).placements[0]
    assert no_bandwidth.devices_needed == 1
    assert no_bandwidth.decode_tokens_per_second_max is None


def test_catalog_targets_convert_published_units_and_keep_sources() -> None:
    targets = catalog_targets()
    h100 = by_name(targets, "NVIDIA H100 SXM")
    assert h100.memory_bytes == 80e9
    assert h100.bandwidth_bytes_per_second == 3.35e12
    assert "H100" in h100.source
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
    assert target.bandwidth_bytes_per_second == 4917e9
    assert "nvml" in target.source
    assert "3201 MHz" in target.source
    # The driver's capacity is larger than the published 141 GB, so 70B at 4K fits on one.
    assert fit(70e9, targets=[target]).placements[0].devices_needed == 1


def test_a_simulated_device_says_so_and_unknowns_stay_unknown() -> None:
    target = accelerator_target(make_device(memory=None, bandwidth_gbps=None, simulated=True))
    assert target.name == "NVIDIA H200 (SIMULATED)"
    assert target.memory_bytes is None
    assert target.bandwidth_bytes_per_second is None
