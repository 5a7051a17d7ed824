"""Containers that give their background as blank strips draw what Textual's path draws."""

from __future__ import annotations

from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import Container
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from gpu_tui.ui.widgets.plain_container import PlainContainer, background_only

CSS = """
#plain, #reference { height: 6; background: $panel; padding: 0 1; }
.-boxed { border: round $primary; }
.-tinted { tint: red 30%; }
"""


class PairApp(App[None]):
    CSS = CSS

    def compose(self) -> ComposeResult:
        yield PlainContainer(Static("in the plain one"), id="plain")
        yield Container(Static("in the reference"), id="reference")


def cells(strips: list[Strip]) -> list[list[tuple[str, Style | None]]]:
    """What each cell shows: a blank cell's text colour cannot be seen, so it is left out."""
    return [
        [
            (char, Style(bgcolor=seg.style.bgcolor) if char == " " and seg.style else seg.style)
            for seg in strip
            for char in seg.text
        ]
        for strip in strips
    ]


async def test_a_plain_container_draws_what_a_container_draws() -> None:
    app = PairApp()
    async with app.run_test(size=(30, 14)) as pilot:
        plain, reference = app.query_one("#plain"), app.query_one("#reference")
        for classes in ("", "-boxed", "-tinted"):
            for widget in (plain, reference):
                widget.set_classes(classes)
            await pilot.pause()
            whole = Region(0, 0, *plain.outer_size)
            assert background_only(plain) == (classes == "")
            assert cells(plain.render_lines(whole)) == cells(Widget.render_lines(plain, whole))
            assert cells(plain.render_lines(whole)) == cells(reference.render_lines(whole))
            if classes == "-boxed":
                assert cells(plain.render_lines(whole))[0][0][0] == "╭"
