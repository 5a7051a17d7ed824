"""The row of live parameters under the race; the selected one is highlighted."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.ui.kitchen.knobs import Knob, current, show_value


class ParamBar(Static):
    """Display only: the pane owns the selection and the values and calls ``show``."""

    COMPONENT_CLASSES = {"param-bar--selected", "param-bar--label", "param-bar--hint"}  # noqa: RUF012

    def show(self, knobs: tuple[Knob, ...], params: KitchenParams, selected: int) -> None:
        label = self.get_component_rich_style("param-bar--label")
        chosen = self.get_component_rich_style("param-bar--selected")
        text = Text(no_wrap=False)
        for i, knob in enumerate(knobs):
            if i:
                text.append("  ")
            # No-break spaces: a knob never wraps across lines at 80 columns.
            value = f" {knob.label} {show_value(knob, current(params, knob.key))} ".replace(
                " ", "\u00a0"
            )
            if i == selected:
                text.append(f"◀{value}▶", chosen)
            else:
                text.append(value, label)
        hint = "  ↑↓\u00a0pick\u00a0·\u00a0←→\u00a0change"
        text.append(hint, self.get_component_rich_style("param-bar--hint"))
        self.update(text)
