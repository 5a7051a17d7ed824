"""The race's result in words and figures, from the model's exact times (no Textual here)."""

from __future__ import annotations

from rich.text import Text

from gpu_tui.core.kitchen import model
from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.core.kitchen.report import duration, times


def ratio_text(value: float, suffix: str) -> str:
    """Whole numbers once big (1,998), three figures below (2.5): readable at a glance."""
    return f"{value:,.0f}{suffix}" if value >= 100 else f"{value:.3g}{suffix}"


def result_ratio(params: KitchenParams) -> tuple[str, float]:
    """Who wins and by how much (≥ 1): the chef's time over the brigade's, or the other way."""
    chef, brigade = model.chef_seconds(params), model.brigade_seconds(params)
    return ("BRIGADE", float(chef / brigade)) if brigade < chef else ("CHEF", float(brigade / chef))


def contenders(params: KitchenParams) -> str:
    """Who races whom in hardware: the chef is one CPU core, each kitchen one GPU."""
    k = params.kitchens
    return f"chef = 1 CPU core, brigade = {k} GPU{'s' if k > 1 else ''}"


def result_text(params: KitchenParams, comparison: str = "") -> Text:
    """The winner, the speed-up and what it compares; both times and what else the model says;
    then ``comparison``, the scenario's real-hardware reading of the headline, if it has one."""
    chef, brigade = model.chef_seconds(params), model.brigade_seconds(params)
    winner, ratio = result_ratio(params)
    line = Text.assemble(
        (f" {winner} WINS ", "reverse bold"),
        (f" {times(ratio)} faster", "bold"),
        f" · {contenders(params)}",
        f"\nchef {duration(float(chef))} · brigade {duration(float(brigade))}",
    )
    if not params.single_phase:
        line.append(f" · chef + brigade {times(float(chef / model.hybrid_seconds(params)))}")
    if params.kitchens > 1:
        line.append(f" · best {model.best_kitchens(params).kitchens} kitchens")
    if comparison:
        line.append(f"\n{comparison}")
    return line
