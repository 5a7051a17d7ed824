"""A widget drawn row by row (Textual's Line API): a tick repaints only the rows it changed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from gpu_tui.ui.widgets.textual_internals import (
    plain_styles,
    style_filter,
    textual_lines,
    unfiltered_lines,
)

_UNBUILT = Size(-1, -1)


def same(a: Text, b: Text) -> bool:
    """Whether two rows look the same (Rich's ``==`` ignores a Text's base style)."""
    return a.plain == b.plain and a.style == b.style and a.spans == b.spans


def _unchanged(style: Style) -> Style:
    return style


_UNSTYLED = Style()
"""What ``part`` gets for a component whose styles Textual has not resolved yet."""


class RowStyles:
    """The styles a widget's rows are drawn in: each row style put together on the widget's
    base style, then ``finish``ed (line filters applied), once, not for every segment."""

    def __init__(self, base: Style, finish: Callable[[Style], Style] = _unchanged) -> None:
        self.base = base
        self.finish = finish
        self.padding = finish(base)
        """Cells past the end of a row's text."""
        self.combined: dict[object, Style] = {}
        """Finished styles by the row style (or row and span styles) they came from."""


def row_segments(text: Text, styles: RowStyles, console: Console) -> list[Segment]:
    """``text`` as segments on ``styles.base``, finished: what ``Text.render`` and
    ``Strip.apply_style`` give (and the line filters), segment for segment, at a fraction of the
    cost for rows built here (spans in order, none overlapping; others take Rich's general path).

    ``styles`` remembers each style put together (a handful per widget), so a segment costs a
    dict lookup. Each tick repaints every row with a history graph (most of a big screen), so
    this is the pane's hottest loop.
    """
    plain = text.plain
    own_style = text.style
    get_style = console.get_style
    base, finish, combined = styles.base, styles.finish, styles.combined
    own = combined.get(own_style)
    if own is None:
        own = combined[own_style] = finish(base + get_style(own_style, default=Style.null()))
    segments: list[Segment] = []
    append = segments.append
    position = 0
    for start, end, style in text.spans:
        end = min(end, len(plain))
        if start < position or end < start:
            return [
                Segment(piece, finish(piece_style) if piece_style else piece_style)
                for piece, piece_style, _ in Segment.apply_style(text.render(console), base)
            ]
        if end == start:
            continue
        if start > position:
            append(Segment(plain[position:start], own))
        key = (own_style, style)
        span_style = combined.get(key)
        if span_style is None:
            span_style = get_style(own_style, default=Style.null()) + get_style(
                style, default=Style.null()
            )
            span_style = combined[key] = finish(base + span_style)
        append(Segment(plain[start:end], span_style))
        position = end
    if position < len(plain):
        append(Segment(plain[position:], own))
    return segments


@dataclass(frozen=True)
class Frame:
    """The border and padding Textual draws around each content row, for one widget size."""

    size: Size
    top: int
    """The first content row (rows above it are border and padding)."""
    bottom: int
    """The first row below the content."""
    left: tuple[Segment, ...]
    right: tuple[Segment, ...]


