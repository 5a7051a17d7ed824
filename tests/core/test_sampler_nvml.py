"""The sampler over nvidia-ml-py's own ``pynvml`` and the simulated driver with recorded readings:
an 8-GPU node, a MIG GPU, and driver faults."""

from __future__ import annotations

import argparse
import json
import threading

import pytest

from gpu_tui.commands import watch, watch_text
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.live_sources import open_gpu_sources
from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.monitor.sampler import Sampler
from tests.conftest import SimulatedNvml
from tests.core.test_watch import a_sample
from tests.fakes.simulated_driver import SimulatedLibrary
from tests.polling import wait_for

HGX_POWER_WATTS = [100.89, 82.81, 85.98, 85.48, 84.94, 85.27, 86.05, 75.0]
MISSING_PID = 2**31 - 1  # above any pid_max: like a host PID seen from inside a container


def node(
    simulated_nvml: SimulatedNvml, reading: str = "hgx_h100_8gpu"
) -> tuple[SimulatedLibrary, NvmlSession]:
    library = simulated_nvml(reading)
    session = NvmlSession.open(library.binding)
    assert session.status.available
    return library, session


def test_an_8_gpu_node_fills_8_slots_with_the_recorded_readings(
    simulated_nvml: SimulatedNvml,
) -> None:
    _, session = node(simulated_nvml)
    sampler = Sampler(gpu_sources=[session])
    assert sampler.gpu_count == 8
    sample = sampler.tick()
    assert [g.index for g in sample.gpus] == list(range(8))
    assert [g.power_watts for g in sample.gpus] == pytest.approx(HGX_POWER_WATTS)
    assert {g.power_limit_watts for g in sample.gpus} == {700.0}
    assert [g.temperature_c for g in sample.gpus] == [
        30.0,
        30.0,
        31.0,
        29.0,
        28.0,
        30.0,
        29.0,
        29.0,
    ]
    assert {g.throttle_reasons for g in sample.gpus} == {("idle",)}
    assert not any(g.lost or g.stale for g in sample.gpus)
    assert len(sampler.history.gpus) == 8
    assert sampler.history.gpus[7].power_watts.values() == [75.0]
    assert sampler.history.gpus[7].power_watts.high == 700.0
    sampler.stop()


def test_a_mig_enabled_gpu_is_one_slot_with_what_the_driver_gives(
    simulated_nvml: SimulatedNvml,
) -> None:
    _, session = node(simulated_nvml, "a100_80gb_pcie_mig")
    sampler = Sampler(gpu_sources=[session])
    (gpu,) = sampler.tick().gpus
    assert gpu.memory_total_bytes == 85_899_345_920
    assert gpu.memory_used_bytes == 46_137_344
    assert gpu.power_limit_watts == 300.0
    # With MIG on, the A100 does not report whole-GPU utilisation or power draw.
    assert isinstance(gpu.utilization_percent, Unknown)
    assert isinstance(gpu.power_watts, Unknown)
    assert sampler.history.gpus[0].utilization_percent.values() == [None]
    assert sampler.history.gpus[0].memory_used_bytes.high == 85_899_345_920.0
    sampler.stop()


def test_a_gpu_lost_mid_run_is_lost_and_the_other_seven_keep_updating(
    simulated_nvml: SimulatedNvml,
) -> None:
    library, session = node(simulated_nvml)
    sampler = Sampler(gpu_sources=[session])
    sampler.tick()
    library.lose(3)
    library.devices[5]["power_usage_mw"] = 650_000
    for _ in range(2):
        sample = sampler.tick()
    assert [g.lost for g in sample.gpus] == [i == 3 for i in range(8)]
    assert sample.gpus[5].power_watts == 650.0
    assert sampler.history.gpus[3].power_watts.values() == [85.48, None, None]
    assert sampler.history.gpus[5].power_watts.values() == [85.27, 650.0, 650.0]
    sampler.stop()


def test_not_supported_fields_are_null_with_a_reason_in_watch_json(
    simulated_nvml: SimulatedNvml,
) -> None:
    library, session = node(simulated_nvml)
    library.not_supported(None, "nvmlDeviceGetPowerUsage")
    sampler = Sampler(gpu_sources=[session])
    line = watch.sample_to_json(sampler.tick(), interval=1.0)
    assert len(line["gpus"]) == sampler.gpu_count > 0, "every GPU must be in the line"
    for gpu in line["gpus"]:
        assert gpu["power_watts"] is None
        assert gpu["unknown"]["power_watts"]
        assert gpu["power_limit_watts"] == 700.0
    sampler.stop()


