"""GPU processes across all GPUs: pid, user, type, VRAM, SM share, command; sortable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text

from gpu_tui.core.devices.nvidia_live import NOT_IN_NAMESPACE, OTHER_USER
from gpu_tui.core.fields import Unknown
from gpu_tui.core.samples import GpuProcess, GpuSample
from gpu_tui.ui.monitor.draw import bytes_short
from gpu_tui.ui.monitor.rows import RowsWidget

SORT_KEYS = ("vram", "sm", "pid", "gpu")
"""What ``s`` cycles through; the first is the default (the biggest VRAM user on top)."""
COLUMNS = (("GPU", 3), ("PID", 8), ("USER", 10), ("TYPE", 8), ("VRAM", 7), ("SM", 4))
"""Fixed columns (title, width); the command takes the rest of the row."""
HIDDEN_PID = "hidden: host PID not visible here — run the container with --pid=host"
OTHER = "another user's process: no permission to read its command"


@dataclass(frozen=True)
class ProcessRow:
    """One table row: the values to sort by and the cells to show."""

    slot: int
    pid: int
    vram: float | None
    sm: float | None
    cells: tuple[str, ...]
    hidden: bool
    """True when user/command could not be read (shown dimmed, with the reason in words)."""

    @property
    def key(self) -> str:
        return f"{self.slot}:{self.pid}"


def _why(value: object) -> str | None:
    if not isinstance(value, Unknown):
        return None
    if value.reason == NOT_IN_NAMESPACE:
        return HIDDEN_PID
    if value.reason == OTHER_USER:
        return OTHER
    return value.reason


def _row(slot: int, process: GpuProcess) -> ProcessRow:
    vram = None if isinstance(process.used_memory_bytes, Unknown) else process.used_memory_bytes
    sm = None if isinstance(process.sm_percent, Unknown) else process.sm_percent
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
        process.kind,
        "–" if vram is None else bytes_short(vram),
        "–" if sm is None else f"{sm:.0f}%",
        command,
    )
    return ProcessRow(
        slot, process.pid, None if vram is None else float(vram), sm, cells, why is not None
    )


def process_rows(gpus: tuple[GpuSample, ...], sort: str) -> tuple[list[ProcessRow], list[str]]:
    """Rows in ``sort`` order, and notes for GPUs whose process list could not be read."""
    rows: list[ProcessRow] = []
    notes: list[str] = []
    for slot, gpu in enumerate(gpus):
        if gpu.lost:
            continue
        if isinstance(gpu.processes, Unknown):
            notes.append(f"GPU {slot}: processes unknown — {gpu.processes.reason}")
            continue
        rows.extend(_row(slot, p) for p in gpu.processes)
    if sort == "pid":
        rows.sort(key=lambda r: (r.pid, r.slot))
    elif sort == "gpu":
        rows.sort(key=lambda r: (r.slot, r.pid))
    else:
        # Biggest first; unknown values last rather than guessed as zero.
        def value(r: ProcessRow) -> float | None:
            return r.vram if sort == "vram" else r.sm

        rows.sort(key=lambda r: (value(r) is None, -(value(r) or 0.0), r.slot, r.pid))
    return rows, notes


class ProcessTable(RowsWidget):
    """The rows of ``process_rows`` as plain text under a header, in a scrolling container.

    Text, not a DataTable: a DataTable re-renders every visible row whenever one cell changes,
    which at one tick a second cost more than the rest of the pane together.
    """

    PART_PREFIX = "process-table"
    COMPONENT_CLASSES: ClassVar[set[str]] = {"process-table--header", "process-table--hidden"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows_shown: list[ProcessRow] = []

    def show(self, rows: list[ProcessRow]) -> None:
        if rows != self.rows_shown:
            self.rows_shown = rows
            self.update_rows()  # lays the screen out again only when the row count changes

    def build_rows(self, width: int, height: int) -> list[Text]:
        header = self.part("header")
        hidden = self.part("hidden")
        lines = [Text(self._format((*(label for label, _ in COLUMNS), "COMMAND")), header)]
        for row in self.rows_shown:
            lines.append(Text(self._format(row.cells), style=hidden if row.hidden else ""))
        for line in lines:
            line.truncate(width, overflow="ellipsis")
        return lines

    @staticmethod
    def _format(cells: tuple[str, ...]) -> str:
        # The cells run one past COLUMNS: the command, which takes the rest of the row.
        fixed = " ".join(
            cell[:width].ljust(width) for cell, (_, width) in zip(cells, COLUMNS, strict=False)
        )
        return f"{fixed} {cells[-1]}"
