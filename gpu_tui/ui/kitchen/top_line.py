"""The pane's top line: scenario, play state, speed, fast-forward and autoplay, in one row.

It must fit the width it gets: what matters least (the title, then the position) gives way
first, and a long notice has a short form, so nothing is ever cut at the right edge.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text

from gpu_tui.core.kitchen.scenarios import SCENARIOS, Scenario
from gpu_tui.core.units import format_number
from gpu_tui.ui.kitchen.playback import Playback


@dataclass(frozen=True)
class Piece:
    """Forms from longest to shortest ("" may be the last: the piece can go)."""

    forms: tuple[str, ...]
    style: str = ""
    rank: int = 0  # lower ranks keep their long form longest


def fit(pieces: list[Piece], width: int) -> Text:
    """The longest forms that fit ``width``, giving way in rank order, then in display order."""

    def cells(choice: list[int]) -> int:
        return sum(cell_len(p.forms[j]) for p, j in zip(pieces, choice, strict=True))

    chosen = [len(p.forms) - 1 for p in pieces]  # start from the shortest of each
    for i in sorted(range(len(pieces)), key=lambda i: pieces[i].rank):
        for j in range(len(pieces[i].forms)):
            trial = [*chosen[:i], j, *chosen[i + 1 :]]
            if cells(trial) <= width:
                chosen = trial
                break
    text = Text()
    for piece, j in zip(pieces, chosen, strict=True):
        text.append(piece.forms[j], piece.style)
    return text


def top_line(
    scenario: Scenario,
    pb: Playback,
    *,
    autoplay: bool,
    width: int = 1000,
    title: str | None = None,
) -> Text:
    """The scenario's name and ``title`` (its own unless given), where the race is, its speed."""
    names = list(SCENARIOS)
    state = "■ finished" if pb.finished else "▶ playing" if pb.playing else "❚❚ paused"
    rate = format_number(pb.schedule.rate(pb.t) * pb.speed)
    pieces = [
        Piece((f" {scenario.name} ",), "reverse bold"),
        Piece((f" {scenario.title if title is None else title}", ""), rank=5),
        Piece((f"  {names.index(scenario.name) + 1}/{len(names)}", ""), "dim", rank=4),
        Piece((f"   {state}",), "bold"),
        Piece((f"  speed ×{pb.speed:g}", f"  ×{pb.speed:g}"), rank=2),
        Piece((f"  1 s = {rate} model s", f"  1 s = {rate}"), rank=3),
    ]
    if pb.schedule.fast_forward > 1 and pb.t >= pb.schedule.split and not pb.finished:
        ff = f"×{pb.schedule.fast_forward:,.0f}"
        pieces.append(Piece((f"  »» fast-forward {ff}", f"  »» {ff}"), "bold", rank=1))
    if autoplay:
        pieces.append(Piece(("   AUTOPLAY · any key stops", "  AUTOPLAY"), "bold reverse", 2))
    return fit(pieces, width)
