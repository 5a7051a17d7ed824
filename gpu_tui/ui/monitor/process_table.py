"""GPU processes across all GPUs, as nvitop lists them: GPU memory, SM share, host CPU and memory,
elapsed time, user and command; sortable, with a selected row whose whole command line is shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message

from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.nvidia_live import NOT_IN_NAMESPACE, OTHER_USER
from gpu_tui.core.monitor.host_processes import Parent
from gpu_tui.core.monitor.samples import GpuProcess, GpuSample
from gpu_tui.core.units import format_bytes_short, format_ps_elapsed, format_reading_percent
from gpu_tui.ui.monitor.rows import RowsWidget

SORT_KEYS = ("vram", "sm", "cpu", "pid", "gpu")
"""What ``s`` cycles through; the first is the default (the biggest VRAM user on top)."""
COLUMNS = (
    ("GPU", 3),
    ("PID", 7),
    ("USER", 8),
    ("TYPE", 4),
    ("VRAM", 6),
    ("SM %", 5),  # "100 %" whole
    ("CPU %", 5),
    ("RAM", 6),
    ("TIME", 8),
)
"""Fixed columns (title, width): GPU memory and the process's share of the SMs' time, then host
CPU (100 = one core), resident host memory and time since it started; the command takes the
rest of the row."""
KINDS = {"compute": "C", "graphics": "G", "compute+graphics": "C+G"}
HIDDEN_PID = "hidden: host PID not visible here — run the container with --pid=host"
OTHER = "another user's process: no permission to read its command"


@dataclass(frozen=True)
class ProcessRow:
    """One table row: the values to sort by, the cells to show and the whole command."""

    slot: int
    pid: int
    vram: float | None
    sm: float | None
    cpu: float | None
    cells: tuple[str, ...]
    hidden: bool
    """True when user/command could not be read (shown dimmed, with the reason in words)."""
    parents: tuple[Parent, ...] = ()
    """Its host ancestors, outermost first (the tree view puts it under them)."""
    branch: str = ""
    """The tree's lines before the command (``├─ ``), in the tree view."""
    host_only: bool = False
    """A host parent of GPU processes that uses no GPU itself (tree view)."""

    @property
    def key(self) -> str:
        return f"host:{self.pid}" if self.host_only else f"{self.slot}:{self.pid}"

    @property
    def command(self) -> str:
        """The whole command line (or why it cannot be read)."""
        return self.cells[-1]


def _why(value: object) -> str | None:
    if not isinstance(value, Unknown):
        return None
    if value.reason == NOT_IN_NAMESPACE:
        return HIDDEN_PID
    if value.reason == OTHER_USER:
        return OTHER
    return value.reason


def _value(value: Maybe[float] | Maybe[int]) -> float | None:
    return None if isinstance(value, Unknown) else float(value)


def _row(slot: int, process: GpuProcess, now: float) -> ProcessRow:
    vram, sm, cpu = (
        _value(process.used_memory_bytes),
        _value(process.sm_percent),
        _value(process.cpu_percent),
    )
    rss, started = _value(process.host_memory_bytes), _value(process.started)
    why = _why(process.command) or _why(process.user)
    user = (
        "(other)"
        if _why(process.user) == OTHER
        else "?"
        if isinstance(process.user, Unknown)
        else process.user
    )
    command = why if why is not None else str(process.command)
    cells = (
        str(slot),
        str(process.pid),
        user,
        KINDS.get(process.kind, process.kind),
        "–" if vram is None else format_bytes_short(vram),
        "–" if sm is None else format_reading_percent(sm),
        "–" if cpu is None else f"{cpu:.1f}" if cpu < 100 else f"{cpu:.0f}",
        "–" if rss is None else format_bytes_short(rss),
        "–" if started is None else format_ps_elapsed(now - started),
        command,
    )
    return ProcessRow(slot, process.pid, vram, sm, cpu, cells, why is not None, process.parents)


def process_rows(
    gpus: tuple[GpuSample, ...], sort: str, now: float = 0.0
) -> tuple[list[ProcessRow], list[str]]:
    """Rows in ``sort`` order (elapsed times as of ``now``, seconds since the epoch), and notes
    for GPUs whose process list could not be read."""
    rows: list[ProcessRow] = []
    notes: list[str] = []
    for slot, gpu in enumerate(gpus):
        if gpu.lost or gpu.not_in_job:
            continue
        if isinstance(gpu.processes, Unknown):
            notes.append(f"GPU {slot}: processes unknown — {gpu.processes.reason}")
            continue
        rows.extend(_row(slot, p, now) for p in gpu.processes)
    if sort == "pid":
        rows.sort(key=lambda r: (r.pid, r.slot))
    elif sort == "gpu":
        rows.sort(key=lambda r: (r.slot, r.pid))
    else:
        # Biggest first; unknown values last rather than guessed as zero.
        def value(r: ProcessRow) -> float | None:
            return r.vram if sort == "vram" else r.sm if sort == "sm" else r.cpu

        rows.sort(key=lambda r: (value(r) is None, -(value(r) or 0.0), r.slot, r.pid))
    return rows, notes


