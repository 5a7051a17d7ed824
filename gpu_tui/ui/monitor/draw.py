"""Fixed-scale bars, history sparklines and number formats for the Monitor pane (pure text)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from rich.style import Style
from rich.text import Span, Text

from gpu_tui.core.devices.fields import Maybe, Unknown

_EIGHTHS = " ▏▎▍▌▋▊▉█"
_LEVELS = " ▁▂▃▄▅▆▇█"
BAND = "░"
"""A whole cell a column's readings reached only at times (between its lowest and highest)."""
GAP = "·"
"""Drawn where a reading was unknown, stale or lost: a visible hole, never a made-up value."""
NOTHING_YET = " "
"""A graph cell from before the first reading."""


def cells_text(*parts: tuple[str, Style]) -> Text:
    """``Text.assemble`` for strings drawn here from fixed cells (graph levels, bar eighths,
    scale digits), each piece in its style.

    Rich scans every string it is given for control codes, with a ``str.translate`` that costs
    about 8 µs for a 150-cell row of block characters; a big screen builds some forty such rows
    a tick, a third of drawing them. These pieces are made of the characters above, never of
    outside text, so the scan is skipped: the Text is put together as its constructor would.
    (``tests/ui/test_monitor_draw.py`` holds it to what ``Text.assemble`` gives.)
    """
    spans: list[Span] = []
    pieces: list[str] = []
    length = 0
    for string, style in parts:
        if string:
            pieces.append(string)
            if style:
                spans.append(Span(length, length + len(string), style))
            length += len(string)
    text = Text(spans=spans)
    text._text = ["".join(pieces)]
    text._length = length
    return text


def fraction(value: float | None, low: float, high: float | None) -> float | None:
    """Where ``value`` sits on the fixed scale ``low``..``high`` (0..1), or None if unknown."""
    if value is None or high is None or high <= low or math.isnan(value):
        return None
    return max(0.0, min(1.0, (value - low) / (high - low)))


def bar(
    value: float | None, width: int, fill: Style, track: Style, *, low: float = 0, high: float = 100
) -> Text:
    """A bar ``width`` cells wide on the fixed scale ``low``..``high`` (eighth-cell precision)."""
    share = fraction(value, low, high)
    if width <= 0:
        return Text()
    if share is None:
        return cells_text((GAP * width, track))
    eighths = round(share * width * 8)
    full, rest = divmod(eighths, 8)
    filled = "█" * full + (_EIGHTHS[rest] if rest else "")
    if not filled and share > 0:
        filled = "▏"  # a real but tiny reading must not vanish
    # Side by side, not a track span inside a bar-wide fill span: rows whose spans do not
    # overlap take the fast path to the screen (rows.row_segments). Same colours either way.
    return cells_text((filled, fill), ("─" * (width - len(filled)), fill + track))


def spark(values: Sequence[float | None], width: int, low: float, high: float | None) -> str:
    """The last ``width`` readings as a one-row graph on the fixed scale ``low``..``high``.

    Right-aligned (newest at the right edge); gaps where readings were unknown. Zero draws as
    the lowest bar so an idle device still shows a baseline.
    """
    recent = [math.nan if v is None else v for v in values[-width:]] if width > 0 else []
    return "".join(spark_cells(recent, low, high)).rjust(max(0, width))


def spark_cells(highs: Sequence[float | None], low: float, high: float | None) -> list[str]:
    """One sparkline cell per column, drawn at the column's highest reading (see ``spark``);
    ``None``: nothing yet."""
    if high is None or high <= low:
        return [NOTHING_YET if value is None else GAP for value in highs]
    # ``fraction`` inlined: every row with history runs this loop.
    span = high - low
    levels = _LEVELS
    return [
        NOTHING_YET
        if value is None
        else GAP
        if value != value  # NaN
        else levels[1 + min(7, int(max(0.0, min(1.0, (value - low) / span)) * 8))]
        for value in highs
    ]


def graph_rows(
    values: Sequence[float | None], width: int, height: int, low: float, high: float | None
) -> list[str]:
    """A ``height``-row graph of the last ``width`` readings, one a column, top row first."""
    recent = list(values[-width:]) if width > 0 else []
    lows = [None] * (width - len(recent)) + [math.nan if v is None else v for v in recent]
    return rows_of(graph_columns(lows, lows, height, low, high), height)


def graph_columns(
    lows: Sequence[float | None],
    highs: Sequence[float | None],
    height: int,
    low: float,
    high: float | None,
) -> list[str]:
    """One graph column per time slice, from its lowest and highest reading, top row first,
    ``height`` cells tall, on the fixed scale ``low``..``high``.

    A column is filled to its highest reading in eighths of a cell, at least one eighth (a
    baseline even at zero), so a spike is never averaged away. Where the slice held lower
    readings too, the whole cells between its lowest reading and the top cell are shaded
    (``BAND``): solid is where the reading stayed all along, shaded where it only went at times,
    and the peak is solid again. NaN (every reading unknown)
    is a gap, ``None`` (before the first reading) is blank, and with no scale yet each column
    is a gap.
    """
    span = high - low if high is not None and high > low else 0.0  # 0: no scale yet
    eighths = height * 8
    columns = []
    for bottom, top in zip(lows, highs, strict=True):
        if top is None or bottom is None:
            columns.append(_column(-2, 0, height))
        elif not span or top != top:  # NaN: a gap
            columns.append(_column(-1, 0, height))
        else:  # ``fraction`` inlined
            share = max(0.0, min(1.0, (top - low) / span))
            floor = max(0.0, min(1.0, (bottom - low) / span))
            columns.append(_column(max(1, round(share * eighths)), round(floor * eighths), height))
    return columns


def rows_of(columns: Sequence[str], height: int) -> list[str]:
    """Graph rows, top first, read across columns drawn top first."""
    if not columns:
        return [""] * height
    return ["".join(row) for row in zip(*columns, strict=True)]


@lru_cache(maxsize=4096)
def _column(eighths: int, solid: int, height: int) -> str:
    """One graph column, top row first: ``eighths`` filled, the whole cells above ``solid``
    eighths shaded; or a gap (-1) or nothing (-2)."""
    if eighths == -2:
        return NOTHING_YET * height
    if eighths == -1:
        return " " * (height - 1) + GAP
    top = (eighths - 1) // 8  # the cell the highest reading reached: drawn solid, a crisp peak
    cells = []
    for row in range(height - 1, -1, -1):
        level = max(0, min(8, eighths - row * 8))
        cells.append(BAND if row < top and row * 8 >= solid else _LEVELS[level])
    return "".join(cells)


def rate(value: Maybe[float]) -> str:
    """PCIe throughput in GB/s (decimal, as link speeds are quoted)."""
    return "–" if isinstance(value, Unknown) else f"{value / 1e9:.1f}"


def known_float(value: Maybe[float] | Maybe[int]) -> float | None:
    return None if isinstance(value, Unknown) else float(value)


def scale_labels(labels: tuple[str, str, str], height: int) -> list[str]:
    """The scale column beside a graph, one entry per row: top, middle and bottom labels.

    The scale is the fixed one the graph is drawn on, so the reader can tell 3 % from 95 %.
    """
    label_width = max(len(label) for label in labels)
    out = []
    for row in range(height):
        label = labels[0] if row == 0 else labels[2] if row == height - 1 else ""
        if row == height // 2 and 0 < row < height - 1:
            label = labels[1]
        out.append(label.rjust(label_width) + " ")
    return out
