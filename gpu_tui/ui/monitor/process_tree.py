"""The Monitor's process tree (``t``), as nvitop and htop draw one: each GPU process under its
host parents (a training script under torchrun under a shell under tmux), the parents on rows
of their own with only their PID and command, siblings in the table's sort order."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.ui.monitor.process_table import ProcessRow

BRANCH, LAST, PIPE, GAP = "├─ ", "└─ ", "│  ", "   "


@dataclass
class _Node:
    pid: int
    command: str
    rows: list[ProcessRow] = field(default_factory=list)
    """The GPU rows of this process (one per GPU it uses); none for a host parent."""
    children: dict[int, _Node] = field(default_factory=dict)


def tree_order(rows: list[ProcessRow]) -> list[ProcessRow]:
    """``rows`` (already sorted) as a tree: each under its parents, with rows for the parents
    that use no GPU; the command cells carry the branches."""
    roots: dict[int, _Node] = {}
    nodes: dict[int, _Node] = {}
    for row in rows:
        level = roots
        for parent in row.parents:
            command = (
                parent.command.reason if isinstance(parent.command, Unknown) else parent.command
            )
            node = nodes.get(parent.pid) or _Node(parent.pid, command)
            nodes[parent.pid] = level.setdefault(parent.pid, node)
            level = nodes[parent.pid].children
        node = nodes.get(row.pid) or _Node(row.pid, row.command)
        nodes[row.pid] = level.setdefault(row.pid, node)
        nodes[row.pid].rows.append(row)
    shown: list[ProcessRow] = []

    def walk(node: _Node, lead: str, branch: str) -> None:
        glyph = lead + branch
        shown.extend(replace(row, branch=glyph) for row in node.rows or [host_row(node)])
        inner = lead + (GAP if branch == LAST else PIPE if branch else "")
        below = list(node.children.values())
        for at, child in enumerate(below):
            walk(child, inner, LAST if at == len(below) - 1 else BRANCH)

    for root in roots.values():
        walk(root, "", "")
    return shown


def host_row(node: _Node) -> ProcessRow:
    """A parent that uses no GPU: its PID and command, the GPU columns blank."""
    cells = ("", str(node.pid), "", "", "", "", "", "", "", node.command)
    return ProcessRow(-1, node.pid, None, None, None, cells, hidden=False, host_only=True)
