"""Discovery in two steps: the host at once, then the accelerators (here from nvidia-ml-py's own
``pynvml`` over the simulated driver)."""

from __future__ import annotations

from gpu_tui.core.devices import CHECKING, discover, discover_host, with_accelerators
from tests.conftest import SimulatedNvml


def test_host_first_then_accelerators_from_recorded_h200(simulated_nvml: SimulatedNvml) -> None:
    host = discover_host()
    assert host.accelerators == ()
    assert host.backends["nvml"].reason == CHECKING
    full = with_accelerators(host, nvml=simulated_nvml("h200").binding)
    assert full.cpu is host.cpu
    (gpu,) = full.accelerators
    assert "H200" in gpu.name
    assert not gpu.simulated
    assert full.backends["nvml"].available


def test_demo_adds_the_simulated_gpu_after_real_ones(simulated_nvml: SimulatedNvml) -> None:
    inventory = discover(demo=True, nvml=simulated_nvml("hgx_h100_8gpu").binding)
    assert len(inventory.accelerators) == 9
    assert [gpu.simulated for gpu in inventory.accelerators] == [False] * 8 + [True]
    assert inventory.accelerators[-1].index == 8
    assert inventory.backends["simulated"].available
