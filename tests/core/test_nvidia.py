"""NVML discovery and live readings against recorded GPUs, with every failure the spec names:
nvidia-ml-py's own ``pynvml`` over the simulated driver (``simulated_nvml``)."""

from __future__ import annotations

import time

import pytest

from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.model import NvLink
from gpu_tui.core.devices.nvidia import NvmlSession, cores_per_sm, discover_nvidia
from gpu_tui.core.devices.nvidia_live import NOT_IN_NAMESPACE, OTHER_USER
from gpu_tui.core.devices.nvml_util import throttle_words
from tests.conftest import SimulatedNvml
from tests.fakes.simulated_driver import SimulatedLibrary

NOT_SUPPORTED = Unknown("not supported on this GPU or driver")
GIB = 1024**3


def test_h200_inventory_reproduces_the_peaks(simulated_nvml: SimulatedNvml) -> None:
    gpus, status = discover_nvidia(simulated_nvml("h200").binding)
    assert status.available
    assert status.details == {
        "driver_version": "550.90.12",
        "cuda_driver_version": "12.4",
        "nvml_version": "12.550.90.12",
    }
    (gpu,) = gpus
    assert gpu.name == "NVIDIA H200"
    assert gpu.architecture == "Hopper"
    assert gpu.compute_capability == "9.0"
    assert gpu.cuda_cores == 16896
    assert gpu.sm_count == 132
    assert gpu.max_memory_clock_mhz == 3201
    assert gpu.memory_bus_width_bits == 6144
    assert gpu.peaks.memory_bandwidth_gb_per_second == pytest.approx(4916.7, rel=1e-4)
    assert gpu.peaks.bf16_tflops == pytest.approx(989.4, rel=1e-3)
    assert gpu.peaks.fp32_tflops == pytest.approx(66.9, rel=1e-3)
    assert gpu.datasheet is not None
    assert gpu.datasheet.memory_bandwidth_gb_per_second == 4800.0
    assert gpu.power_limit_watts == 700.0
    assert gpu.pci_bus_id == "00000000:03:00.0"
    assert gpu.ecc_enabled is True
    assert gpu.mig_enabled is False
    assert gpu.compute_mode == "Default"
    assert gpu.temperature_slowdown_c == NOT_SUPPORTED
    assert gpu.nvlink == NOT_SUPPORTED
    assert not gpu.lost


def test_eight_gpu_node_lists_every_gpu_in_order(simulated_nvml: SimulatedNvml) -> None:
    gpus, status = discover_nvidia(simulated_nvml("hgx_h100_8gpu").binding)
    assert status.available
    assert [g.index for g in gpus] == list(range(8))
    assert gpus[7].uuid == "GPU-33135771-a848-ece1-b61e-489e221d663c"
    assert all(g.peaks.memory_bandwidth_gb_per_second == pytest.approx(3352.32) for g in gpus)
    assert {g.datasheet.product for g in gpus if g.datasheet} == {"NVIDIA H100 SXM"}


def test_mig_gpu_lists_its_instances(simulated_nvml: SimulatedNvml) -> None:
    (gpu,), _ = discover_nvidia(simulated_nvml("a100_80gb_pcie_mig").binding)
    assert gpu.mig_enabled is True
    assert [m.name.rsplit(" ", 1)[1] for m in gpu.mig_devices] == [
        "3g.40gb",
        "2g.20gb",
        "1g.10gb",
        "1g.10gb",
    ]
    assert gpu.mig_devices[0].memory_total_bytes == 40192 * 1024**2
    assert gpu.sm_count == 108  # 6912 cores / 64 per SM on CC 8.0
    assert gpu.peaks.bf16_tflops == pytest.approx(311.9, rel=1e-3)


def test_geforce_card(simulated_nvml: SimulatedNvml) -> None:
    (gpu,), _ = discover_nvidia(simulated_nvml("geforce_rtx4090").binding)
    assert gpu.sm_count == 128
    assert gpu.mig_enabled == NOT_SUPPORTED
    assert gpu.ecc_enabled is False
    assert gpu.peaks.bf16_tflops == pytest.approx(165.2, rel=1e-3)  # boost, not NVML's 3105
    assert gpu.peaks.memory_bandwidth_gb_per_second == pytest.approx(1008.1, rel=1e-3)


