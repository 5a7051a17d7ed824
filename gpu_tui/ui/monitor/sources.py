"""Ending the Monitor pane's sampling off the event loop (the GPU sources open in core)."""

from __future__ import annotations

import threading

from gpu_tui.core.devices.live_sources import GpuSources
from gpu_tui.core.monitor.sampler import Sampler


def stop_in_background(sampler: Sampler, sources: GpuSources | None) -> None:
    """Stop sampling off the event loop: joining the thread and NVML shutdown can block."""
    sampler.on_tick = None

    def stop() -> None:
        sampler.stop(timeout=1.0)
        if sources is not None:
            sources.close(reads_hung=sampler.hung_devices > 0)

    threading.Thread(target=stop, name="gpu-tui-monitor-stop", daemon=True).start()
