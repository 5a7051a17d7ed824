"""The race's result in words and figures, from the model's exact times (no Textual here)."""

from __future__ import annotations

from rich.text import Text

from gpu_tui.core.kitchen import model
from gpu_tui.core.kitchen.headline import Headline, winner
from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.core.units import format_seconds_and_long, format_times


def contenders(params: KitchenParams, head: Headline) -> str:
    """Who races whom in hardware: the chef is one CPU core, each kitchen one GPU."""
    k = params.kitchens
    if not head.title.startswith(("BRIGADE", "CHEF")):
        return "a kitchen = 1 GPU"
    return f"the brigade = {k} GPU{'s' if k > 1 else ''}, the chef = 1 CPU core"


def result_text(
    params: KitchenParams, head: Headline, comparison: str = "", *, hint: str | None = None
) -> Text:
    """The headline (its ratio first) and what it compares; the lesson (and the keys to try,
    ``hint``); both times; then ``comparison``, the scenario's real-hardware reading of the
    headline, if it has one."""
    chef, brigade = model.chef_seconds(params), model.brigade_seconds(params)
    text = Text.assemble(
        (f" {head.title} ", "reverse bold"), f"  {contenders(params, head)}\n", head.lesson
    )
    if hint:
        text.append(f" {hint}", "bold")
    chef_time, brigade_time = (format_seconds_and_long(float(t)) for t in (chef, brigade))
    times_line = f"chef {chef_time} · brigade {brigade_time}"
    who, ratio = winner(params)
    if not head.title.startswith(who):  # the headline compares something else: say this too
        times_line += (
            " · a tie" if who == "TIE" else f" · {who.lower()} {format_times(ratio)} faster"
        )
    text.append(f"\n{times_line}")
    if comparison:
        text.append(f"\n{comparison}")
    return text