def test_nvlink_links_are_counted(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("h200")
    library.devices[0]["nvlink_active"] = [1] * 16 + [0, 0]
    (gpu,), _ = discover_nvidia(library.binding)
    assert gpu.nvlink == NvLink(active_links=16, max_links=18)


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ("LibraryNotFound", "libnvidia-ml.so.1"),
        ("LibRmVersionMismatch", "different versions"),
        ("DriverNotLoaded", "not loaded"),
        ("NoPermission", "permissions"),
        ("Unknown", "unknown error"),
    ],
)
def test_init_failures_give_a_status_not_a_crash(
    simulated_nvml: SimulatedNvml, fault: str, words: str
) -> None:
    library = simulated_nvml("h200")
    library.fail_init(fault)
    gpus, status = discover_nvidia(library.binding)
    assert gpus == ()
    assert status.name == "nvml"
    assert not status.available
    assert status.reason is not None
    assert words in status.reason
    assert status.fix
    session = NvmlSession.open(library.binding)
    assert session.status == status
    assert session.device_count == 0
    session.close()


def test_gpu_lost_at_handle_lookup_keeps_the_others(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("hgx_h100_8gpu")
    library.lose(2, at_handle=True)
    gpus, status = discover_nvidia(library.binding)
    assert status.available
    assert len(gpus) == 8
    assert gpus[2].lost
    assert gpus[2].name == "GPU 2: lost"
    assert gpus[2].uuid == Unknown("the GPU is lost")
    assert gpus[2].peaks.bf16_tflops == Unknown("the GPU is lost")
    assert [g.lost for g in gpus].count(True) == 1
    assert gpus[3].peaks.bf16_tflops == pytest.approx(989.4, rel=1e-3)


def test_other_handle_failure_is_unreadable_not_lost(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("h200")
    library.fail(None, "nvmlDeviceGetHandleByIndex", "InsufficientPower")
    (gpu,), status = discover_nvidia(library.binding)
    assert status.available
    assert gpu.name == "GPU 0: unreadable"
    assert not gpu.lost
    assert isinstance(gpu.uuid, Unknown)
    assert gpu.uuid.reason


def test_not_supported_on_single_fields(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("h200")
    library.not_supported(0, "nvmlDeviceGetNumGpuCores")
    library.not_supported(0, "nvmlDeviceGetVbiosVersion")
    (gpu,), _ = discover_nvidia(library.binding)
    assert gpu.vbios_version == NOT_SUPPORTED
    assert gpu.cuda_cores == NOT_SUPPORTED
    assert gpu.sm_count == Unknown("CUDA core count unknown: not supported on this GPU or driver")
    assert isinstance(gpu.peaks.bf16_tflops, Unknown)
    assert gpu.peaks.memory_bandwidth_gb_per_second == pytest.approx(4916.7, rel=1e-4)
    assert gpu.name == "NVIDIA H200"


def test_everything_not_supported_still_gives_a_device(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("h200")
    # Every per-device C function the driver exports says NOT_SUPPORTED; the handle still opens.
    per_device = [
        symbol
        for symbol in library.exported()
        if symbol.startswith("nvmlDeviceGet") and symbol != "nvmlDeviceGetHandleByIndex_v2"
    ]
    assert "nvmlDeviceGetName" in per_device
    for symbol in per_device:
        library.not_supported(0, symbol)
    (gpu,), status = discover_nvidia(library.binding)
    assert status.available
    assert gpu.name == "GPU 0"
    assert gpu.memory_total_bytes == NOT_SUPPORTED
    assert gpu.datasheet is None


def test_cores_per_sm_table() -> None:
    assert cores_per_sm("9.0") == 128
    assert cores_per_sm("8.0") == 64
    assert [cores_per_sm(cc) for cc in ("10.3", "11.0", "12.1")] == [128] * 3  # B300, Thor, GB10
    assert cores_per_sm("3.5") is None


def test_nvml_is_not_imported_at_module_import() -> None:
    import subprocess
    import sys

    code = "import sys, gpu_tui.core.devices.nvidia; print('pynvml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---- live readings ---------------------------------------------------------------------------


def hidden(pid: int) -> tuple[Maybe[str], Maybe[str]]:
    return {
        4242: ("alice", "python train.py"),
        777: (Unknown(OTHER_USER), Unknown(OTHER_USER)),
    }.get(pid, (Unknown(NOT_IN_NAMESPACE), Unknown(NOT_IN_NAMESPACE)))


def loaded_h200(simulated_nvml: SimulatedNvml) -> SimulatedLibrary:
    library = simulated_nvml("h200")
    device = library.devices[0]
    device["temperature_threshold_c"] = {"slowdown": 87, "shutdown": 95, "gpu_max": 85}
    device.update(
        utilization_percent={"gpu": 97, "memory": 41},
        power_usage_mw=699_120,
        clock_mhz={"sm": 1755, "mem": 3201},
        clocks_event_reasons=0x4,
        temperature_c=71,
    )
    library.set_processes(
        0,
        compute=[
            {"pid": 4242, "used_memory_bytes": 60 * GIB},
            {"pid": 777, "used_memory_bytes": 2 * GIB},
            {"pid": 31337, "used_memory_bytes": None},
        ],
        graphics=[{"pid": 4242, "used_memory_bytes": 60 * GIB}],
    )
    return library


def test_sample_readings_and_units(simulated_nvml: SimulatedNvml) -> None:
    session = NvmlSession.open(loaded_h200(simulated_nvml).binding, process_lookup=hidden)
    assert session.status.available
    assert session.device_count == 1
    s = session.sample(0)
    assert s.utilization_percent == 97.0
    assert s.memory_utilization_percent == 41.0
    assert s.memory_total_bytes == 143771 * 1024**2
    assert s.temperature_c == 71.0
    assert s.temperature_slowdown_c == 87.0
    assert s.power_watts == pytest.approx(699.12)
    assert s.power_limit_watts == 700.0
    assert s.sm_clock_mhz == 1755.0
    assert s.max_sm_clock_mhz == 1980.0
    assert s.max_memory_clock_mhz == 3201.0
    assert s.pcie_tx_bytes_per_second == 657 * 1024
    assert s.pcie_rx_bytes_per_second == 619 * 1024
    assert s.fan_percent == NOT_SUPPORTED
    assert s.ecc_errors_uncorrected == 0
    assert s.throttle_reasons == ("power cap",)
    assert not s.lost
    session.close()


def test_processes_joined_with_host_info(simulated_nvml: SimulatedNvml) -> None:
    session = NvmlSession.open(loaded_h200(simulated_nvml).binding, process_lookup=hidden)
    procs = session.sample(0).processes
    assert isinstance(procs, tuple)
    by_pid = {p.pid: p for p in procs}
    assert by_pid[4242].kind == "compute+graphics"
    assert by_pid[4242].command == "python train.py"
    assert by_pid[4242].used_memory_bytes == 60 * GIB
    assert by_pid[777].user == Unknown("another user's process")
    assert by_pid[31337].command == Unknown(
        "not visible in this PID namespace — run the container with --pid=host"
    )
    assert isinstance(by_pid[31337].used_memory_bytes, Unknown)


def test_real_psutil_lookup_for_a_pid_that_does_not_exist(simulated_nvml: SimulatedNvml) -> None:
    library = loaded_h200(simulated_nvml)
    library.set_processes(0, compute=[{"pid": 2**22 + 12345, "used_memory_bytes": 1}], graphics=[])
    (proc,) = NvmlSession.open(library.binding).sample(0).processes  # type: ignore[misc]
    assert proc.command == Unknown(NOT_IN_NAMESPACE)


def test_processes_vanish_between_samples(simulated_nvml: SimulatedNvml) -> None:
    library = loaded_h200(simulated_nvml)
    session = NvmlSession.open(library.binding, process_lookup=hidden)
    assert len(session.sample(0).processes) == 3  # type: ignore[arg-type]
    library.set_processes(0, compute=[], graphics=[])
    assert session.sample(0).processes == ()


def test_process_list_falls_back_to_the_unversioned_name(simulated_nvml: SimulatedNvml) -> None:
    library = loaded_h200(simulated_nvml)
    library.fail(0, "nvmlDeviceGetComputeRunningProcesses_v2", "FunctionNotFound")
    library.fail(0, "nvmlDeviceGetGraphicsRunningProcesses_v2", "FunctionNotFound")
    procs = NvmlSession.open(library.binding, process_lookup=hidden).sample(0).processes
    assert isinstance(procs, tuple)
    assert len(procs) == 3
    # the binding's unversioned function, which goes through the driver's _v3 entry point
    assert library.called("nvmlDeviceGetComputeRunningProcesses") == 2  # the size, then the list
    assert "nvmlDeviceGetComputeRunningProcesses_v3" in library.calls


def test_throttle_reasons_fall_back_to_deprecated_name(simulated_nvml: SimulatedNvml) -> None:
    library = loaded_h200(simulated_nvml)
    library.remove_function("nvmlDeviceGetCurrentClocksEventReasons")
    assert NvmlSession.open(library.binding).sample(0).throttle_reasons == ("power cap",)
    assert "nvmlDeviceGetCurrentClocksThrottleReasons" in library.calls
    assert "nvmlDeviceGetCurrentClocksEventReasons" not in library.calls  # never exported
    driver_lacks = loaded_h200(simulated_nvml)
    driver_lacks.fail(0, "nvmlDeviceGetCurrentClocksEventReasons", "FunctionNotFound")
    assert NvmlSession.open(driver_lacks.binding).sample(0).throttle_reasons == ("power cap",)
    assert "nvmlDeviceGetCurrentClocksThrottleReasons" in driver_lacks.calls


@pytest.mark.parametrize(
    ("mask", "words"),
    [
        (0x0, ()),
        (0x1, ("idle",)),
        (0x4 | 0x20, ("power cap", "software thermal slowdown")),
        (0x8 | 0x40, ("hardware thermal slowdown",)),
        (0x8, ("hardware slowdown",)),
        (0x8 | 0x80, ("hardware power brake",)),
        (0x1000, ("other (0x1000)",)),
    ],
)
def test_throttle_words(mask: int, words: tuple[str, ...]) -> None:
    assert throttle_words(mask) == words


def test_gpu_lost_mid_session_gives_lost_sample_and_others_keep_working(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("hgx_h100_8gpu")
    session = NvmlSession.open(library.binding)
    assert not session.sample(5).lost
    library.lose(5)
    lost = session.sample(5)
    assert lost.lost
    assert lost.power_watts == Unknown("the GPU is lost")
    assert session.sample(5).lost  # stays lost without asking the driver again
    assert session.sample(4).power_watts == pytest.approx(84.94)


def test_gpu_lost_at_handle_lookup_in_session(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("hgx_h100_8gpu")
    library.lose(0, at_handle=True)
    session = NvmlSession.open(library.binding)
    assert session.device_count == 8
    assert session.sample(0).lost
    assert session.sample(1).temperature_c == 30.0


def test_single_live_fields_not_supported(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("h200")
    library.not_supported(0, "nvmlDeviceGetPowerUsage")
    library.fail(0, "nvmlDeviceGetTemperature", "NoPermission")
    s = NvmlSession.open(library.binding).sample(0)
    assert s.power_watts == NOT_SUPPORTED
    assert s.temperature_c == Unknown("needs more permissions")
    assert s.utilization_percent == 0.0


def test_mig_parent_utilisation_is_unknown_not_zero(simulated_nvml: SimulatedNvml) -> None:
    s = NvmlSession.open(simulated_nvml("a100_80gb_pcie_mig").binding).sample(0)
    assert s.utilization_percent == NOT_SUPPORTED
    assert s.memory_used_bytes == 44 * 1024**2


def test_blocking_call_returns_after_the_block(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("h200")
    library.block("nvmlDeviceGetPowerUsage", 0.2)
    session = NvmlSession.open(library.binding)
    started = time.monotonic()
    s = session.sample(0)
    assert time.monotonic() - started >= 0.2
    assert s.power_watts == pytest.approx(74.58)


def test_sample_after_close_says_closed(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("h200")
    session = NvmlSession.open(library.binding)
    session.close()
    session.close()  # twice is fine
    assert library.initialized  # NVML itself stays open for the process's other readers
    s = session.sample(0)
    assert not s.lost
    assert s.power_watts == Unknown("NVML session is closed")
