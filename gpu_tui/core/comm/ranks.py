"""What each rank said during a comm run, and the one sentence that names the rank that failed."""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from typing import Any

from gpu_tui.core.units import format_bytes_exact


def point_labels(comm: dict[str, Any]) -> list[str]:
    """Each point's label in the order the ranks run them (see the worker's ``comm_rank``), in
    binary units whatever is shown: a rank's failure names its point in the run file."""
    return [
        f"{operation} {dtype} {format_bytes_exact(size, unit='binary')}"
        for operation in comm["operations"]
        for dtype, sizes in comm["dtypes"].items()
        for size in sizes
    ]


def _signal_text(code: int) -> str:
    try:
        name = signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"
    if name == "SIGKILL":
        return "SIGKILL: killed, e.g. by the kernel's out-of-memory killer or kill -9"
    return name


@dataclass
class RankWatch:
    """Fed with the ``rank``, ``rank_failed`` and ``ranks_failed`` lines of one run."""

    labels: list[str]
    world: int = 0
    """Ranks expected (0 when unknown): one never heard from counts as behind."""
    reached: dict[int, int] = field(default_factory=dict)
    """Rank → the latest point it started."""
    failed: dict[int, tuple[str, str]] = field(default_factory=dict)
    """Rank → (kind, message) it reported: ``oom``, ``exception`` or ``peer`` (another rank's
    failure seen from here: a closed connection or a collective that timed out)."""
    exits: dict[int, int] = field(default_factory=dict)
    """Rank → exit code torchrun saw for a failed rank (negative: the signal that ended it)."""

    def take(self, data: dict[str, Any]) -> bool:
        """Note one line; False when it is not about ranks."""
        kind = data.get("type")
        if kind == "rank":
            self.reached[int(data["rank"])] = int(data["point"])
        elif kind == "rank_failed":
            self.failed.setdefault(
                int(data["rank"]), (str(data.get("kind")), str(data.get("message", "")))
            )
        elif kind == "ranks_failed":
            for failure in data.get("failures") or []:
                code = failure.get("exitcode")
                if isinstance(code, int):
                    self.exits[int(failure["rank"])] = code
        else:
            return False
        return True

    def _during(self, rank: int) -> str:
        point = self.reached.get(rank)
        if point is None:
            return "while starting"
        label = self.labels[point] if 0 <= point < len(self.labels) else f"point {point}"
        return f"during {label}"

    def story(self, silent_seconds: float | None = None) -> str | None:
        """One sentence naming the rank that failed first, or None when nothing names one."""
        for rank, (kind, message) in sorted(self.failed.items()):
            if kind == "oom":
                return f"rank {rank} ran out of memory {self._during(rank)} ({message})"
            if kind != "peer":
                return f"rank {rank} failed {self._during(rank)}: {message}"
        # Who died first, from how each rank ended: SIGKILL (kill -9, the OOM killer) or a
        # crash is a cause; SIGABRT is how Gloo ends a rank whose peer vanished; SIGTERM is
        # torchrun ending the ranks still running once one has failed.
        term, abort = -int(signal.SIGTERM), -int(signal.SIGABRT)
        signalled = sorted((r, c) for r, c in self.exits.items() if c < 0)
        for rank, code in signalled:
            if code not in (term, abort):
                return f"rank {rank} died ({_signal_text(code)}) {self._during(rank)}"
        laggards = self.laggards()
        if not laggards and any(c != term for c in self.exits.values()):
            # the others ended by themselves (timed out waiting); those torchrun had to end
            # were still stuck
            laggards = [r for r, c in signalled if c == term]
        if laggards:
            names = ", ".join(str(r) for r in laggards)
            waited = f" for {silent_seconds:.0f} s" if silent_seconds else ""
            plural = "s" if len(laggards) > 1 else ""
            return (
                f"rank{plural} {names} stopped responding {self._during(laggards[0])}: the "
                f"other ranks waited{waited} and gave up"
            )
        for rank, code in signalled:
            return f"rank {rank} died ({_signal_text(code)}) {self._during(rank)}"
        for rank, code in sorted(self.exits.items()):
            if rank not in self.failed:
                return f"rank {rank} exited with code {code} {self._during(rank)}"
        if self.failed:
            rank, (_, message) = sorted(self.failed.items())[0]
            return f"rank {rank} stopped {self._during(rank)}: {message}"
        return None

    def laggards(self) -> list[int]:
        """Ranks behind the others: started fewer points, or silent while the others failed
        waiting for them."""
        if not self.reached:
            return []
        ahead = max(self.reached.values())
        behind = sorted(r for r, p in self.reached.items() if p < ahead)
        behind += [r for r in range(self.world) if r not in self.reached]
        if behind:
            return behind
        if self.failed and all(kind == "peer" for kind, _ in self.failed.values()):
            return sorted(r for r in self.reached if r not in self.failed)
        return []
