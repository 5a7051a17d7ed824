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
        (7.12e-05, "0.0000712"),  # a comm rate in GB/s: never 7.12e-05
        (-5.42e-06, "-0.00000542"),
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
        (0.999, "0.999"),
        (0.2350058, "0.235"),  # a CPU's 235 GFLOP/s: the digits Specs shows, not 0.24
        (0.23496, "0.235"),
        (0.3, "0.30"),
        (0.0683, "0.0683"),
        (0.99996, "1.00"),
        (1, "1.0"),
        (98.54, "98.5"),
        (99.95, "100.0"),
        (100, "100"),
        (1979.4, "1,979"),
        (123456.7, "123,457"),
    ],
)
def test_format_rounded_gives_bars_three_figures_one_or_no_decimals(
    value: float, text: str
) -> None:
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


@pytest.mark.parametrize(
    ("fraction", "digits", "signed", "text"),
    [
        (0.915, 1, False, "91.5 %"),
        (0.3, 0, False, "30 %"),
        (-0.6612, 0, False, "\u221266 %"),  # a minus sign, not a hyphen
        (-0.6612, 0, True, "\u221266 %"),
        (0.31, 0, True, "+31 %"),
        (-0.001, 0, True, "0 %"),  # no sign on a rounded zero
        (12.5, 0, False, "1,250 %"),
    ],
)
def test_format_percent_spaces_the_sign_and_writes_a_true_minus(
    fraction: float, digits: int, signed: bool, text: str
) -> None:
    assert units.format_percent(fraction, digits, signed=signed) == text


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
    assert units.format_reading(612.4, "5.0f", " W") == "  612 W"
    assert units.format_reading(Unknown("no sensor"), unit=" W") == "–"
    assert units.format_reading(Unknown("no sensor"), unknown="?") == "?"


def test_format_reading_percent_writes_a_reading_in_percent_as_format_percent_does() -> None:
    assert units.format_reading_percent(45.6) == "46 %"
    assert units.format_reading_percent(45.6, width=5) == " 46 %"
    assert units.format_reading_percent(100, width=5) == "100 %"  # the widest fits whole
    assert units.format_reading_percent(54.5) == "54 %"  # 54.5 / 100 * 100 would round to 55
    assert units.format_reading_percent(Unknown("no sensor"), width=5) == "–"
    assert units.format_reading_percent(Unknown("no sensor"), unknown="?") == "?"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0 B"),
        (512, "512 B"),
        (1536, "1.5 KiB"),
        ((1 << 20) - 1, "1.0 MiB"),  # rounds up to the next unit, never "1024.0 KiB"
        (32 << 30, "32.0 GiB"),
        (3 << 40, "3.0 TiB"),
    ],
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
        (1040 << 20, "1,040 MiB"),  # not 1.01562 GiB: whole one unit down
        (1025, "1.00098 KiB"),  # never down to bytes
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