def test_a_blocking_driver_call_makes_readings_stale_not_the_tick_late(
    simulated_nvml: SimulatedNvml,
) -> None:
    library, session = node(simulated_nvml)
    sampler = Sampler(gpu_sources=[session], gpu_deadline=0.1)
    first = sampler.tick()
    library.block("nvmlDeviceGetPowerUsage", 2.0)
    hung = sampler.tick()
    threads = threading.active_count()
    again = sampler.tick()
    assert all(g.stale for g in hung.gpus + again.gpus)
    assert [g.power_watts for g in again.gpus] == [g.power_watts for g in first.gpus]
    assert sampler.hung_devices == 8
    assert threading.active_count() == threads  # no new thread per hung call
    assert again.cpu.per_core_percent  # the host part of the tick is fresh
    library.block("nvmlDeviceGetPowerUsage", 0.0)
    # the blocked calls return on their own threads; how long they take is not the test
    wait_for(lambda: not sampler.hung_devices, "the blocked calls to return", every=0.05)
    recovered = sampler.tick()
    assert not any(g.stale for g in recovered.gpus)
    sampler.stop()


def test_processes_that_vanish_or_hide_are_reported_with_a_reason(
    simulated_nvml: SimulatedNvml,
) -> None:
    library, session = node(simulated_nvml)
    library.set_processes(0, compute=[{"pid": MISSING_PID, "used_memory_bytes": 1 << 30}])
    sampler = Sampler(gpu_sources=[session])
    processes = sampler.tick().gpus[0].processes
    assert not isinstance(processes, Unknown)
    (process,) = processes
    assert process.pid == MISSING_PID
    assert process.used_memory_bytes == 1 << 30
    assert isinstance(process.command, Unknown)
    assert "--pid=host" in process.command.reason
    library.set_processes(0, compute=[])
    assert sampler.tick().gpus[0].processes == ()
    sampler.stop()


def test_watch_json_over_the_8_gpu_node(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("hgx_h100_8gpu")
    monkeypatch.setattr(
        watch, "open_gpu_sources", lambda demo: open_gpu_sources(demo=demo, nvml=library.binding)
    )
    args = argparse.Namespace(json=True, interval=0.1, count=2, demo=False)
    assert watch.run(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for line in lines:
        gpus = json.loads(line)["gpus"]
        assert [g["index"] for g in gpus] == list(range(8))
        assert [g["power_watts"] for g in gpus] == pytest.approx(HGX_POWER_WATTS)
        assert all(g["unknown"]["fan_percent"] for g in gpus)
    assert library.called("nvmlInit") == 1


def test_a_mig_gpu_s_instances_are_read_through_their_own_handles(
    simulated_nvml: SimulatedNvml,
) -> None:
    """The parent's memory and process calls do not see inside its instances: each instance's
    memory and processes come from its own handle, and watch says them."""
    library = simulated_nvml("a100_80gb_pcie_mig")
    third = library.devices[0]["mig_devices"][2]
    third["memory_used_bytes"] = 6 << 30
    third["processes"] = {"compute": [{"pid": 4242, "used_memory_bytes": 6 << 30}], "graphics": []}
    session = NvmlSession.open(library.binding)
    try:
        sample = session.sample(0)
    finally:
        session.close()
    instances = sample.mig_instances
    assert [m.profile for m in instances] == ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]
    assert [m.gpu_instance_id for m in instances] == [2, 3, 9, 10]
    assert instances[2].memory_used_bytes == 6 << 30
    assert instances[2].memory_total_bytes == 10200547328
    processes = instances[2].processes
    assert not isinstance(processes, Unknown)
    assert [(p.pid, p.used_memory_bytes) for p in processes] == [(4242, 6 << 30)]
    assert isinstance(processes[0].sm_percent, Unknown)  # NVML gives none per instance
    assert instances[0].processes == ()
    assert library.called("nvmlDeviceGetMigDeviceHandleByIndex") == 7  # every slot, once
    line = watch_text.human_line(a_sample(sample))
    assert "MIG 3g.40gb:0.0/39.2GiB 2g.20gb:0.0/19.5GiB 1g.10gb:6.0/9.5GiB" in line


def test_a_gpu_without_mig_has_no_instances(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("h200")
    session = NvmlSession.open(library.binding)
    try:
        assert session.sample(0).mig_instances == ()
    finally:
        session.close()
    assert library.called("nvmlDeviceGetMigDeviceHandleByIndex") == 0
