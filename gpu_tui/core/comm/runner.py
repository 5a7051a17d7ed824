"""Runs the comm suite: the bench runner, with torchrun's launcher as its worker.

Everything the bench runner does holds: results saved after each one, ``--out`` files, cancel
("stop" to rank 0, then a kill), the stall watch. What differs is who speaks: rank 0 reports the
results, every rank says where it is, the launcher says which ranks torchrun saw fail; an error
that ends the run is one sentence that names the rank.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from gpu_tui.core.bench import messages as m
from gpu_tui.core.bench.runner import BenchRunner
from gpu_tui.core.bench.store import RunOutput
from gpu_tui.core.comm.ranks import RankWatch, point_labels

COMM_WORKER = Path(__file__).resolve().parents[1] / "bench" / "worker" / "comm_launch.py"
STALL_MARGIN_SECONDS = 15.0
"""Past the collective timeout, rank 0's silence means it is stuck where no timeout reaches."""


class CommRunner(BenchRunner):
    """One comm run: torchrun's launcher and its ranks, all ended with the run."""

    def __init__(
        self,
        plan: dict[str, Any],
        *,
        python: str | None = None,
        save: bool = True,
        outputs: Sequence[RunOutput] = (),
        nvml: ModuleType | None = None,
        telemetry: bool = True,
    ) -> None:
        comm = plan["comm"]
        super().__init__(
            plan,
            python=python,
            stall_seconds=float(comm["timeout_seconds"]) + STALL_MARGIN_SECONDS,
            save=save,
            outputs=outputs,
            nvml=nvml,
            telemetry=telemetry,
        )
        # this node's gpu-tui hears only its own ranks: the world is known on a single node
        world = int(comm["nproc"]) if int(comm["nnodes"]) == 1 else 0
        self.ranks = RankWatch(point_labels(comm), world=world)

    def worker_arguments(self) -> list[str]:
        return [str(COMM_WORKER), *self.plan["torchrun"]]

    def _handle(self, line: str) -> Iterator[m.Message]:
        try:
            data = json.loads(line)
        except ValueError:
            data = None
        if isinstance(data, dict) and self.ranks.take(data):
            return
        yield from super()._handle(line)

    def _error(
        self,
        kind: str,
        message: str,
        *,
        benchmark: str | None = None,
        device: str | None = None,
        fatal: bool = False,
    ) -> m.BenchError:
        if kind in ("crash", "hang"):
            silent = float(self.plan["comm"]["timeout_seconds"])
            story = self.ranks.story(silent)
            if story:
                message = f"{story}; every rank was stopped and completed results are kept"
            elif kind == "crash":
                message = message.replace("the worker", "torchrun's launcher")
        return super()._error(kind, message, benchmark=benchmark, device=device, fatal=fatal)
