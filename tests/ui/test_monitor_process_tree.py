"""The Monitor's process tree (``t``): GPU processes under their host parents."""

from __future__ import annotations

from gpu_tui.core.monitor.host_processes import Parent
from gpu_tui.core.monitor.samples import GpuProcess, GpuSample
from gpu_tui.ui.monitor.process_table import ProcessTable, process_rows
from gpu_tui.ui.monitor.process_tree import tree_order
from tests.fakes.samples import gpu_sample

SHELL = Parent(100, "-bash")
TORCHRUN = Parent(200, "torchrun --nproc-per-node 2 train.py")


def gpu(slot: int, *processes: GpuProcess) -> GpuSample:
    return gpu_sample(slot, processes=processes)


def rank(pid: int, memory_gib: int, *parents: Parent) -> GpuProcess:
    return GpuProcess(
        pid=pid,
        kind="compute",
        used_memory_bytes=memory_gib << 30,
        sm_percent=90.0,
        user="alice",
        command=f"python train.py --local-rank {pid % 10}",
        parents=parents,
    )


def drawn(rows: list) -> list[str]:  # type: ignore[type-arg]
    return [ProcessTable._format(row.cells, row.branch).rstrip() for row in rows]


def test_ranks_sit_under_torchrun_under_the_shell_with_their_parents_on_rows_of_their_own() -> None:
    gpus = (
        gpu(0, rank(301, 40, SHELL, TORCHRUN)),
        gpu(1, rank(302, 60, SHELL, TORCHRUN)),
        gpu(2, rank(400, 10)),  # no parent readable (another PID namespace)
    )
    rows, _ = process_rows(gpus, "vram")
    tree = tree_order(rows)
    assert [(row.pid, row.host_only) for row in tree] == [
        (100, True),
        (200, True),
        (302, False),  # sorted by VRAM among siblings: 60 GiB first
        (301, False),
        (400, False),
    ]
    lines = drawn(tree)
    assert lines[0].endswith(" -bash")
    assert lines[1].endswith(" └─ torchrun --nproc-per-node 2 train.py")
    assert lines[2].endswith("    ├─ python train.py --local-rank 2")
    assert lines[3].endswith("    └─ python train.py --local-rank 1")
    assert lines[4].endswith(" python train.py --local-rank 0")
    assert tree[0].cells[0] == ""  # a host parent has no GPU, VRAM or SM share
    assert tree[2].command == "python train.py --local-rank 2"  # the detail line: no branches


def test_a_process_on_two_gpus_is_one_node_with_a_row_per_gpu() -> None:
    both = rank(500, 20, SHELL)
    rows, _ = process_rows((gpu(0, both), gpu(1, both)), "gpu")
    tree = tree_order(rows)
    assert [(row.pid, row.slot) for row in tree] == [(100, -1), (500, 0), (500, 1)]
    assert {row.branch for row in tree[1:]} == {"└─ "}
    assert len({row.key for row in tree}) == 3  # each row selectable on its own
