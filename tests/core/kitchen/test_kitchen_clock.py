"""The two big clocks: one unit per race, readable on both sides, at every knob's ends."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gpu_tui.core.kitchen import model
from gpu_tui.core.kitchen.clock import RaceClock, race_clock
from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.core.kitchen.scenarios import SCENARIOS, Scenario
from gpu_tui.ui.kitchen.knobs import knobs_for

CHEF_SIDE = 26  # the chef's box at 80 columns: 30 wide, less its border and padding
DIGIT, MARK = 3, 1  # cells of one big digit, and of "," or "." (Textual's Digits)


def digits_cells(text: str) -> int:
    return sum(DIGIT if c.isdigit() else MARK for c in text)


def ends(params: KitchenParams) -> tuple[float, float]:
    return float(model.chef_seconds(params)), float(model.brigade_seconds(params))


@pytest.mark.parametrize(
    ("scenario", "unit", "chef", "brigade"),
    [
        ("onions", "seconds", "20,000", "20.0"),  # the 1,000× is in the digits themselves
        ("complex-recipe", "seconds", "1,900", "9,160"),
        ("pantry-bound", "seconds", "533.3", "81.0"),
        ("slow-hallway", "minutes", "3,333.3", "25.5"),  # 200,000 s would not fit at 80 cols
        ("scaling", "seconds", "32,768", "70.9"),
    ],
)
def test_each_scenario_counts_both_clocks_in_one_unit(
    scenario: str, unit: str, chef: str, brigade: str
) -> None:
    chef_end, brigade_end = ends(SCENARIOS[scenario].params)
    clock = race_clock(chef_end, brigade_end)
    assert clock.unit == unit
    assert (clock.text(chef_end), clock.text(brigade_end)) == (chef, brigade)


def test_a_running_clock_shows_at_most_five_digits() -> None:
    clock = RaceClock("seconds", 1.0, 4)
    shown = [clock.text(s) for s in (0, 0.00123, 1.23456, 12.3456, 123.456, 1234.56, 99_999.4)]
    assert shown == ["0.0000", "0.0012", "1.2346", "12.346", "123.46", "1,234.6", "99,999"]
    assert race_clock(0, 0).text(0) == "0"


def test_the_unit_is_the_smallest_that_keeps_the_slower_side_under_100000() -> None:
    day, year = 86_400.0, 365.25 * 86_400.0
    assert race_clock(99_999, 1).unit == "seconds"
    assert race_clock(100_000, 1).unit == "minutes"
    assert race_clock(100_000 * 3600, 1).unit == "days"
    assert race_clock(100_000 * day, 1).unit == "years"
    assert race_clock(10**6 * year, 1).unit == "years"  # past the last unit: still years
    assert race_clock(2e9, 200).decimals == 4  # 0.0023 days: the faster side is not "0"


def knob_corners(scenario: Scenario) -> list[KitchenParams]:
    """The scenario's parameters with each knob at each end, and all knobs at one end."""
    out = [scenario.params]
    for end in ("minimum", "maximum"):
        every = {}
        for knob in knobs_for(scenario):
            value = getattr(knob, end) if end == "maximum" or not knob.zero else Fraction(0)
            every[knob.key] = value
            out.append(scenario.params.replace({knob.key: value}))
        out.append(scenario.params.replace(every))
    return out


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_at_every_knob_end_both_clocks_fit_the_chef_side_and_never_read_zero(name: str) -> None:
    assert knobs_for(SCENARIOS[name]), f"{name}: there must be knobs to turn to their ends"
    for params in knob_corners(SCENARIOS[name]):
        chef_end, brigade_end = ends(params)
        clock = race_clock(chef_end, brigade_end)
        for end in (chef_end, brigade_end):
            for t in (end, end / 3, end * 0.999):  # the finish, and on the way there
                text = clock.text(t)
                # the digits and the unit beside them ("model / seconds") fit at 80 columns
                assert digits_cells(text) + 1 + len(clock.unit) <= CHEF_SIDE, (params, text)
            assert any(c in "123456789" for c in clock.text(end)), (name, params, end)
