"""One NVML session per process: every reader shares the first ``nvmlInit``, nothing shuts it
down while the process lives, and an open that failed or overran its limit is tried again."""

from __future__ import annotations

import pytest

from gpu_tui.core.devices import nvml_guard
from gpu_tui.core.devices.live_sources import open_gpu_sources
from gpu_tui.core.devices.nvidia import NvmlSession, discover_nvidia
from gpu_tui.core.devices.nvml_guard import GATE
from gpu_tui.core.devices.topology_discovery import discover_topology
from tests.conftest import SimulatedNvml
from tests.polling import wait_for


def test_discovery_topology_and_the_live_session_share_one_init(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("hgx_h100_8gpu", add=["hgx_h100_8gpu_topology"])
    gpus, status = discover_nvidia(library.binding)
    topology = discover_topology(library.binding)
    session = NvmlSession.open(library.binding)
    sources = open_gpu_sources(demo=False, nvml=library.binding)
    assert status.available
    assert len(gpus) == 8
    assert topology is not None
    assert session.device_count == 8
    assert sources.session is not None
    assert sources.session.device_count == 8
    session.close()
    sources.close(reads_hung=False)
    assert library.called("nvmlInit") == 1
    assert library.called("nvmlShutdown") == 0
    assert NvmlSession.open(library.binding).device_count == 8  # a later reader: no new init
    assert library.called("nvmlInit") == 1


def test_an_open_that_failed_is_tried_again(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("h200")
    library.fail_init("DriverNotLoaded")  # e.g. read while the kernel module was reloading
    _, failed = discover_nvidia(library.binding)
    assert not failed.available
    library.init_error = None
    gpus, status = discover_nvidia(library.binding)
    assert status.available
    assert [gpu.name for gpu in gpus] == ["NVIDIA H200"]
    assert library.called("nvmlInit") == 2


def test_an_open_that_overran_its_limit_is_not_lost(
    simulated_nvml: SimulatedNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    # nvmlInit without persistence mode: slower than the limit, then it answers.
    monkeypatch.setattr(nvml_guard, "CALL_LIMIT_SECONDS", 0.2)
    library = simulated_nvml("h200")
    library.block("nvmlInit", 0.6)
    first = NvmlSession.open(library.binding)
    assert first.hung is not None
    assert first.hung.call == "nvmlInit"
    assert not first.status.available
    wait_for(lambda: GATE.stuck is None, "the slow nvmlInit to return", timeout=5, every=0.01)
    again = NvmlSession.open(library.binding)
    assert again.status.available
    assert again.device_count == 1
    assert library.called("nvmlInit") == 1  # the slow one's work was kept, not repeated
