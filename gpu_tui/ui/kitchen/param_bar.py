"""The row of live parameters under the race; the selected one is highlighted."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.ui.kitchen.knobs import Knob, current, show_value


class ParamBar(Static):
    """Display only: the pane owns the selection and the values and calls ``show``."""

    COMPONENT_CLASSES = {"param-bar--selected", "param-bar--label", "param-bar--hint"}  # noqa: RUF012

    _last: tuple[tuple[Knob, ...], KitchenParams, int] | None = None

    def on_resize(self) -> None:
        if self._last is not None:
            self.show(*self._last)

    def show(self, knobs: tuple[Knob, ...], params: KitchenParams, selected: int) -> None:
        self._last = (knobs, params, selected)
        label = self.get_component_rich_style("param-bar--label")
        chosen = self.get_component_rich_style("param-bar--selected")
        pieces = []
        for i, knob in enumerate(knobs):
            value = f"{knob.label} {show_value(knob, current(params, knob.key))}"
            pieces.append(
                Text(f"◀ {value} ▶", chosen) if i == selected else Text(f"  {value}  ", label)
            )
        pieces.append(
            Text(
                "  ↑↓ pick · ←→ change · m measure for real",
                self.get_component_rich_style("param-bar--hint"),
            )
        )
        # Wrapped here, between knobs: Rich would also break inside one ("pantry / 2,000/s").
        width = max(20, self.size.width - 2)
        text, line = Text(), 0
        for piece in pieces:
            if line and line + piece.cell_len > width:
                text.append("\n")
                line = 0
            text.append_text(piece)
            line += piece.cell_len
        self.update(text)