@pytest.mark.parametrize(
    ("function", "value", "text"),
    [
        (units.format_time, 1.25, "1.25 s"),
        (units.format_time, 0.0171, "17.1 ms"),
        (units.format_time, 2.87e-6, "2.87 µs"),
        (units.format_time, 5e-9, "5 ns"),
        (units.format_time, 0, "0 ns"),
        (units.format_time_rough, Fraction(32, 100), "0.32 s"),
        (units.format_time_rough, 0.1, "0.1 s"),
        (units.format_time_rough, 0.0089, "8.9 ms"),
        (units.format_seconds_precise, 0.5, "0.5 s"),
        (units.format_seconds_precise, Fraction(3, 10**6), "3e-06 s"),
        (units.format_seconds_precise, 20_000, "20,000 s"),
        (units.format_time_long, 20.0, "20 s"),
        (units.format_time_long, 119.0, "119 s"),  # below two minutes: seconds read better
        (units.format_time_long, 1900.0, "31.7 min"),
        (units.format_time_long, 20_000.0, "5.56 h"),
        (units.format_time_long, 200_000.0, "2.31 d"),
        (units.format_seconds_and_long, 90, "90 s"),
        (units.format_seconds_and_long, 119.5, "119.5 s"),
        (units.format_seconds_and_long, 7200, "7,200 s (2 h)"),
        (units.format_seconds_and_long, 70.9375, "70.94 s"),  # four figures, not six
        (units.format_seconds_and_long, 9160.05, "9,160 s (2.54 h)"),
        (units.format_seconds_and_long, 20_000.4, "20,000 s (5.56 h)"),  # never 2e+04
        (units.format_seconds_and_long, 1.5e6, "1,500,000 s (17.4 d)"),
    ],
)
def test_measured_and_model_times(function: object, value: float, text: str) -> None:
    assert callable(function)
    assert function(value) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (42, "42 s"),
        (59.4, "59 s"),
        (59.5, "1 min"),  # rounded to the second first
        (754, "12 min"),  # then cut to the minute
        (3600, "1 h"),
        (7500, "2 h 05 min"),
        (86400, "1 d"),
        (3 * 86400 + 4 * 3600 + 59 * 60, "3 d 4 h"),
    ],
)
def test_format_span_is_whole_units_in_words(seconds: float, text: str) -> None:
    assert units.format_span(seconds) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(29.4, "29 s"), (89.4, "89 s"), (90, "2 min"), (150, "2 min"), (3900, "65 min")],
)
def test_format_about_says_seconds_up_to_90_then_minutes(seconds: float, text: str) -> None:
    assert units.format_about(seconds) == text


@pytest.mark.parametrize(
    ("function", "seconds", "text"),
    [
        (units.format_clock, 0, "0:00"),
        (units.format_clock, 65.4, "1:05"),
        (units.format_clock, 59.6, "1:00"),  # rounded
        (units.format_clock, 4500, "75:00"),  # minutes past the hour
        (units.format_ps_elapsed, -2, "00:00"),
        (units.format_ps_elapsed, 307.9, "05:07"),  # cut, as ps does
        (units.format_ps_elapsed, 3 * 3600 + 307, "3:05:07"),
        (units.format_ps_elapsed, 2 * 86400 + 3 * 3600 + 307, "2-03:05"),
    ],
)
def test_clocks(function: object, seconds: float, text: str) -> None:
    assert callable(function)
    assert function(seconds) == text


@pytest.mark.parametrize(
    ("seconds", "ago", "steps"),
    [
        (None, "never", "never"),
        (0.4, "0s ago", "<15s"),
        (14.9, "15s ago", "<15s"),
        (15, "15s ago", "<30s"),
        (45, "45s ago", "<1m"),
        (61, "61s ago", "61s"),
        (89.4, "89s ago", "89s"),
        (90, "2m ago", "2m"),
        (240, "4m ago", "4m"),
        (5399, "90m ago", "90m"),
        (7200, "2h ago", "2h"),
    ],
)
def test_ages_are_one_letter_and_fresh_ones_go_in_steps(
    seconds: float | None, ago: str, steps: str
) -> None:
    assert units.format_age(seconds) == ago
    assert units.format_age_steps(seconds) == steps


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (45, "-45s"),
        (300, "-5m"),
        (330, "-5m30"),
        (3600, "-1h"),
        (3900, "-1h05"),
        (3630, "-1h00"),  # seconds past the hour still say the hour is not whole
        (2 * 86400, "-2d"),
        (2 * 86400 + 1800, "-2d"),
        (2 * 86400 + 3 * 3600, "-2d3h"),
    ],
)
def test_format_axis_ago_labels_a_time_axis(seconds: int, text: str) -> None:
    assert units.format_axis_ago(seconds) == text


@pytest.mark.parametrize(
    ("count", "words"),
    [
        (8e9, "8B"),
        (70.6e9, "70.6B"),
        (405e9, "405B"),
        (999.9e9, "999.9B"),
        (1.2e12, "1.2T"),
        (1e14, "100T"),  # was "1e+05B"
        (2.5e16, "25,000T"),
    ],
)
def test_parameters_in_billions_then_trillions_never_in_exponents(count: float, words: str) -> None:
    assert units.format_parameters(count) == words
