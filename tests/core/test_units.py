"""gpu_tui.core.units: each formatter's rule, at its edges (the docstrings' examples hold)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gpu_tui.core import units
from gpu_tui.core.devices.fields import Unknown


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (0.0123, "0.0123"),
        (1.005, "1"),  # trailing zeros dropped
        (2.5, "2.5"),
        (99.94, "99.9"),
        (99.96, "100"),
        (100.5, "100"),  # whole from 100, rounded half to even as Python does
        (123.456, "123"),
        (999.7, "1,000"),  # never 1e+03
        (1998, "1,998"),
        (123456.7, "123,457"),
        (-1500, "-1,500"),
    ],
)
def test_format_number_is_three_figures_then_whole(value: float, text: str) -> None:
    assert units.format_number(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0005, "0.0005"),
        (1.05, "1.05"),
        (33.333333, "33.3333"),
        (20000, "20,000"),
        (123456.7, "123,457"),
        (999999.4, "999,999"),
        (1e6, "1,000,000"),
        (1e9, "1,000,000,000"),  # never 1e+09
    ],
)
def test_format_precise_keeps_six_figures(value: float, text: str) -> None:
    assert units.format_precise(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0.00"),
        (0.25, "0.25"),
        (0.999, "1.00"),
        (1, "1.0"),
        (98.54, "98.5"),
        (99.95, "100.0"),
        (100, "100"),
        (1979.4, "1,979"),
        (123456.7, "123,457"),
    ],
)
def test_format_rounded_gives_bars_two_one_or_no_decimals(value: float, text: str) -> None:
    assert units.format_rounded(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (10_000_000, "10,000,000"),
        (1e7, "10,000,000"),  # a float: still every digit, no exponent
        (0.001, "0.001"),
        (1e-7, "0.0000001"),
        (12.5, "12.5"),
        (Fraction(10**15), "1,000,000,000,000,000"),
        (Fraction(1, 10**9), "0.000000001"),
        (Fraction(5, 2), "2.5"),
    ],
)
def test_format_exact_writes_every_digit(value: float | Fraction, text: str) -> None:
    assert units.format_exact(value) == text


def test_format_times_is_format_number_with_a_times_sign() -> None:
    assert [units.format_times(r) for r in (0.5, 1.05, 99.9, 999.7, 1998)] == [
        "0.5×",
        "1.05×",
        "99.9×",
        "1,000×",
        "1,998×",
    ]


def test_format_reading_says_unknown_with_a_marker_of_the_callers_choice() -> None:
    assert units.format_reading(45.6) == "46"
    assert units.format_reading(45.6, "4.0f", "%") == "  46%"
    assert units.format_reading(3, ".0f", "% busy") == "3% busy"
    assert units.format_reading(Unknown("no sensor"), unit="%") == "–"
    assert units.format_reading(Unknown("no sensor"), unknown="?") == "?"


@pytest.mark.parametrize(
    ("value", "text"),
    [(0, "0 B"), (512, "512 B"), (1536, "1.5 KiB"), (32 << 30, "32.0 GiB"), (3 << 40, "3.0 TiB")],
)
def test_format_bytes_has_one_decimal_and_a_spaced_unit(value: int, text: str) -> None:
    assert units.format_bytes(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0B"),
        (512, "512B"),
        (2048, "2.0K"),
        (123456, "120.6K"),
        (12.3 * 2**30, "12.3G"),
        (3 << 40, "3.0T"),
    ],
)
def test_format_bytes_short_fits_a_tight_column(value: float, text: str) -> None:
    assert units.format_bytes_short(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (8, "8 B"),
        (1000, "1000 B"),
        (1024, "1 KiB"),
        (1 << 20, "1 MiB"),
        (1536 << 20, "1536 MiB"),
        (1 << 30, "1 GiB"),
        (16 << 30, "16 GiB"),
        (1 << 40, "1 TiB"),
    ],
)
def test_format_bytes_exact_uses_the_largest_unit_that_divides(value: int, text: str) -> None:
    assert units.format_bytes_exact(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (100, "100 B"),
        (4096, "4 KiB"),
        (64 << 20, "64 MiB"),
        (15 << 27, "1.875 GiB"),
        (1920 << 20, "1.875 GiB"),
        (123456, "120.562 KiB"),
    ],
)
def test_format_bytes_trimmed_uses_the_largest_unit_below(value: int, text: str) -> None:
    assert units.format_bytes_trimmed(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.5, "0.5"),
        (16, "16"),
        (1000, "1000"),
        (1024, "1K"),
        (4096.0, "4K"),
        (1536, "1536"),
        (1 << 20, "1M"),
        (1 << 30, "1G"),
        (1 << 40, "1T"),
    ],
)
def test_format_binary_count_prefixes_exact_multiples_only(value: float, text: str) -> None:
    assert units.format_binary_count(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.5, "0.5"),
        (100, "100"),
        (1000, "1k"),
        (2500, "2.5k"),
        (1e7, "10M"),
        (1e9, "1G"),
        (1 << 30, "1.07374G"),
    ],
)
def test_format_si_count_uses_powers_of_a_thousand(value: float, text: str) -> None:
    assert units.format_si_count(value) == text


@pytest.mark.parametrize(
    ("function", "value", "text"),
    [
        (units.format_mhz, 3500, "3.50 GHz"),
        (units.format_mhz, 800, "800 MHz"),
        (units.format_flops, 989.4, "989.4 TFLOP/s"),
        (units.format_flops, 0.0472, "47.2 GFLOP/s"),
        (units.format_bandwidth, 4917, "4.92 TB/s"),
        (units.format_bandwidth, 47, "47.0 GB/s"),
        (units.format_seconds, 1.5, "1.50 s"),
        (units.format_seconds, 0.0042, "4.20 ms"),
        (units.format_seconds, 3.1e-6, "3.1 µs"),
    ],
)
def test_rates_clocks_and_times(function: object, value: float, text: str) -> None:
    assert callable(function)
    assert function(value) == text
