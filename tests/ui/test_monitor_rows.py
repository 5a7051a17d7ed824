"""RowsWidget: a tick repaints only the rows whose text or colour changed."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import constants
from textual.app import App, ComposeResult
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from gpu_tui.ui.monitor.rows import RowStyles, RowsWidget, row_segments


class Rows(RowsWidget):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[Text] = [Text("a"), Text("b"), Text("c")]

    def build_rows(self, width: int, height: int) -> list[Text]:
        return [text.copy() for text in self.texts]


class RowsApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Rows()


async def test_only_changed_rows_are_marked_dirty(monkeypatch: pytest.MonkeyPatch) -> None:
    app = RowsApp()
    async with app.run_test(size=(20, 5)) as pilot:
        rows = app.query_one(Rows)
        rows.update_rows()
        await pilot.pause()
        assert rows.render_line(1).text == "b".ljust(20)
        calls: list[tuple[tuple[Region, ...], dict[str, Any]]] = []

        def refresh(*regions: Region, **options: Any) -> Rows:
            calls.append((regions, options))
            return rows

        monkeypatch.setattr(rows, "refresh", refresh)
        rows.update_rows()
        assert calls == []  # the same rows: nothing to repaint
        rows.texts[1] = Text("B")
        rows.update_rows()
        assert calls == [((Region(0, 1, 20, 1),), {})]
        rows.texts[2] = Text("c", style="bold")  # same letters, new look
        rows.update_rows()
        assert calls[-1] == ((Region(0, 2, 20, 1),), {})
        rows.texts.append(Text("d"))  # a new row count changes an auto height
        rows.update_rows()
        assert calls[-1] == ((), {"layout": True})
        assert rows.render().plain == "a\nB\nc\nd"


def _texts() -> list[Text]:
    gap = Text("CPU  ", style="dim")
    gap.append("████", style="blue").append("──", style="grey50").append("  42%")
    gap.append("▁▂▃", style="yellow")
    overlapping = Text("abcdef", style="italic")
    overlapping.stylize("bold", 0, 4)
    overlapping.stylize("red", 2, 6)  # overlaps the bold span: Rich's general path
    empty_span = Text("ab")
    empty_span.stylize("bold", 1, 1)
    return [Text("plain"), Text("styled", style="bold"), gap, overlapping, empty_span, Text("")]


@pytest.mark.parametrize("text", _texts(), ids=lambda text: text.plain or "empty")
def test_row_segments_match_rich(text: Text) -> None:
    """The fast path paints exactly what Text.render + Strip.apply_style paint."""
    console = Console()
    base = Style.parse("white on black")
    if text.spans:
        expected = list(Segment.apply_style(text.render(console), base))
    else:  # Rich drops the base style of a Text without spans
        expected = [Segment(text.plain, base + console.get_style(text.style))]
    assert [s for s in row_segments(text, RowStyles(base), console) if s.text] == [
        s for s in expected if s.text
    ]


# --- the widget's own path to the screen against Textual's ------------------------------------


class Boxed(Rows):
    DEFAULT_CSS = """
    Boxed { border: round $primary; padding: 0 2; height: 7; border-title-color: $accent; }
    Boxed.-faint { opacity: 60%; }
    Boxed.-warm { border: round $warning; }
    """


class BoxedApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Boxed()


def cells(strip: Strip) -> list[tuple[str, Style | None]]:
    """A strip cell by cell: two paths may cut the same picture into different segments."""
    return [(char, segment.style) for segment in strip for char in segment.text]


def textual_path(widget: Widget, crop: Region) -> list[list[tuple[str, Style | None]]]:
    return [cells(strip) for strip in Widget.render_lines(widget, crop)]


def own_path(widget: Widget, crop: Region) -> list[list[tuple[str, Style | None]]]:
    return [cells(strip) for strip in widget.render_lines(crop)]


async def test_rows_reach_the_screen_as_textual_would_draw_them() -> None:
    app = BoxedApp()
    async with app.run_test(size=(30, 9)) as pilot:
        rows = app.query_one(Boxed)
        rows.border_title = "GPU 0"
        rows.texts = [Text("idle", style="bold"), Text("b"), Text("c")]
        rows.update_rows()
        await pilot.pause()
        width, height = rows.outer_size
        whole = Region(0, 0, width, height)
        assert rows._current_frame() is not None  # the widget's own path
        assert own_path(rows, whole) == textual_path(rows, whole)

        rows.texts[1] = Text("busy ", style="red").append("██▌", style="green")
        rows.update_rows()  # one changed row: only it is joined to the edges again
        assert own_path(rows, whole) == textual_path(rows, whole)
        assert own_path(rows, Region(3, 1, 9, 4)) == textual_path(rows, Region(3, 1, 9, 4))

        rows.texts[2] = Text("a row that runs on past the edge", style="blue")
        rows.update_rows()  # cut at the content edge, as Textual cuts it
        assert own_path(rows, whole) == textual_path(rows, whole)

        rows.border_title = "GPU 0 · LOST"  # the title rule is Textual's, kept per title
        assert own_path(rows, whole) == textual_path(rows, whole)
        assert "LOST" in "".join(char for char, _ in own_path(rows, whole)[0])

        rows.add_class("-warm")  # new border colour: the edges are cut again
        await pilot.pause()
        assert own_path(rows, whole) == textual_path(rows, whole)

        app.theme = "textual-light"  # every colour changes: rows and edges are drawn afresh
        await pilot.pause()
        assert rows._current_frame() is not None
        assert own_path(rows, whole) == textual_path(rows, whole)

        rows.add_class("-faint")  # opacity is drawn per row: Textual's path throughout
        await pilot.pause()
        assert rows._current_frame() is None
        assert own_path(rows, whole) == textual_path(rows, whole)


async def test_a_title_that_keeps_changing_keeps_one_title_rule() -> None:
    app = BoxedApp()
    async with app.run_test(size=(30, 9)) as pilot:
        rows = app.query_one(Boxed)
        rows.update_rows()
        await pilot.pause()
        whole = Region(0, 0, *rows.outer_size)
        for load in range(50):  # the CPU panel's title carries the load average
            rows.border_title = f"load {load / 100:.2f}"
            assert own_path(rows, whole) == textual_path(rows, whole)
        assert len(rows._edges) == 2  # the top and bottom rules for the current title only


class Shouting(LineFilter):
    """A filter that needs the whole row (upper-cases the row's text): rows go through it."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [Segment(text.upper(), style, control) for text, style, control in segments]


class ShoutingBoxed(Boxed):
    def get_line_filters(self) -> list[LineFilter]:
        return [*super().get_line_filters(), Shouting()]


class ShoutingApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ShoutingBoxed()


@pytest.mark.parametrize("setting", ["truecolor", "ansi", "no-color", "dim", "whole-row"])
async def test_line_filters_reach_the_rows_as_textual_applies_them(
    setting: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's own filters are applied to the row styles once; any other filter to each row.
    Either way the screen gets what Textual's path gives."""
    if setting == "no-color":
        monkeypatch.setenv("NO_COLOR", "1")  # Textual's Monochrome filter
    if setting == "dim":
        monkeypatch.setattr(constants, "FILTERS", "dim")  # TEXTUAL_FILTERS=dim: DimFilter
    app = ShoutingApp() if setting == "whole-row" else BoxedApp()
    if setting == "ansi":
        app.ansi_color = True  # the terminal's own palette: no ANSI-to-truecolor filter
    async with app.run_test(size=(30, 9)) as pilot:
        rows = app.query_one(Boxed)
        rows.border_title = "GPU 0"
        rows.texts = [
            Text("idle", style="dim"),
            Text("busy ", style="red").append("██▌", style="green on blue"),
            Text("warm", style="bold yellow").append(" dim", style="dim"),
        ]
        rows.update_rows()
        await pilot.pause()
        whole = Region(0, 0, *rows.outer_size)
        assert rows._current_frame() is not None
        assert own_path(rows, whole) == textual_path(rows, whole)
        rows.texts[0] = Text("IDLE", style="italic red")
        rows.update_rows()
        assert own_path(rows, whole) == textual_path(rows, whole)
        shown = "".join(char for row in own_path(rows, whole) for char, _ in row)
        assert ("BUSY" in shown) == (setting == "whole-row")
