"""Each use of Textual's internals listed in ``gpu_tui.ui.widgets.textual_internals`` still holds.

A Textual upgrade that changes one fails here, with a message naming the internal (the entry
number is the module docstring's).
"""

from __future__ import annotations

import inspect
import re

from rich.segment import Segment
from rich.style import Style
from rich.terminal_theme import DEFAULT_TERMINAL_THEME
from rich.text import Text
from textual import _compositor, _styles_cache
from textual.app import App, ComposeResult
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Footer, Input

from gpu_tui.ui.monitor.rows import RowsWidget
from gpu_tui.ui.widgets import textual_internals as internals


def params(function: object) -> list[str]:
    return list(inspect.signature(function).parameters)  # type: ignore[arg-type]


def test_1_the_compositor_draws_widgets_through_render_lines() -> None:
    assert params(Widget.render_lines) == ["self", "crop"], (
        "Textual changed Widget.render_lines(crop): RowsWidget.render_lines and "
        "textual_internals.textual_lines must follow"
    )
    assert ".render_lines(" in inspect.getsource(_compositor), (
        "Textual's compositor no longer calls Widget.render_lines: RowsWidget's override is "
        "bypassed (textual_internals entry 1)"
    )


def test_2_render_lines_reads_the_line_filters_on_each_call() -> None:
    source = inspect.getsource(_styles_cache.StylesCache.render_widget)
    assert "widget.get_line_filters()" in source, (
        "StylesCache.render_widget no longer reads widget.get_line_filters(): "
        "textual_internals.unfiltered_lines no longer leaves the filters out (entry 2)"
    )


def test_3_row_effects_are_the_ones_plain_styles_knows() -> None:
    """The styles the styles cache reads per line: a new one may be an effect ``plain_styles``
    does not check."""
    source = inspect.getsource(_styles_cache.StylesCache.render_line)
    read = set(re.findall(r"styles\.([a-z_]+)", source))
    known = {*internals.ROW_EFFECTS, "border", "border_title_align", "border_subtitle_align"}
    known |= {"gutter", "has_rule"}
    assert read <= known, (
        f"StylesCache.render_line now reads styles {sorted(read - known)}: check whether "
        "textual_internals.plain_styles must rule it out (entry 3)"
    )
    assert "opacity=widget.opacity" in inspect.getsource(_styles_cache.StylesCache.render_widget)


class Shouting(LineFilter):
    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [Segment(text.upper(), style, control) for text, style, control in segments]


class Shouted(Widget):
    DEFAULT_CSS = "Shouted { height: 3; border: round red; background: blue; }"

    def render(self) -> Text:
        return Text("quiet")

    def get_line_filters(self) -> list[LineFilter]:
        return [Shouting()]


class Rows(RowsWidget):
    DEFAULT_CSS = """
    Rows { height: auto; border: round $primary; padding: 0 1; background: $surface;
           border-title-color: $accent; }
    """

    def build_rows(self, width: int, height: int) -> list[Text]:
        return [Text("util ", style="bold").append("██▌", style="green"), Text("mem 3 GiB")]


class Pair(App[None]):
    def compose(self) -> ComposeResult:
        yield Shouted()
        yield Rows()
        yield Footer()


def cells(strips: list[Strip]) -> list[list[tuple[str, Style | None]]]:
    return [[(char, seg.style) for seg in strip for char in seg.text] for strip in strips]


async def test_2_and_the_rows_draw_what_textual_draws() -> None:
    app = Pair()
    async with app.run_test(size=(40, 14)) as pilot:
        await pilot.pause()
        shouted = app.query_one(Shouted)
        line = Region(0, 1, shouted.outer_size.width, 1)
        assert "QUIET" in internals.textual_lines(shouted, line)[0].text
        assert "quiet" in internals.unfiltered_lines(shouted, line)[0].text, (
            "textual_internals.unfiltered_lines still applies the line filters (entry 2)"
        )
        assert "QUIET" in internals.textual_lines(shouted, line)[0].text  # nothing left behind

        rows = app.query_one(Rows)
        rows.border_title = "GPU 0"
        rows.update_rows()
        await pilot.pause()
        whole = Region(0, 0, *rows.outer_size)
        assert cells(rows.render_lines(whole)) == cells(internals.textual_lines(rows, whole)), (
            "RowsWidget.render_lines no longer draws what Textual's Widget.render_lines draws "
            "(textual_internals entries 1-4)"
        )

        strips = internals.screen_strips(app.screen)
        assert len(strips) == 14, "Screen._compositor.render_strips() changed (entry 7)"
        assert "GPU 0" in "".join(s.text for s in strips), "Compositor.render_strips (entry 7)"
        internals.screen_update(app.screen)  # Screen._on_timer_update (entry 7)


def test_4_textual_filters_change_one_style_at_a_time() -> None:
    background = Color(10, 20, 30)
    segments = [
        Segment("a", Style(color="#ff0000", bgcolor="#0000ff", bold=True)),
        Segment("b", Style(color="#c0a000", bgcolor="#101010", dim=True)),
        Segment("c", Style(color="#ffffff", bgcolor="#808080")),
    ]
    strip = Strip(segments)
    for kind in internals.STYLE_FILTERS:
        line_filter = kind() if kind.__name__ != "ANSIToTruecolor" else kind(DEFAULT_TERMINAL_THEME)
        finish = internals.style_filter([line_filter], background)
        whole = strip.apply_filter(line_filter, background)
        alone = [Segment(seg.text, finish(seg.style or Style.null())) for seg in segments]
        assert cells([whole]) == cells([Strip(alone)]), (
            f"textual.filter.{kind.__name__} no longer changes each segment's style by itself: "
            "take it out of textual_internals.STYLE_FILTERS (entry 4)"
        )


def test_5_the_footer_items_are_still_in_textual_widgets_footer() -> None:
    for kind in (internals.FooterKey, internals.FooterLabel, internals.KeyGroup):
        assert issubclass(kind, Widget), f"textual.widgets._footer.{kind.__name__} (entry 5)"
    assert "FooterKey(" in inspect.getsource(Footer.compose), (
        "Footer.compose no longer yields textual.widgets._footer.FooterKey (entry 5)"
    )


def test_6_input_turns_keys_into_text_in_on_key() -> None:
    handler = Input.__dict__.get("_on_key")
    assert handler is not None, "Input._on_key is gone: Field's override is not called (entry 6)"
    assert inspect.iscoroutinefunction(handler), "Input._on_key is no longer async (entry 6)"
    assert params(handler) == ["self", "event"], "Input._on_key(event) changed (entry 6)"


def test_7_the_screen_internals_tests_and_benchmarks_use() -> None:
    assert params(Screen._on_timer_update) == ["self"], "Screen._on_timer_update (entry 7)"
    assert params(_compositor.Compositor.render_strips)[:1] == ["self"], (
        "Compositor.render_strips (entry 7)"
    )


def test_8_the_linux_driver_writes_frames_through_its_file() -> None:
    from textual.drivers import linux_driver

    source = inspect.getsource(linux_driver.LinuxDriver.start_application_mode)
    assert "WriterThread(self._file)" in source, (
        "LinuxDriver no longer hands self._file to its WriterThread: HangUpSafeDriver's "
        "output is not used (entry 8)"
    )