class RowsWidget(Widget):
    """Subclasses build their rows as Rich ``Text`` in ``build_rows``; this class draws them.

    Textual's ``render`` path turns the whole widget into strips again on every refresh (2–3 ms
    a widget, every second), although a tick mostly changes a few numbers. Here ``update_rows``
    compares the new rows with the shown ones and marks only the changed lines dirty; each row
    becomes a ``Strip`` once, when it is first drawn.
    """

    PART_PREFIX: ClassVar[str] = ""
    """Component classes are ``{PART_PREFIX}--{part}``."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rows: list[Text] = []
        self._strips: list[Strip | None] = []
        self._built = _UNBUILT
        """The content size the rows were built for; unbuilt after a style change."""
        self._parts: dict[str, Style] = {}
        self._styles: RowStyles | None = None
        """Row styles for ``render_line``: Textual applies the line filters after it."""
        self._finished: RowStyles | None = None
        """Row styles with the line filters applied (``render_lines``); None while a filter
        needs whole rows."""
        self._finished_edges: tuple[list[Segment], list[Segment]] = ([], [])
        """The frame's left and right edges with the line filters applied."""
        self._frame: Frame | None = None
        self._framed: dict[int, Strip] = {}
        """Content rows joined to their border and padding, by content row (``render_lines``)."""
        self._edges: dict[int, Strip] = {}
        """Rows above and below the content, by row, for ``_edge_titles`` (see ``_edge``)."""
        self._edge_titles: tuple[str | None, str | None] = (None, None)
        self._filters: tuple[LineFilter, ...] | None = None
        """The line filters ``_finished`` was made for; None: make it again."""

    def build_rows(self, width: int, height: int) -> list[Text]:
        """The rows to show in a content area of ``width`` × ``height`` cells."""
        raise NotImplementedError

    def part(self, name: str) -> Style:
        """A component style, resolved once: each CSS lookup costs ~0.3 ms, a frame needs dozens."""
        style = self._parts.get(name)
        if style is None:
            style = self.get_component_rich_style(f"{self.PART_PREFIX}--{name}", default=_UNSTYLED)
            if style is _UNSTYLED:  # asked before the first CSS pass: plain, and asked again
                return Style()  # when the styles arrive (``notify_style_update`` rebuilds)
            self._parts[name] = style
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        # A new theme or class: the rows hold resolved colours, so build them again.
        self._parts.clear()
        self._styles = None
        self._filters = None
        self._built = _UNBUILT
        self._frame = None
        self._framed.clear()
        self._edges.clear()
        self.refresh()

    @property
    def rows(self) -> list[Text]:
        """The rows as shown now."""
        self._ensure_built()
        return self._rows

    def render(self) -> Text:
        """Every row as one Text (for tests and text export); the screen uses ``render_line``."""
        return Text("\n").join(self.rows)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.build_rows(width, self.size.height))

    def update_rows(self) -> None:
        """Build the rows for the current size and repaint only those that changed."""
        size = self.size
        rows = self.build_rows(size.width, size.height)
        old, was_built = self._rows, self._built == size
        self._rows, self._built = rows, size
        if not was_built or len(rows) != len(old):
            self._strips = [None] * len(rows)
            self._framed.clear()
            self.refresh(layout=len(rows) != len(old))  # the row count is an auto height
            return
        changed = []
        for y, (new, shown) in enumerate(zip(rows, old, strict=True)):
            if not same(new, shown):
                self._strips[y] = None
                self._framed.pop(y, None)
                changed.append(y)
        if changed:
            self.refresh(*self._row_regions(changed))

    def _row_regions(self, rows: list[int]) -> list[Region]:
        """Regions to repaint for ``rows``: runs of neighbours as one, each the widget's whole
        width (padding and border too).

        Content-wide regions would leave the padding out, and Textual then re-cuts every
        repainted line of every widget around them before it reaches the terminal.
        """
        left = -self.content_offset.x  # regions are relative to the content area
        width = self.outer_size.width
        regions = []
        start = previous = rows[0]
        for y in [*rows[1:], -1]:
            if y != previous + 1:
                regions.append(Region(left, start, width, previous - start + 1))
                start = y
            previous = y
        return regions

    def _ensure_built(self) -> Size:
        size = self.size
        if self._built != size:
            self._rows = self.build_rows(size.width, size.height)
            self._strips = [None] * len(self._rows)
            self._framed.clear()
            self._built = size
        return size

    def render_line(self, y: int) -> Strip:
        width = self._ensure_built().width
        if y >= len(self._rows):
            return Strip.blank(width, self._row_styles().base)
        strip = self._strips[y]
        if strip is None:
            strip = self._strips[y] = Strip(self._segments(y, width, self._row_styles()), width)
        return strip

    def _row_styles(self) -> RowStyles:
        styles = self._styles
        if styles is None:  # walks every ancestor's styles: once per style change, not per line
            styles = self._styles = RowStyles(self.rich_style)
        return styles

    def _segments(self, y: int, width: int, styles: RowStyles) -> list[Segment]:
        """Row ``y`` (built) as segments exactly ``width`` cells wide, padded or cut."""
        if y >= len(self._rows):
            return [Segment(" " * width, styles.padding)]
        text = self._rows[y]
        segments = row_segments(text, styles, self.app.console)
        cells = text.cell_len
        if cells < width:
            segments.append(Segment(" " * (width - cells), styles.padding))
        elif cells > width:
            segments = Segment.adjust_line_length(segments, width, styles.padding)
        return segments

    # ---- to the screen --------------------------------------------------------------------
    def render_lines(self, crop: Region) -> list[Strip]:
        """The widget's rows for the compositor, as Textual's own path would draw them.

        Textual's styles cache puts the border and padding around each repainted row through a
        general path that costs some 25 µs a row, and a tick at 160×48 repaints about forty;
        each call also looks up the widget's colours and title styles again. Here the edges of
        the content rows, the same on every row, are cut once from a row Textual drew
        (``Frame``), each changed row is joined to them, and finished rows are kept until they
        change. Textual's own line filters change one style at a time, so they are applied once
        to each of the row styles and edges (``RowStyles``), not to every repainted row; other
        filters get whole rows. The rows above and below the content (title rule,
        borders) come from Textual's path, kept while the titles stay the same. Widgets with
        per-row effects such as opacity take Textual's path throughout. The snapshot tests hold
        the two paths to the same picture.
        """
        frame = self._current_frame()
        if frame is None:
            return textual_lines(self, crop)
        width = frame.size.width
        content_width = self._ensure_built().width
        filters = tuple(self.get_line_filters())
        if filters != self._filters:
            self._filters = filters
            self._framed.clear()
            self._edges.clear()
            self._finish(frame, filters)
        finished, (left, right) = self._finished, self._finished_edges
        framed = self._framed
        background: Color | None = None
        strips: list[Strip] = []
        for y in crop.line_range:
            if not frame.top <= y < frame.bottom:
                strips.append(self._edge(y, width))
                continue
            row = y - frame.top
            strip = framed.get(row)
            if strip is not None:
                strips.append(strip)
            elif finished is not None:  # the row's segments go straight into the framed row
                segments = self._segments(row, content_width, finished)
                strip = framed[row] = Strip([*left, *segments, *right], width)
                strips.append(strip)
            else:  # a filter that sees whole rows: each row through it
                segments = self._segments(row, content_width, self._row_styles())
                strip = Strip([*frame.left, *segments, *frame.right], width)
                if background is None:
                    background = self.background_colors[1]
                for line_filter in filters:
                    strip = strip.apply_filter(line_filter, background)
                framed[row] = strip
                strips.append(strip)
        if crop.x or crop.width != width:
            strips = [strip.crop(crop.x, crop.right) for strip in strips]
        return strips

    def _edge(self, y: int, width: int) -> Strip:
        """Row ``y`` above or below the content, as Textual draws it, kept while the titles
        stay the same (only the current titles' rows: a title can change every few seconds)."""
        titles = (self.border_title, self.border_subtitle)
        if titles != self._edge_titles:
            self._edge_titles = titles
            self._edges.clear()
        strip = self._edges.get(y)
        if strip is None:
            strip = self._edges[y] = textual_lines(self, Region(0, y, width, 1))[0]
        return strip

    def _finish(self, frame: Frame, filters: tuple[LineFilter, ...]) -> None:
        """Filter the row styles and the frame's edges once, when every filter changes one
        style at a time (Textual's own do); otherwise each row goes through the filters."""
        try:
            finish = style_filter(filters, self.background_colors[1])
        except ValueError:
            self._finished = None
            return
        self._finished = RowStyles(self._row_styles().base, finish)
        self._finished_edges = (
            [Segment(text, finish(style) if style else style) for text, style, _ in frame.left],
            [Segment(text, finish(style) if style else style) for text, style, _ in frame.right],
        )

    def _current_frame(self) -> Frame | None:
        """The edges for the widget's size now, cut from a row Textual draws (once per size or
        style); None when the rows need Textual's own path."""
        size = self.outer_size
        frame = self._frame
        if not plain_styles(self):
            return None
        if frame is not None and frame.size == size:
            return frame
        gutter = self.styles.gutter
        top, bottom = gutter.top, size.height - gutter.bottom
        if bottom <= top or size.width <= gutter.width:
            return None
        # the edges without filters: ``_finish`` filters them (or whole rows get the filters)
        drawn = unfiltered_lines(self, Region(0, top, size.width, 1))[0]
        left = tuple(drawn.crop(0, gutter.left))
        right = tuple(drawn.crop(size.width - gutter.right, size.width))
        self._frame = Frame(size, top, bottom, left, right)
        self._framed.clear()
        self._edges.clear()
        self._filters = None  # the new edges are filtered on the next draw
        return self._frame
