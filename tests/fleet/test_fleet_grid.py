"""The grid's words for how long ago a node was scraped."""

from __future__ import annotations

import pytest

from gpu_tui.core.fleet.grid import seen_text


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (None, "never"),
        (0.4, "<15s"),
        (14.9, "<15s"),
        (15, "<30s"),
        (45, "<1m"),
        (61, "61s"),
        (240, "4m"),
        (7200, "2h"),
    ],
)
def test_a_fresh_node_reads_in_steps_and_a_late_one_by_its_age(
    seconds: float | None, words: str
) -> None:
    assert seen_text(seconds) == words
