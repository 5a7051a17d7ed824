"""Parameter validation: impossible values are one clear UsageError, good ones are exact."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gpu_tui.core.errors import UsageError
from gpu_tui.core.kitchen.params import SPECS, parse_assignment
from gpu_tui.core.kitchen.scenarios import SCENARIOS, get_scenario


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("cooks", "0", "cooks must be a whole number between 1 and 1,000,000,000, got '0'"),
        ("cooks", "2.5", "cooks must be a whole number between 1 and"),
        ("launch_seconds", "-1", "launch_seconds must be 0 or between 0.000000001 and"),
        ("chef_seconds", "abc", "chef_seconds must be between 0.000000001 and 1,000,000,000 s"),
        ("pantry_rate", "inf", "pantry_rate must be between"),
        ("pantry_rate", "nan", "pantry_rate must be between"),
        ("tasks", "0", "tasks must be a whole number between 1 and 1,000,000,000,000, got"),
        ("kitchens", "100000", "kitchens must be a whole number between 1 and 4,096"),
        ("colour", "1", "unknown parameter 'colour'"),
    ],
)
def test_bad_values_are_one_clear_line(key: str, value: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        SCENARIOS["onions"].with_overrides({key: value})
    assert "\n" not in str(caught.value)


def test_values_are_exact() -> None:
    p = SCENARIOS["onions"].with_overrides({"launch_seconds": "0.1", "cooks": "1e3"})
    assert p.launch_seconds == Fraction(1, 10)
    assert p.cooks == 1000
    assert isinstance(p.cooks, int)


def test_python_values_are_checked_too() -> None:
    onions = SCENARIOS["onions"]
    assert onions.with_overrides({"slowdown": 2.5}).slowdown == Fraction(5, 2)
    for bad in (True, None, float("inf"), [1]):
        with pytest.raises(UsageError):
            onions.with_overrides({"slowdown": bad})


def test_settable_keys_depend_on_the_scenario() -> None:
    with pytest.raises(UsageError, match="slow-hallway does not let you set 'cooks'"):
        SCENARIOS["slow-hallway"].with_overrides({"cooks": "5"})
    with pytest.raises(UsageError, match="complex-recipe does not let you set 'tasks'"):
        SCENARIOS["complex-recipe"].with_overrides({"tasks": "5"})
    assert SCENARIOS["scaling"].with_overrides({"hallway_rate": "5"}).hallway_rate == 5
    assert SCENARIOS["complex-recipe"].with_overrides({"cooks": "5"}).cooks == 5


def test_assignments() -> None:
    assert parse_assignment("cooks=4") == ("cooks", 4)
    assert parse_assignment(" slowdown = 2.5") == ("slowdown", Fraction(5, 2))
    for bad in ("cooks", "=3"):
        with pytest.raises(UsageError, match="KEY=VALUE"):
            parse_assignment(bad)
    with pytest.raises(UsageError, match="cooks must be a whole number between 1 and"):
        parse_assignment("cooks=")
    with pytest.raises(UsageError, match="unknown parameter 'spice'"):
        parse_assignment("spice=3")


@pytest.mark.parametrize("key", list(SPECS))
def test_each_range_ends_are_accepted_and_just_outside_refused(key: str) -> None:
    spec = SPECS[key]
    onions = SCENARIOS["onions"]
    step = 1 if spec.whole else spec.low / 1000
    assert onions.params.replace({key: spec.low}).as_dict()[key] == float(spec.low)
    assert onions.params.replace({key: spec.high}).as_dict()[key] == float(spec.high)
    for outside in (spec.high + step, spec.low - step):
        if spec.zero and outside == 0:
            continue
        with pytest.raises(UsageError, match=f"{key} must be"):
            onions.params.replace({key: outside})
    if spec.zero:
        assert onions.params.replace({key: 0}).as_dict()[key] == 0


def test_unknown_scenario() -> None:
    with pytest.raises(UsageError, match=r"unknown scenario 'soup'.*onions"):
        get_scenario("soup")


def test_parameters_dict_has_every_reference_name() -> None:
    names = {
        "tasks", "chef_seconds", "pantry_units", "cooks", "slowdown", "launch_seconds",
        "pantry_rate", "chef_pantry_rate", "kitchens", "hallway_latency_seconds",
        "hallway_rate", "sync_units", "rounds",
    }  # fmt: skip
    assert set(SCENARIOS["onions"].params.as_dict()) == names
    multi = SCENARIOS["complex-recipe"].params.as_dict()
    assert set(multi) == (names - {"tasks", "chef_seconds", "pantry_units"}) | {"phases"}
