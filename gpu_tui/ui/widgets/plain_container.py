"""Containers that draw nothing of their own: only their children reach the screen.

Textual's compositor renders every widget whose parent's area meets a repainted row, whole,
on every repaint: the screen and each container behind the Monitor's rows would go through
their styles cache line by line (a filter and a crop per line) each second. The widgets here
give their background as one blank strip instead whenever that is all they show.
"""

from __future__ import annotations

from textual.containers import Container
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget


def plain_styles(widget: Widget) -> bool:
    """Whether Textual applies no effect of its own to the widget's rows: no opacity, tint,
    outline or hatch (each changes a row in a way that depends on the row)."""
    styles = widget.styles
    return (
        widget.opacity == 1
        and styles.text_opacity == 1
        and not styles.tint.a
        and not any(edge for edge, _ in styles.outline)
        and not (styles.has_rule("hatch") and styles.hatch[0] != " ")
    )


def background_only(widget: Widget) -> bool:
    """Whether the widget shows nothing but its background colour: no border and no effect."""
    return not any(edge for edge, _ in widget.styles.border) and plain_styles(widget)


class BackgroundOnly(Widget):
    """Draws its lines as blank strips in its own colours while it has no border or effect
    (Textual's ``BLANK``, decided per call: some layouts box a container, others do not)."""

    def render_lines(self, crop: Region) -> list[Strip]:
        if background_only(self):
            return [Strip.blank(crop.width, self.visual_style.rich_style)] * crop.height
        return super().render_lines(crop)


class PlainContainer(BackgroundOnly, Container):
    """For layout; boxed only where the stylesheet gives it a border."""


class PlainScreen(BackgroundOnly, Screen[None]):
    """The app's screen: the bars at the top and bottom and the pane shown cover it."""