def row_matches(row: ProcessRow, text: str) -> bool:
    """Whether the row's PID, user or command holds ``text`` (any case)."""
    wanted = text.lower()
    return any(wanted in cell.lower() for cell in (str(row.pid), row.cells[2], row.command))


class ProcessTable(RowsWidget, can_focus=True):
    """The rows of ``process_rows`` as plain text under a header that stays put; ↑/↓, the
    wheel or a click select a row, whose whole command line the pane shows below, and the rows
    move along to keep it in sight.

    Text, not a DataTable: a DataTable re-renders every visible row whenever one cell changes,
    which at one tick a second cost more than the rest of the pane together.
    """

    PART_PREFIX = "process-table"
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "process-table--header",
        "process-table--hidden",
        "process-table--cursor",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("home", "move(-1_000_000)", "First", show=False),
        Binding("end", "move(1_000_000)", "Last", show=False),
    ]

    @dataclass
    class Selected(Message):
        """Another row was selected (by key or click)."""

        row: ProcessRow | None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows_shown: list[ProcessRow] = []
        self.selected: str | None = None
        """The selected row's ``key`` (GPU and PID): it stays selected when the order changes."""
        self.first_shown = 0
        """The index of the first row in sight (the rows move along to keep the selection)."""

    @property
    def selected_row(self) -> ProcessRow | None:
        return next((row for row in self.rows_shown if row.key == self.selected), None)

    def show(self, rows: list[ProcessRow]) -> None:
        if rows and self.selected not in {row.key for row in rows}:
            self.selected = rows[0].key  # the first row, until the user picks another
        if rows != self.rows_shown:
            self.rows_shown = rows
            self.update_rows()  # lays the screen out again only when the row count changes

    def action_move(self, by: int) -> None:
        rows = self.rows_shown
        if not rows:
            return
        keys = [row.key for row in rows]
        at = keys.index(self.selected) if self.selected in keys else 0
        self._select(max(0, min(len(rows) - 1, at + by)))

    def on_click(self, event: events.Click) -> None:
        line = event.y - self.gutter.top - 1  # the header is the first row
        if line >= 0 and self.first_shown + line < len(self.rows_shown):
            self._select(self.first_shown + line)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.action_move(1)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.action_move(-1)

    def _select(self, index: int) -> None:
        row = self.rows_shown[index]
        if row.key != self.selected:
            self.selected = row.key
            self.update_rows()
            self.post_message(self.Selected(row))

    def build_rows(self, width: int, height: int) -> list[Text]:
        header = self.part("header")
        hidden = self.part("hidden")
        cursor = self.part("cursor")
        titles = self._format((*(label for label, _ in COLUMNS), "COMMAND"))
        rows = self.rows_shown
        room = max(1, height - 1) if height > 0 else len(rows)
        at = next((i for i, row in enumerate(rows) if row.key == self.selected), 0)
        first = min(self.first_shown, at)
        first = max(first, at - room + 1)
        self.first_shown = first = max(0, min(first, len(rows) - room))
        if len(rows) > room:  # which rows are in sight, at the right of the header
            shown = f"{first + 1}–{min(first + room, len(rows))} of {len(rows)}"
            fitting = (f"rows {shown} (↑↓)", shown, f"of {len(rows)}")
            where = next((w for w in fitting if len(titles) + 2 + len(w) <= width), "")
            titles = titles.ljust(width - len(where)) + where if where else titles
        lines = [Text(titles, header)]
        for row in rows[first : first + room]:
            style = hidden if row.hidden else ""
            if row.key == self.selected:
                style = hidden + cursor if row.hidden else cursor
            # The marked row spans the width: its colour is the cursor.
            text = self._format(row.cells, row.branch)
            lines.append(_fit(text, style, width, row.key == self.selected))
        lines[0].truncate(width, overflow="ellipsis")
        return lines

    @staticmethod
    def _format(cells: tuple[str, ...], branch: str = "") -> str:
        # The cells run one past COLUMNS: the command, which takes the rest of the row.
        fixed = " ".join(
            cell[:width].rjust(width) if title in RIGHT else cell[:width].ljust(width)
            for cell, (title, width) in zip(cells, COLUMNS, strict=False)
        )
        return f"{fixed} {branch}{cells[-1]}"


def _fit(plain: str, style: Style | str, width: int, pad: bool) -> Text:
    """``plain`` cut to ``width`` cells with an ellipsis (padded to it when ``pad``); plain
    ASCII, the usual command line, is cut by hand: Rich measures every cell to do it."""
    if plain.isascii():
        if len(plain) > width:
            plain = plain[: max(0, width - 1)] + "…"
        elif pad:
            plain = plain.ljust(width)
        return Text(plain, style=style)
    line = Text(plain, style=style)
    line.truncate(width, overflow="ellipsis", pad=pad)
    return line


RIGHT = frozenset({"VRAM", "SM %", "CPU %", "RAM", "TIME"})
"""Numbers line up on the right, as in top and nvitop."""
