"""Runs the comm suite: the bench runner, with torchrun's launcher as its worker.

Everything the bench runner does holds: results saved after each one, ``--out`` files, cancel
("stop" to rank 0, then a kill), the stall watch. What differs is who speaks: rank 0 reports the
results, every rank says where it is, the launcher says which ranks torchrun saw fail; an error
that ends the run is one sentence that names the rank. A copy between GPUs (or a GPU and the
host) is read against its link from the GPUs' topology (``core.comm.links``), which NVML in this
process reads once, at the first copy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from gpu_tui.core.bench import messages
from gpu_tui.core.bench.formulas import peak_kind
from gpu_tui.core.bench.runner import BenchRunner
from gpu_tui.core.bench.store import RunOutput
from gpu_tui.core.comm.copies import COPIES
from gpu_tui.core.comm.links import pair_peak, topology_rows
from gpu_tui.core.comm.ranks import RankWatch, point_labels
from gpu_tui.core.devices.topology import Topology

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
        self._nvml = nvml
        self._topology: tuple[Topology | None] | None = None
        """Read at the first copy (None inside: NVML has no topology to give)."""

    def worker_arguments(self) -> list[str]:
        return [str(COMM_WORKER), *self.plan["torchrun"]]

    def _handle(self, line: str) -> Iterator[messages.Message]:
        try:
            data = json.loads(line)
        except ValueError:
            data = None
        if isinstance(data, dict) and self.ranks.take(data):
            return
        if (
            isinstance(data, dict)
            and data.get("type") == "result"
            and data.get("benchmark") == COPIES
        ):
            line = self._with_link(data)
        earlier = self.document.environment
        if isinstance(data, dict) and data.get("type") == "environment" and earlier is not None:
            line = self._after_copies(data, earlier)
        yield from super()._handle(line)

    def _after_copies(self, data: dict[str, Any], earlier: dict[str, Any]) -> str:
        """Rank 0's record follows the copies' (the launcher's, every GPU): the copies' GPUs
        and their readings are kept inside it, and their telemetry stopped before the ranks'
        starts."""
        self.watch.close(earlier)
        environment = data.get("environment")
        if isinstance(environment, dict):
            environment["copies"] = {
                "devices": earlier.get("devices"),
                "telemetry": earlier.get("telemetry"),
            }
        return json.dumps(data)

    def topology(self) -> Topology | None:
        if self._topology is None:
            from gpu_tui.core.devices.topology_discovery import discover_topology

            self._topology = (discover_topology(self._nvml),)
        return self._topology[0]

    def _with_link(self, data: dict[str, Any]) -> str:
        """The copy with its link named in ``params["link"]`` and that link's peak given to the
        peak table, so that its % of peak (and the warnings past 100 % or under 10 %) come out
        as every other result's do. Unchanged when the link is unknown."""
        params = data.get("params")
        topology = self.topology()
        if not isinstance(params, dict) or topology is None:
            return json.dumps(data)
        rows = topology_rows(topology, self.document.environment)
        src, dst = str(params.get("src")), str(params.get("dst"))
        path = str(data.get("variant"))
        peak = pair_peak(topology, rows.get(src), rows.get(dst), path)
        if peak is not None:
            params["link"] = peak.text
            self._peaks.set(str(data.get("device")), peak_kind(path, src, dst), peak.gbps)
        return json.dumps(data)

    def _error(
        self,
        kind: str,
        message: str,
        *,
        benchmark: str | None = None,
        device: str | None = None,
        fatal: bool = False,
    ) -> messages.BenchError:
        if kind in ("crash", "hang"):
            silent = float(self.plan["comm"]["timeout_seconds"])
            story = self.ranks.story(silent)
            if story:
                message = f"{story}; every rank was stopped and completed results are kept"
            elif kind == "crash":
                message = message.replace("the worker", "torchrun's launcher")
        return super()._error(kind, message, benchmark=benchmark, device=device, fatal=fatal)
