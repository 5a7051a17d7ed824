"""The --demo accelerator: labelled SIMULATED, real peak arithmetic, deterministic load."""

from __future__ import annotations

import pytest

from gpu_tui.core.devices import simulated
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.simulated import simulated_accelerator, simulated_sample


def test_accelerator_is_labelled_and_modelled_on_h100_sxm() -> None:
    gpu = simulated_accelerator(3)
    assert gpu.index == 3
    assert "SIMULATED" in gpu.name
    assert gpu.simulated
    assert gpu.backend == "simulated"
    assert gpu.sm_count == 132
    assert gpu.peaks.bf16_tflops == pytest.approx(989.4, rel=1e-3)
    assert gpu.peaks.fp32_tflops == pytest.approx(66.9, rel=1e-3)
    assert gpu.peaks.memory_bandwidth_gb_per_second == pytest.approx(3352.3, rel=1e-4)
    assert gpu.datasheet is not None
    assert gpu.datasheet.product == "NVIDIA H100 SXM"


def test_samples_are_deterministic_and_simulated() -> None:
    assert simulated_sample(0, 12.3) == simulated_sample(0, 12.3)
    s = simulated_sample(1, 12.3)
    assert s.simulated
    assert s.index == 1
    assert not s.lost
    assert isinstance(s.fan_percent, Unknown)


def test_training_pattern_with_power_cap_and_pause() -> None:
    busy = simulated_sample(0, 10.5)  # sin peak of a step: 99 %
    assert busy.utilization_percent == pytest.approx(99.0, abs=0.01)
    assert busy.power_watts == 700.0
    assert busy.throttle_reasons == ("power cap",)
    assert isinstance(busy.sm_clock_mhz, float | int)
    assert busy.sm_clock_mhz < simulated.MAX_SM_MHZ
    pause = simulated_sample(0, 28.0)  # evaluation pause at the end of each 30 s cycle
    assert pause.utilization_percent == 8.0
    assert pause.throttle_reasons == ()
    assert pause.power_watts == pytest.approx(90.0 + 7.0 * 8.0)
    idle = simulated_sample(0, -1.0)
    assert idle.throttle_reasons == ("idle",)


def test_temperature_lags_power() -> None:
    # Right after a pause starts, power has dropped but the temperature has barely moved.
    before = simulated_sample(0, 26.9)
    during = simulated_sample(0, 27.5)
    after_pause = simulated_sample(0, 29.9)
    assert isinstance(during.power_watts, float)
    assert isinstance(before.power_watts, float)
    assert during.power_watts < before.power_watts / 4
    assert isinstance(before.temperature_c, float)
    assert isinstance(during.temperature_c, float)
    assert isinstance(after_pause.temperature_c, float)
    assert before.temperature_c - during.temperature_c < 2.0
    assert after_pause.temperature_c < during.temperature_c
    assert 32.0 <= after_pause.temperature_c < simulated.SLOWDOWN_C


def test_processes_are_labelled() -> None:
    procs = simulated_sample(0, 40.0).processes
    assert isinstance(procs, tuple)
    assert "SIMULATED" in str(procs[0].command)
