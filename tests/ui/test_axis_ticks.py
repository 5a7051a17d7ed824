"""Axis labels that stand evenly spaced: round linear steps from 0, and log axes whose labels are
an equal number of decades apart and span the data."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest

from gpu_tui.ui.widgets.axis_ticks import linear_ticks, spanning_log_ticks


@pytest.mark.parametrize(
    ("top", "most", "ticks"),
    [
        (3.77, 3, [0, 2, 4]),
        (3.77, 5, [0, 1, 2, 3, 4]),
        (1.0, 3, [0, 0.5, 1]),
        (130, 5, [0, 50, 100, 150]),
        (100, 5, [0, 25, 50, 75, 100]),
    ],
)
def test_linear_ticks_are_round_steps_from_zero_past_the_top(
    top: float, most: int, ticks: list[float]
) -> None:
    assert linear_ticks(top, most) == pytest.approx(ticks)


def test_no_linear_ticks_for_an_empty_axis() -> None:
    assert linear_ticks(0) == []


@pytest.mark.parametrize(
    ("low", "high", "most"), [(0.95, 1e6, 3), (0.95, 1e6, 8), (1, 2e7, 4), (5, 50, 3), (3, 3, 4)]
)
def test_log_labels_are_equal_decades_apart_and_span_the_data(
    low: float, high: float, most: int
) -> None:
    ticks, labels = spanning_log_ticks(low, high, most)
    assert 2 <= len(ticks) <= max(2, most)
    assert ticks[0] <= low
    assert ticks[-1] >= high
    gaps = {round(math.log10(b) - math.log10(a), 6) for a, b in pairwise(ticks)}
    assert len(gaps) == 1
    assert len(labels) == len(ticks)


def test_log_labels_read_as_people_write_them() -> None:
    assert spanning_log_ticks(0.95, 1e6, 3)[1] == ["0.1", "1k", "10M"]
