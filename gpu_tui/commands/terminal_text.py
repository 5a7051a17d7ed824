"""Text output fitted to the terminal: a line wider than it wraps at a space, and its next lines
start under the line's last column (a table row's note wraps under the note, a paragraph under
its own indent) or where the caller says (under the text after a status word: ``WARN driver: …``
wraps under ``driver``), so nothing a command prints runs past the right edge of an 80-column
terminal: an address longer than the room is carried onto the next line, after a ``/``.

Output to a pipe or a file is left as it is (a script reads whole lines), unless ``COLUMNS``
says how wide to make it."""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap

_COLUMN = re.compile(r"\S {2,}(?=\S)")
"""A column boundary: two spaces or more between words."""
NARROWEST = 40
"""Below this the terminal is too narrow to fit anything to: lines are left whole."""


def terminal_width() -> int | None:
    """The terminal's width (or ``COLUMNS``); None for a pipe or a file without it."""
    if not sys.stdout.isatty() and not os.environ.get("COLUMNS"):
        return None
    return shutil.get_terminal_size((100, 24)).columns


def fit_line(line: str, width: int, *, hang: int | None = None) -> str:
    """``line`` wrapped at ``width``, later lines starting at column ``hang``, by default under
    its last column that starts before the edge (or under its own indent when that column, or
    ``hang``, would leave too little room)."""
    if len(line) <= width or width < NARROWEST:
        return line
    indent = len(line) - len(line.lstrip(" "))
    if hang is None:
        starts = [m.end() for m in _COLUMN.finditer(line) if m.end() < width]
        hang = starts[-1] if starts else indent
    if hang > width - 20:
        hang = indent
    wrapped = textwrap.wrap(
        line,
        width=width,
        subsequent_indent=" " * hang,
        break_long_words=False,  # a URL or a path is kept whole where the room allows
        break_on_hyphens=False,
    ) or [line]
    return "\n".join(piece for part in wrapped for piece in _fold(part, width, indent))


def _fold(line: str, width: int, indent: int) -> list[str]:
    """A line holding one word too long for its room (a URL): the word carried onto further
    lines under where it starts (or, with too little room there, under the paragraph's own
    ``indent``), each cut after a ``/`` where there is one, so every line ends inside the
    width."""
    if len(line) <= width:
        return [line]
    word = line.lstrip(" ")
    start = len(line) - len(word)
    if start > width - 20:
        start = indent
    lines, room = [], width - start
    while len(word) > room:
        cut = word.rfind("/", room // 2, room) + 1 or room
        lines.append(" " * start + word[:cut])
        word = word[cut:]
    return [*lines, " " * start + word]


def fit_to_terminal(text: str, width: int | None = None, *, hang: int | None = None) -> str:
    """Every line of ``text`` fitted to ``width`` (the terminal's, by default), later lines of
    each at column ``hang`` when given (see :func:`fit_line`)."""
    width = terminal_width() if width is None else width
    if width is None:
        return text
    return "\n".join(fit_line(line, width, hang=hang) for line in text.split("\n"))
