"""Cloud vs on-prem arithmetic against a worked H100 example (the default inputs, by hand)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from gpu_tui.core.errors import UsageError
from gpu_tui.core.guide.cost import (
    INPUT_SOURCES,
    REFERENCE_PRICES,
    CloudPrice,
    CostInputs,
    break_even_utilization,
    cost_report,
    gpu_year,
    input_sources,
    onprem_usd_per_useful_hour,
    roi,
    usd_per_tflop_hour,
)

YEAR = gpu_year(CostInputs())


def test_reference_fixed_and_variable_cost_per_gpu_year() -> None:
    assert round(YEAR.fixed_usd) == 18_707
    assert round(YEAR.variable_usd) == 1_464


def test_each_part_of_the_gpu_year_has_its_closed_form() -> None:
    assert YEAR.capex_usd == 330_000 / 4 / 8
    assert YEAR.maintenance_usd == pytest.approx(30_000 / 8)
    assert YEAR.staff_usd == 25_000 / 8
    assert YEAR.colo_usd == pytest.approx(700 * 10.2 / 8)
    assert YEAR.idle_power_usd == pytest.approx(10.2 * 0.3 * 1.56 * 8760 * 0.12 / 8)
    assert YEAR.variable_usd == pytest.approx(10.2 * 0.7 * 1.56 * 8760 * 0.12 / 8)
    assert YEAR.fixed_usd == pytest.approx(18_707.25104)


@pytest.mark.parametrize(
    ("price", "percent"), [(2.50, 91.5), (4.00, 55.7), (7.00, 31.3), (11.00, 19.7)]
)
def test_reference_break_even_table(price: float, percent: float) -> None:
    u_star = break_even_utilization(YEAR, price)
    assert u_star is not None
    assert round(u_star * 100, 1) == percent


@pytest.mark.parametrize(("u", "usd"), [(0.3, 7.29), (0.5, 4.44), (0.7, 3.22), (0.9, 2.54)])
def test_reference_onprem_cost_per_useful_hour(u: float, usd: float) -> None:
    assert round(onprem_usd_per_useful_hour(YEAR, u), 2) == usd


def test_at_break_even_both_cost_the_same_and_roi_is_zero() -> None:
    u_star = break_even_utilization(YEAR, 4.0)
    assert u_star is not None
    assert onprem_usd_per_useful_hour(YEAR, u_star) == pytest.approx(4.0)
    assert roi(YEAR, 4.0, u_star) == pytest.approx(0.0, abs=1e-12)


def test_roi_is_cloud_cost_avoided_over_onprem_cost() -> None:
    onprem = YEAR.fixed_usd + YEAR.variable_usd * 0.5
    assert roi(YEAR, 11.0, 0.5) == pytest.approx((11.0 * 8760 * 0.5 - onprem) / onprem)


@pytest.mark.parametrize("price", [0.10, 2.00])
def test_no_break_even_when_cloud_is_cheaper_even_at_full_use(price: float) -> None:
    assert break_even_utilization(YEAR, price) is None


def test_cost_per_tflop_hour_uses_the_measured_rate() -> None:
    assert usd_per_tflop_hour(2.5, 500) == 0.005
    with pytest.raises(UsageError):
        usd_per_tflop_hour(2.5, 0)


def test_report_defaults_reproduce_the_reference_tables() -> None:
    report = cost_report()
    assert [p.price.usd_per_gpu_hour for p in report.prices] == [2.50, 4.00, 7.00, 11.00]
    assert [round((p.break_even_utilization or 0) * 100, 1) for p in report.prices] == [
        91.5,
        55.7,
        31.3,
        19.7,
    ]
    assert [round(r.onprem_usd_per_useful_hour, 2) for r in report.utilizations] == [
        7.29,
        4.44,
        3.22,
        2.54,
    ]
    assert all(len(r.roi_vs_prices) == 4 for r in report.utilizations)
    assert report.utilizations[0].usd_per_tflop_hour is None


def test_report_with_a_measured_rate_prices_a_tflop_hour() -> None:
    price = CloudPrice(3.0, "test", "2026-10-01", "test")
    report = cost_report(prices=(price,), utilizations=(0.5,), measured_tflops=600.0)
    assert report.prices[0].usd_per_tflop_hour == 3.0 / 600
    assert report.utilizations[0].usd_per_tflop_hour == pytest.approx(4.438137881 / 600)


def test_every_reference_price_carries_a_date_and_a_source() -> None:
    assert REFERENCE_PRICES, "there must be reference prices to check"
    for price in REFERENCE_PRICES:
        assert price.date[:4] == "2026"
        assert price.source


def test_every_input_has_a_source_and_changed_ones_say_given() -> None:
    assert set(INPUT_SOURCES) == set(CostInputs.__dataclass_fields__)
    sources = input_sources(replace(CostInputs(), pue=1.3))
    assert sources["pue"] == "given by the user"
    assert sources["usd_per_kwh"] == INPUT_SOURCES["usd_per_kwh"]


def test_changing_an_input_changes_the_answer() -> None:
    cheaper_power = gpu_year(replace(CostInputs(), usd_per_kwh=0.06))
    assert cheaper_power.variable_usd == pytest.approx(YEAR.variable_usd / 2)
    assert cheaper_power.capex_usd == YEAR.capex_usd


@pytest.mark.parametrize(
    "change",
    [
        {"pue": 0.5},
        {"gpus_per_node": 0},
        {"life_years": 0.0},
        {"idle_power_fraction": 1.5},
        {"hardware_usd": -1.0},
        {"usd_per_kwh": math.nan},
        {"node_kw": math.inf},
        {"gpus_per_node": 2.5},
    ],
)
def test_out_of_range_inputs_are_refused(change: dict[str, float]) -> None:
    with pytest.raises(UsageError):
        gpu_year(replace(CostInputs(), **change))


@pytest.mark.parametrize("u", [0.0, -0.1, 1.01, math.nan])
def test_utilisation_must_be_in_zero_to_one(u: float) -> None:
    with pytest.raises(UsageError, match="utilisation"):
        onprem_usd_per_useful_hour(YEAR, u)


@pytest.mark.parametrize("price", [0.0, -3.0, math.inf, 5000.0])
def test_cloud_price_must_be_positive_and_sane(price: float) -> None:
    with pytest.raises(UsageError, match="cloud price"):
        break_even_utilization(YEAR, price)
