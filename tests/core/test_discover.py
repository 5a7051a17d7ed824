"""Discovery in two steps: the host at once, then the accelerators (here from the NVML double)."""

from __future__ import annotations

from types import ModuleType
from typing import cast

from gpu_tui.core.devices import CHECKING, discover, discover_host, with_accelerators
from tests.fakes.fake_nvml import FakeNvml


def test_host_first_then_accelerators_from_recorded_h200() -> None:
    host = discover_host()
    assert host.accelerators == ()
    assert host.backends["nvml"].reason == CHECKING
    fake = cast(ModuleType, FakeNvml.load("h200"))
    full = with_accelerators(host, nvml=fake)
    assert full.cpu is host.cpu
    (gpu,) = full.accelerators
    assert "H200" in gpu.name
    assert not gpu.simulated
    assert full.backends["nvml"].available


def test_demo_adds_the_simulated_gpu_after_real_ones() -> None:
    fake = cast(ModuleType, FakeNvml.load("hgx_h100_8gpu"))
    inventory = discover(demo=True, nvml=fake)
    assert len(inventory.accelerators) == 9
    assert [gpu.simulated for gpu in inventory.accelerators] == [False] * 8 + [True]
    assert inventory.accelerators[-1].index == 8
    assert inventory.backends["simulated"].available
