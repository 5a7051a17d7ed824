"""The Device column of the Guide's tables: a name is never cut; past the column it wraps."""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from gpu_tui.ui.widgets.guide_bars import SIMULATED_TAG

MAX_WIDTH = 28
"""The Device column's widest: the longest catalog name ("Apple M2 Ultra (76-core GPU)"). A
longer name (a local CPU's, say) wraps onto more lines, so the figures keep their room at 80
columns."""
HEADER = "Device"
LOCAL_MARK = "▶ "


def label(name: str, local: bool) -> str:
    """The name as the column shows it: this machine's marked ▶."""
    return LOCAL_MARK + name if local else name


def column_width(labels: Iterable[str]) -> int:
    """As wide as the longest label (with its mark), up to :data:`MAX_WIDTH`."""
    return min(MAX_WIDTH, max((cell_len(text) for text in (HEADER, *labels)), default=0))


def name_cell(
    name: str,
    *,
    local: bool,
    simulated: bool,
    accent: str,
    warning: str,
    width: int,
    console: Console,
) -> Text:
    """The whole name, wrapped at spaces to ``width``; bold in the accent colour when local, a
    simulated one's tag reversed. Its line count is the row's height (:func:`height`)."""
    text = Text(label(name, local))
    if simulated:
        text.stylize(f"bold {warning}")
        tag = len(text) - len(SIMULATED_TAG) + 1 if text.plain.endswith(SIMULATED_TAG) else 0
        text.stylize("reverse", tag)
    elif local:
        text.stylize(f"bold {accent}")
    if cell_len(text.plain) <= width:
        return text
    return Text("\n").join(text.wrap(console, width, overflow="fold"))


def height(cell: Text) -> int:
    """The rows a cell from :func:`name_cell` takes."""
    return cell.plain.count("\n") + 1
