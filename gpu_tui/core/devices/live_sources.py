"""What the Monitor pane and ``gpu-tui watch`` sample: the GPUs NVML reads, and a SIMULATED one."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import ModuleType

from gpu_tui.core.devices.model import BackendStatus
from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.devices.nvml_guard import NotAnsweringError
from gpu_tui.core.devices.simulated import simulated_sample
from gpu_tui.core.monitor.gpu_reader import FunctionSource, GpuSource

NO_GPUS = "NVML works but reports no NVIDIA GPUs"


@dataclass
class GpuSources:
    """GPU sources for the sampler, the NVML session behind them, and why none is read."""

    status: BackendStatus
    """How opening NVML went (unavailable with the reason, e.g. a driver not answering)."""
    real: list[GpuSource] = field(default_factory=list)
    inline: list[GpuSource] = field(default_factory=list)
    """Sources that never block (the simulated GPU): read on the sampler's own thread."""
    session: NvmlSession | None = None
    note: str = ""
    """Why no real GPU is read, in words (empty when NVML works and finds GPUs)."""
    hung: NotAnsweringError | None = None
    """The NVML call that did not return in time, when that is why (``note`` says it too)."""

    def close(self, *, reads_hung: bool, limit: float | None = None) -> None:
        """Shut NVML down, unless a GPU read is still stuck in the driver: a shutdown racing
        a hung call could hang as well, and the process exit frees NVML anyway."""
        session, self.session = self.session, None
        if session is not None and not reads_hung:
            session.close(limit)


def open_gpu_sources(*, demo: bool, nvml: ModuleType | None = None) -> GpuSources:
    """Open NVML (``nvml`` swaps in a test double) and add the simulated GPU with ``demo``.

    Blocks for at most the NVML call limit per call (``nvml_guard``), and returns at once while
    an earlier call is stuck. Never raises: what went wrong is in ``status`` and ``note``.
    """
    session = NvmlSession.open(nvml)
    sources = GpuSources(status=session.status, hung=session.hung)
    if session.status.available and session.device_count:
        sources.real.append(session)
        sources.session = session
    else:
        sources.note = session.status.reason or NO_GPUS
        session.close()
    if demo:
        first = session.device_count if sources.session is not None else 0
        started = time.monotonic()
        # The synthetic load runs on its own clock from the moment the sources open.
        sources.inline.append(
            FunctionSource(1, lambda i: simulated_sample(first + i, time.monotonic() - started))
        )
    return sources
