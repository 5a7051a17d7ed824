"""The pane's top line: scenario, play state, speed, fast-forward and autoplay, in one row."""

from __future__ import annotations

from rich.text import Text

from gpu_tui.core.kitchen.scenarios import SCENARIOS, Scenario
from gpu_tui.ui.kitchen.playback import Playback
from gpu_tui.ui.kitchen.result import ratio_text


def top_line(scenario: Scenario, pb: Playback, *, autoplay: bool) -> Text:
    names = list(SCENARIOS)
    state = "■ finished" if pb.finished else "▶ playing" if pb.playing else "❚❚ paused"
    rate = pb.schedule.rate(pb.t) * pb.speed
    text = Text.assemble(
        (f" {scenario.name} ", "reverse bold"),
        f" {scenario.title}  ",
        (f"{names.index(scenario.name) + 1}/{len(names)}", "dim"),
        "   ",
        (state, "bold"),
        f"  ×{pb.speed:g}  1 s = {ratio_text(rate, '')} model s",
    )
    if pb.schedule.fast_forward > 1 and pb.t >= pb.schedule.split and not pb.finished:
        text.append(f"  »» fast-forward ×{pb.schedule.fast_forward:,.0f}", "bold")
    if autoplay:
        text.append("   AUTOPLAY · any key stops", "bold reverse")
    return text
