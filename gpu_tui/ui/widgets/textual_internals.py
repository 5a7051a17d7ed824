"""Every use gpu-tui makes of Textual's internals, in one place (written against Textual 8.2).

Widgets call the functions here rather than reaching into Textual themselves, and
``tests/ui/test_textual_internals.py`` checks each entry below, naming it when a Textual upgrade
changes it. The list, with why each is used and what breaks if Textual changes it:

1. ``Widget.render_lines(crop)``, the method Textual's compositor calls for the lines of each
   widget it repaints (the documented Line API is ``render_line``; ``render_lines`` wraps it in
   the border, padding and effects through ``Widget._styles_cache``). ``RowsWidget``
   overrides it to save the Monitor CPU; ``textual_lines`` calls Textual's own. If the
   compositor stops calling it the override is bypassed (correct, only slower); if its
   signature changes, drawing fails.
2. ``Widget.render_lines`` reads ``widget.get_line_filters()`` on every call and applies the
   filters last, to whole lines. ``unfiltered_lines`` relies on that to draw a line without the
   filters (``RowsWidget`` cuts its border edges from it and filters them itself). If the
   filters are read elsewhere, edges come out filtered twice or not at all.
3. The effects the styles cache applies per line: widget opacity, text opacity, tint, outline
   and hatch (``ROW_EFFECTS``; also link hover styles, which the Monitor's rows never have).
   ``plain_styles`` says whether a widget has none of them; only then do the overrides take
   their shortcuts. If Textual adds an effect, the shortcuts would draw without it.
4. Textual's own line filters (``STYLE_FILTERS``) change each segment's style by itself,
   whatever the segments around it: ``style_filter`` applies them to a handful of styles once
   instead of to every repainted line. A filter that starts looking at whole lines would be
   applied wrongly.
5. ``textual.widgets._footer``: ``FooterKey``, ``FooterLabel`` and ``KeyGroup``, the footer's
   items, not exported by name; ``KeysFooter`` sorts them to fit its width. A rename breaks the
   import; a new kind of item is kept whole, never cut.
6. ``Input._on_key``, the handler that turns a key into text: ``Field`` overrides it to decide
   first whether a key is text or a binding. If it is renamed, typing in a field can trigger a
   binding again.
7. ``Screen._compositor.render_strips()`` (what the terminal shows, for tests) and
   ``Screen._on_timer_update`` (the screen's repaint pass, timed by ``scripts/bench_tick.py``):
   ``screen_strips`` and ``screen_update``. Only tests and benchmarks break.
8. ``LinuxDriver._file``, the stream the driver hands its writer thread when the app starts:
   ``gpu_tui.ui.terminal_driver.HangUpSafeDriver`` replaces it so that a hung-up terminal does
   not end that thread. If it is renamed, the replacement is not used, and an app whose
   terminal hangs up can block instead of exiting.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import ANSIToTruecolor, DimFilter, LineFilter, Monochrome, NoColor
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets._footer import FooterKey, FooterLabel, KeyGroup

__all__ = [
    "ROW_EFFECTS",
    "STYLE_FILTERS",
    "FooterKey",
    "FooterLabel",
    "KeyGroup",
    "plain_styles",
    "screen_strips",
    "screen_update",
    "style_filter",
    "textual_lines",
    "unfiltered_lines",
]

ROW_EFFECTS = ("opacity", "text_opacity", "tint", "outline", "hatch")
"""The styles Textual's styles cache applies line by line (entry 3): ``plain_styles`` checks
each. The test compares this with the names the styles cache reads."""

STYLE_FILTERS = (ANSIToTruecolor, DimFilter, Monochrome, NoColor)
"""Textual's own line filters: each changes every segment's style by itself (entry 4)."""


def textual_lines(widget: Widget, crop: Region) -> list[Strip]:
    """The widget's lines inside ``crop`` as Textual draws them (entry 1), whatever the
    widget's class overrides."""
    return Widget.render_lines(widget, crop)


def _no_filters() -> Sequence[LineFilter]:
    return ()


def unfiltered_lines(widget: Widget, crop: Region) -> list[Strip]:
    """``textual_lines`` without the line filters (entry 2): while it draws, the widget's
    ``get_line_filters`` is shadowed by one that gives none."""
    setattr(widget, "get_line_filters", _no_filters)  # noqa: B010 (a method, shadowed)
    try:
        return Widget.render_lines(widget, crop)
    finally:
        delattr(widget, "get_line_filters")


def plain_styles(widget: Widget) -> bool:
    """Whether Textual applies none of its ``ROW_EFFECTS`` to the widget's lines (entry 3):
    each changes a line in a way that depends on the line."""
    styles = widget.styles
    return (
        widget.opacity == 1
        and styles.text_opacity == 1
        and not styles.tint.a
        and not any(edge for edge, _ in styles.outline)
        and not (styles.has_rule("hatch") and styles.hatch[0] != " ")
    )


def _unchanged(style: Style) -> Style:
    return style


def style_filter(filters: Sequence[LineFilter], background: Color) -> Callable[[Style], Style]:
    """``filters`` as a change of one style, when they are all ``STYLE_FILTERS`` (entry 4);
    else ValueError (a filter of another kind may look at a whole line)."""
    if not all(type(line_filter) in STYLE_FILTERS for line_filter in filters):
        raise ValueError("only Textual's own line filters change one style at a time")
    if not filters:
        return _unchanged

    def finish(style: Style) -> Style:
        segments = [Segment(" ", style)]
        for line_filter in filters:
            segments = line_filter.apply(segments, background)
        return segments[0].style or Style.null()

    return finish


def screen_strips(screen: Screen[object]) -> list[Strip]:
    """What the terminal shows for ``screen``, line by line (entry 7; tests)."""
    return screen._compositor.render_strips()


def screen_update(screen: Screen[object]) -> None:
    """The screen's repaint pass, as its update timer runs it (entry 7; benchmarks)."""
    screen._on_timer_update()
