"""What the Monitor pane samples: the GPUs NVML can read, plus a SIMULATED one in --demo."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from types import ModuleType

from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.devices.simulated import simulated_sample
from gpu_tui.core.gpu_reader import FunctionSource, GpuSource
from gpu_tui.core.sampler import Sampler


@dataclass
class Sources:
    """GPU sources for the sampler, the NVML session to close at the end, and notes for people."""

    real: list[GpuSource] = field(default_factory=list)
    inline: list[GpuSource] = field(default_factory=list)
    session: NvmlSession | None = None
    note: str = ""
    """Why no real GPU is read, in words (empty when NVML works)."""


def open_sources(*, demo: bool, nvml: ModuleType | None = None) -> Sources:
    """Open NVML (``nvml`` swaps in a test double) and add the simulated GPU in demo mode.

    Blocking: NVML init can take a second on a big node, so call it from a thread worker.
    """
    sources = Sources()
    session = NvmlSession.open(nvml)
    if session.status.available and session.device_count:
        sources.real.append(session)
        sources.session = session
    else:
        sources.note = session.status.reason or "NVML reports no NVIDIA GPUs"
        session.close()
    if demo:
        first = session.device_count if sources.session is not None else 0
        started = time.monotonic()
        # The synthetic load runs on its own clock from the moment the pane starts sampling.
        sources.inline.append(
            FunctionSource(1, lambda i: simulated_sample(first + i, time.monotonic() - started))
        )
    return sources


def stop_in_background(sampler: Sampler, sources: Sources) -> None:
    """Stop sampling off the event loop: joining the thread and NVML shutdown can block."""
    sampler.on_tick = None

    def stop() -> None:
        sampler.stop(timeout=1.0)
        if sources.session is not None and sampler.hung_devices == 0:
            sources.session.close()  # a shutdown racing a hung call could hang too

    threading.Thread(target=stop, name="gpu-tui-monitor-stop", daemon=True).start()
