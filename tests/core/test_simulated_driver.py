"""The simulated driver under the real nvidia-ml-py binding behaves as a driver does: arguments
converted as ctypes converts them, symbols per branch, entries as wide as the branch writes."""

from __future__ import annotations

import ctypes
import itertools
import json
import threading
import time
from collections.abc import Iterator

import pynvml
import pytest

from gpu_tui.core.devices.model import BackendStatus
from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.monitor.host_processes import HostProcesses
from tests.fakes import simulated_driver
from tests.fakes.simulated_driver import driver


def with_processes(library: simulated_driver.SimulatedLibrary, *pids: int) -> None:
    listed = [{"pid": pid, "used_bytes": pid * 2**20} for pid in pids]
    library.devices[0]["processes"] = {"compute": listed, "graphics": []}


def test_the_real_binding_reads_the_recorded_gpu() -> None:
    with driver("h200") as library:
        pynvml.nvmlInit()
        assert pynvml.nvmlSystemGetDriverVersion() == "550.90.12"
        assert pynvml.nvmlDeviceGetCount() == 1
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        assert pynvml.nvmlDeviceGetName(handle) == "NVIDIA H200"
        pynvml.nvmlShutdown()
    assert library.calls[0] == "nvmlInitWithFlags"
    assert "nvmlDeviceGetHandleByIndex_v2" in library.calls  # the binding's own versioned name


def test_the_binding_s_own_p2p_constant_never_reaches_the_driver() -> None:
    assert pynvml.NVML_P2P_CAPS_INDEX_READ == (0,)  # a tuple in nvidia-ml-py
    with driver("hgx_h100_8gpu", add=["hgx_h100_8gpu_topology"]) as library:
        pynvml.nvmlInit()
        first, second = (pynvml.nvmlDeviceGetHandleByIndex(i) for i in (0, 1))
        with pytest.raises(ctypes.ArgumentError, match="argument 3"):
            pynvml.nvmlDeviceGetP2PStatus(first, second, pynvml.NVML_P2P_CAPS_INDEX_READ)
        assert pynvml.nvmlDeviceGetP2PStatus(first, second, 0) == 0
    assert library.calls.count("nvmlDeviceGetP2PStatus") == 1  # only the int got through


def test_on_r535_the_unversioned_process_call_garbles_every_entry_after_the_first() -> None:
    with driver("h200", "r535") as library:
        with_processes(library, 1111, 2222, 3333)
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        garbled = [p.pid for p in pynvml.nvmlDeviceGetComputeRunningProcesses(handle)]
        whole = [p.pid for p in pynvml.nvmlDeviceGetComputeRunningProcesses_v2(handle)]
    assert garbled[0] == 1111
    assert garbled[1:] != [2222, 3333]  # 32-byte entries read as 24-byte ones
    assert 0 in garbled
    assert whole == [1111, 2222, 3333]


@pytest.mark.parametrize("branch", ["r550", "r570"])
def test_on_later_branches_the_unversioned_call_reads_right(branch: str) -> None:
    with driver("h200", branch) as library:
        with_processes(library, 1111, 2222)
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        assert [p.pid for p in pynvml.nvmlDeviceGetComputeRunningProcesses(handle)] == [
            1111,
            2222,
        ]


def test_from_535_98_the_v3_symbol_is_gone_and_the_binding_says_so() -> None:
    with driver("h200", "r535.98"):
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        with pytest.raises(pynvml.NVMLLibraryMismatchError):
            pynvml.nvmlDeviceGetComputeRunningProcesses(handle)
        assert pynvml.nvmlDeviceGetComputeRunningProcesses_v2(handle) == []


def test_v1_memory_counts_reserved_as_used_and_v2_shows_it_apart() -> None:
    with driver("h200") as library:
        library.devices[0]["memory_reserved_bytes"] = 531 * 2**20
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        v1 = pynvml.nvmlDeviceGetMemoryInfo(handle)
        v2 = pynvml.nvmlDeviceGetMemoryInfo(handle, version=pynvml.nvmlMemory_v2)
    assert v1.used == 2**20 + 531 * 2**20
    assert (v2.used, v2.reserved) == (2**20, 531 * 2**20)
    assert v1.free == v2.free


def test_r470_has_no_v2_memory_call() -> None:
    with driver("h200", "r470"):
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        with pytest.raises(pynvml.NVMLError_FunctionNotFound):
            pynvml.nvmlDeviceGetMemoryInfo(handle, version=pynvml.nvmlMemory_v2)


def test_a_gpu_outside_the_job_is_counted_but_cannot_be_opened() -> None:
    reading = json.loads((simulated_driver.READINGS / "h200.json").read_text())
    reading["devices"] = reading["devices"] * 2
    library = simulated_driver.SimulatedLibrary(reading, simulated_driver.BRANCHES["r550"])
    library.no_permission.add(1)
    simulated_driver.install(pynvml, library)
    try:
        pynvml.nvmlInit()
        assert pynvml.nvmlDeviceGetCount() == 2
        pynvml.nvmlDeviceGetHandleByIndex(0)
        with pytest.raises(pynvml.NVMLError_NoPermission):
            pynvml.nvmlDeviceGetHandleByIndex(1)
    finally:
        simulated_driver.uninstall(pynvml)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ((0,), "Don't know how to convert parameter 2"),
        (1.5, "Don't know how to convert parameter 2"),
        (object(), "Don't know how to convert parameter 2"),
        (2**40, "int too long"),
    ],
)
def test_arguments_are_converted_as_ctypes_converts_them(value: object, message: str) -> None:
    with pytest.raises(ctypes.ArgumentError, match=message):
        simulated_driver.ctypes_argument_check(2, value)


# -- what the newer calls write ------------------------------------------------------------------


@pytest.fixture
def h200() -> Iterator[simulated_driver.SimulatedLibrary]:
    with driver("h200") as library:
        pynvml.nvmlInit()
        yield library


@pytest.fixture
def hgx() -> Iterator[simulated_driver.SimulatedLibrary]:
    """The 8-GPU HGX node with its recorded NVLink and PCIe topology."""
    with driver("hgx_h100_8gpu", add=["hgx_h100_8gpu_topology"]) as library:
        pynvml.nvmlInit()
        yield library


def gpu(index: int = 0) -> object:
    return pynvml.nvmlDeviceGetHandleByIndex(index)


def test_calls_before_init_and_after_the_last_shutdown_are_uninitialised() -> None:
    with driver("h200"):
        with pytest.raises(pynvml.NVMLError_Uninitialized):
            pynvml.nvmlDeviceGetCount()
        pynvml.nvmlInit()
        pynvml.nvmlInit()
        pynvml.nvmlShutdown()
        assert pynvml.nvmlDeviceGetCount() == 1  # NVML counts its inits
        pynvml.nvmlShutdown()
        with pytest.raises(pynvml.NVMLError_Uninitialized):
            pynvml.nvmlDeviceGetCount()


def test_set_reading_changes_what_the_calls_return(h200: simulated_driver.SimulatedLibrary) -> None:
    h200.set_reading(
        0,
        sm_clock_mhz=1755,
        memory_clock_mhz=2619,
        power_watts=612.5,
        temperature_c=71,
        clocks_event_reasons=0x4,
        fan_percent=40,
    )
    handle = gpu()
    assert pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM) == 1755
    assert pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_GRAPHICS) == 1755
    assert pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_MEM) == 2619
    assert pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_VIDEO) == 765  # as recorded
    assert pynvml.nvmlDeviceGetPowerUsage(handle) == 612_500
    assert pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU) == 71
    assert pynvml.nvmlDeviceGetCurrentClocksEventReasons(handle) == 0x4
    assert pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(handle) == 0x4
    assert pynvml.nvmlDeviceGetFanSpeed(handle) == 40


def test_an_argument_the_call_does_not_know_is_invalid(h200: object) -> None:
    handle = gpu()
    with pytest.raises(pynvml.NVMLError_InvalidArgument):
        pynvml.nvmlDeviceGetClockInfo(handle, 7)
    with pytest.raises(pynvml.NVMLError_InvalidArgument):
        pynvml.nvmlDeviceGetTemperature(handle, 1)
    with pytest.raises(pynvml.NVMLError_InvalidArgument):
        pynvml.nvmlDeviceGetName(pynvml.c_nvmlDevice_t())  # a NULL handle


def test_ecc_counters_are_read_by_error_and_counter_type(
    h200: simulated_driver.SimulatedLibrary,
) -> None:
    handle = gpu()
    uncorrected, corrected = (
        pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
        pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED,
    )
    assert pynvml.nvmlDeviceGetTotalEccErrors(handle, uncorrected, pynvml.NVML_VOLATILE_ECC) == 0
    with pytest.raises(pynvml.NVMLError_NotSupported):  # not recorded
        pynvml.nvmlDeviceGetTotalEccErrors(handle, corrected, pynvml.NVML_AGGREGATE_ECC)
    h200.set_reading(0, ecc_aggregate_corrected=12)
    assert pynvml.nvmlDeviceGetTotalEccErrors(handle, corrected, pynvml.NVML_AGGREGATE_ECC) == 12


def test_memory_v2_checks_its_struct_version(h200: object) -> None:
    with pytest.raises(pynvml.NVMLError_ArgumentVersionMismatch):
        pynvml.nvmlDeviceGetMemoryInfo(gpu(), version=0x01000028)


def test_the_pci_info_is_the_nvml_struct(h200: object) -> None:
    info = pynvml.nvmlDeviceGetPciInfo(gpu())
    assert (info.busId, info.busIdLegacy) == ("00000000:03:00.0", "0000:03:00.0")
    assert (info.domain, info.bus, info.device) == (0, 3, 0)
    assert info.pciDeviceId == 0x233510DE


def test_the_topology_calls_read_the_recorded_node(hgx: simulated_driver.SimulatedLibrary) -> None:
    first, fifth = gpu(0), gpu(4)
    assert pynvml.nvmlDeviceGetTopologyCommonAncestor(first, gpu(1)) == 40  # NODE
    assert pynvml.nvmlDeviceGetTopologyCommonAncestor(first, fifth) == 50  # SYS
    assert list(pynvml.nvmlDeviceGetMemoryAffinity(fifth, 1, 0)) == [0b10]  # node 1
    with pytest.raises(pynvml.NVMLError_NotSupported):  # x86: the GPUs are not NUMA nodes
        pynvml.nvmlDeviceGetNumaNodeId(fifth)
    assert list(pynvml.nvmlDeviceGetCpuAffinity(first, 2)) == [2**48 - 1, 0xFFFFFFFF00000000]
    links = [pynvml.nvmlDeviceGetNvLinkState(first, link) for link in range(18)]
    assert links == [1] * 18
    with pytest.raises(pynvml.NVMLError_InvalidArgument):  # past the GPU's last link
        pynvml.nvmlDeviceGetNvLinkState(first, 18)
    assert pynvml.nvmlDeviceGetNvLinkVersion(first, 0) == pynvml.NVML_NVLINK_VERSION_4_0
    assert pynvml.nvmlDeviceGetNvLinkRemoteDeviceType(first, 0) == 2  # NVSwitch
    with pytest.raises(pynvml.NVMLError_NotSupported):  # the remote bus is not recorded
        pynvml.nvmlDeviceGetNvLinkRemotePciInfo(first, 0)
    hgx.set_reading(0, nvlink_remote_bus_id=["00000000:C3:00.0"] * 18)
    assert pynvml.nvmlDeviceGetNvLinkRemotePciInfo(first, 3).busId == "00000000:C3:00.0"
    assert pynvml.nvmlDeviceGetP2PStatus(first, fifth, 0) == 0
    with pytest.raises(pynvml.NVMLError_NotSupported):  # only reads are recorded
        pynvml.nvmlDeviceGetP2PStatus(first, fifth, pynvml.NVML_P2P_CAPS_INDEX_WRITE)


def test_mig_handles_are_their_own_devices() -> None:
    with driver("a100_80gb_pcie_mig"):
        pynvml.nvmlInit()
        parent = gpu()
        assert pynvml.nvmlDeviceGetMigMode(parent) == [1, 1]
        assert pynvml.nvmlDeviceGetMaxMigDeviceCount(parent) == 7
        assert pynvml.nvmlDeviceIsMigDeviceHandle(parent).value == 0
        names = [
            pynvml.nvmlDeviceGetName(pynvml.nvmlDeviceGetMigDeviceHandleByIndex(parent, slot))
            for slot in range(4)
        ]
        with pytest.raises(pynvml.NVMLError_NotFound):
            pynvml.nvmlDeviceGetMigDeviceHandleByIndex(parent, 4)
        mig = pynvml.nvmlDeviceGetMigDeviceHandleByIndex(parent, 0)
        with pytest.raises(pynvml.NVMLError_InvalidArgument):  # a MIG device has no MIG devices
            pynvml.nvmlDeviceGetMigDeviceHandleByIndex(mig, 0)
    assert [name.rsplit(" ", 1)[1] for name in names] == [
        "3g.40gb",
        "2g.20gb",
        "1g.10gb",
        "1g.10gb",
    ]


def test_processes_are_listed_as_set(h200: simulated_driver.SimulatedLibrary) -> None:
    h200.set_processes(
        0,
        compute=[
            {"pid": 42, "used_memory_bytes": 1 << 30, "sm_percent": 80},
            {"pid": 43, "used_memory_bytes": None},
        ],
        graphics=[{"pid": 7, "used_memory_bytes": 2 << 20}],
    )
    handle = gpu()
    compute = pynvml.nvmlDeviceGetComputeRunningProcesses(handle)
    assert [(p.pid, p.usedGpuMemory) for p in compute] == [(42, 1 << 30), (43, None)]
    assert {p.gpuInstanceId for p in compute} == {simulated_driver.NO_INSTANCE}
    graphics = pynvml.nvmlDeviceGetGraphicsRunningProcesses_v2(handle)
    assert [(p.pid, p.usedGpuMemory) for p in graphics] == [(7, 2 << 20)]
    h200.set_processes(0, compute=[])
    assert pynvml.nvmlDeviceGetComputeRunningProcesses(handle) == []
    assert len(pynvml.nvmlDeviceGetGraphicsRunningProcesses(handle)) == 1  # left as it was


def test_a_running_process_gets_a_fresh_sample_and_an_idle_one_keeps_its_last(
    h200: simulated_driver.SimulatedLibrary,
) -> None:
    h200.set_processes(0, compute=[{"pid": 42, "used_memory_bytes": 1, "sm_percent": 80}])
    handle = gpu()
    (first,) = pynvml.nvmlDeviceGetProcessUtilization(handle, 0)
    assert (first.pid, first.smUtil) == (42, 80)
    assert first.timeStamp > 1_700_000_000_000_000  # µs since the epoch
    (second,) = pynvml.nvmlDeviceGetProcessUtilization(handle, first.timeStamp)
    assert second.timeStamp > first.timeStamp
    h200.set_processes(0, compute=[{"pid": 42, "used_memory_bytes": 1}])  # stopped its kernels
    (kept,) = pynvml.nvmlDeviceGetProcessUtilization(handle, 0)
    assert (kept.timeStamp, kept.smUtil) == (second.timeStamp, 80)
    with pytest.raises(pynvml.NVMLError_NotFound):  # nothing newer than that
        pynvml.nvmlDeviceGetProcessUtilization(handle, second.timeStamp)


# -- faults --------------------------------------------------------------------------------------


def test_a_function_is_named_by_the_binding_and_its_c_symbols_are_faulted() -> None:
    symbols = simulated_driver.c_symbols
    assert symbols(pynvml, "nvmlInit") == {"nvmlInitWithFlags"}
    assert symbols(pynvml, "nvmlDeviceGetPciInfo") == {"nvmlDeviceGetPciInfo_v3"}
    assert symbols(pynvml, "nvmlDeviceGetHandleByIndex") == {"nvmlDeviceGetHandleByIndex_v2"}
    assert symbols(pynvml, "nvmlDeviceGetMemoryInfo") == {
        "nvmlDeviceGetMemoryInfo",
        "nvmlDeviceGetMemoryInfo_v2",
    }
    assert symbols(pynvml, "nvmlDeviceGetComputeRunningProcesses") == {
        "nvmlDeviceGetComputeRunningProcesses_v3"
    }
    assert symbols(pynvml, "nvmlDeviceGetNvLinkRemotePciInfo_v2") == {
        "nvmlDeviceGetNvLinkRemotePciInfo_v2"  # not a binding function: the C symbol itself
    }


@pytest.mark.parametrize(
    ("short_name", "error"),
    [
        ("LibRmVersionMismatch", "NVMLError_LibRmVersionMismatch"),
        ("DriverNotLoaded", "NVMLError_DriverNotLoaded"),
        ("NoPermission", "NVMLError_NoPermission"),
        ("Unknown", "NVMLError_Unknown"),
    ],
)
def test_fail_init(short_name: str, error: str) -> None:
    with driver("h200") as library:
        library.fail_init(short_name)
        with pytest.raises(getattr(pynvml, error)):
            pynvml.nvmlInit()
        with pytest.raises(pynvml.NVMLError_Uninitialized):
            pynvml.nvmlDeviceGetCount()


def test_a_gpu_lost_at_its_handle_fails_only_the_lookup() -> None:
    with driver("hgx_h100_8gpu") as library:
        pynvml.nvmlInit()
        before = gpu(1)
        library.lose(1, at_handle=True)
        with pytest.raises(pynvml.NVMLError_GpuIsLost):
            gpu(1)
        assert pynvml.nvmlDeviceGetName(gpu(2)) == "NVIDIA H100 80GB HBM3"
        assert pynvml.nvmlDeviceGetPowerUsage(before) == 82810


def test_a_lost_gpu_fails_every_call_and_its_mig_devices_too() -> None:
    with driver("a100_80gb_pcie_mig") as library:
        pynvml.nvmlInit()
        handle = gpu()
        mig = pynvml.nvmlDeviceGetMigDeviceHandleByIndex(handle, 0)
        library.lose(0)
        for call in (
            lambda: pynvml.nvmlDeviceGetName(handle),
            lambda: pynvml.nvmlDeviceGetMemoryInfo(mig),
            lambda: gpu(0),
        ):
            with pytest.raises(pynvml.NVMLError_GpuIsLost):
                call()
        assert pynvml.nvmlDeviceGetCount() == 1


def test_not_supported_on_one_gpu_or_on_every_gpu() -> None:
    with driver("hgx_h100_8gpu") as library:
        pynvml.nvmlInit()
        library.not_supported(0, "nvmlDeviceGetPowerUsage")
        with pytest.raises(pynvml.NVMLError_NotSupported):
            pynvml.nvmlDeviceGetPowerUsage(gpu(0))
        assert pynvml.nvmlDeviceGetPowerUsage(gpu(1)) == 82810
        library.not_supported(None, "nvmlDeviceGetFanSpeed")
        for index in range(8):
            with pytest.raises(pynvml.NVMLError_NotSupported):
                pynvml.nvmlDeviceGetFanSpeed(gpu(index))


def test_fail_maps_a_binding_function_to_every_symbol_it_calls() -> None:
    with driver("hgx_h100_8gpu") as library:
        pynvml.nvmlInit()
        library.fail(0, "nvmlDeviceGetMemoryInfo", "NoPermission")  # a MIG parent in a container
        library.fail(None, "nvmlDeviceGetName", "Unknown")
        library.fail(3, "nvmlDeviceGetHandleByIndex", "InsufficientPower")
        with pytest.raises(pynvml.NVMLError_NoPermission):
            pynvml.nvmlDeviceGetMemoryInfo(gpu(0))
        with pytest.raises(pynvml.NVMLError_NoPermission):
            pynvml.nvmlDeviceGetMemoryInfo(gpu(0), version=pynvml.nvmlMemory_v2)
        assert pynvml.nvmlDeviceGetMemoryInfo(gpu(1)).total == 85520809984
        with pytest.raises(pynvml.NVMLError_Unknown):
            pynvml.nvmlDeviceGetName(gpu(5))
        with pytest.raises(pynvml.NVMLError_InsufficientPower):
            gpu(3)
        assert library.calls[-1] == "nvmlDeviceGetHandleByIndex_v2"


def test_a_removed_function_is_a_missing_symbol_even_after_the_binding_cached_it() -> None:
    with driver("h200") as library:
        pynvml.nvmlInit()
        handle = gpu()
        assert pynvml.nvmlDeviceGetCurrentClocksEventReasons(handle) == 1
        library.remove_function("nvmlDeviceGetCurrentClocksEventReasons")
        with pytest.raises(pynvml.NVMLError_FunctionNotFound):
            pynvml.nvmlDeviceGetCurrentClocksEventReasons(handle)
        assert pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(handle) == 1
        library.remove_function("nvmlDeviceGetComputeRunningProcesses")
        with pytest.raises(pynvml.NVMLLibraryMismatchError):
            pynvml.nvmlDeviceGetComputeRunningProcesses(handle)
        assert pynvml.nvmlDeviceGetComputeRunningProcesses_v2(handle) == []
        assert "nvmlDeviceGetCurrentClocksEventReasons" not in library.exported()


def test_the_app_falls_back_when_a_function_is_removed() -> None:
    with driver("h200") as library:
        library.set_reading(0, clocks_event_reasons=0x4)
        library.remove_function("nvmlDeviceGetCurrentClocksEventReasons")
        pynvml.nvmlInit()
        sample = NvmlSession(pynvml, BackendStatus("nvml", True), HostProcesses()).sample(0)
    assert sample.throttle_reasons == ("power cap",)


def test_block_delays_only_the_named_call(h200: simulated_driver.SimulatedLibrary) -> None:
    h200.block("nvmlDeviceGetPowerUsage", 0.2)
    handle = gpu()
    started = time.monotonic()
    assert pynvml.nvmlDeviceGetPowerUsage(handle) == 74580
    assert time.monotonic() - started >= 0.2
    started = time.monotonic()
    pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU)
    assert time.monotonic() - started < 0.1


@pytest.mark.parametrize("function", ["nvmlInit", "nvmlDeviceGetPowerUsage"])
def test_a_hung_call_returns_once_released(function: str) -> None:
    with driver("h200") as library:
        if function != "nvmlInit":
            pynvml.nvmlInit()
        handle = gpu() if function != "nvmlInit" else None
        library.hang(function)
        call = getattr(pynvml, function)
        result: list[object] = []
        thread = threading.Thread(target=lambda: result.append(call(*filter(None, [handle]))))
        thread.start()
        thread.join(0.2)
        assert thread.is_alive()
        assert result == []
        library.release()
        thread.join(2)
        assert not thread.is_alive()
        assert result == [None if function == "nvmlInit" else 74580]
        call(*filter(None, [handle]))  # later calls run normally


def test_a_call_still_hanging_when_the_driver_goes_is_released() -> None:
    with driver("h200") as library:
        pynvml.nvmlInit()
        library.hang("nvmlDeviceGetCount")
        thread = threading.Thread(target=pynvml.nvmlDeviceGetCount, daemon=True)
        thread.start()
        thread.join(0.1)
        assert thread.is_alive()
    thread.join(2)
    assert not thread.is_alive()


def test_errors_are_named_as_the_binding_names_them() -> None:
    code = simulated_driver.error_code
    assert code("GpuIsLost") == pynvml.NVML_ERROR_GPU_IS_LOST
    assert code("NVMLError_LibRmVersionMismatch") == pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH
    assert code("NO_PERMISSION") == pynvml.NVML_ERROR_NO_PERMISSION
    for constant, value in simulated_driver.ERROR_CODES.items():
        assert getattr(pynvml, f"NVML_ERROR_{constant}") == value
    with pytest.raises(KeyError):
        code("Lost")


def test_a_test_can_set_the_sample_clock_and_see_what_was_asked(
    h200: simulated_driver.SimulatedLibrary,
) -> None:
    h200.sample_clock = itertools.count(1_700_000_001_000_000, 1_000_000).__next__
    h200.set_processes(0, compute=[{"pid": 42, "used_memory_bytes": 1, "sm_percent": 80}])
    handle = gpu()
    (first,) = pynvml.nvmlDeviceGetProcessUtilization(handle, 0)
    (second,) = pynvml.nvmlDeviceGetProcessUtilization(handle, first.timeStamp)
    assert (first.timeStamp, second.timeStamp) == (1_700_000_001_000_000, 1_700_000_002_000_000)
    assert h200.utilization_asked == [0, 1_700_000_001_000_000]  # once per binding call


def test_initialized_and_called_speak_of_the_binding_s_functions() -> None:
    with driver("h200") as library:
        assert not library.initialized
        pynvml.nvmlInit()
        assert library.initialized
        pynvml.nvmlDeviceGetPciInfo(gpu())
        pynvml.nvmlDeviceGetComputeRunningProcesses_v2(gpu())
        assert library.called("nvmlInit") == 1
        assert library.called("nvmlDeviceGetPciInfo") == 1  # the _v3 symbol
        assert library.called("nvmlDeviceGetComputeRunningProcesses_v2") == 1  # none listed
        assert library.called("nvmlDeviceGetComputeRunningProcesses") == 0
        pynvml.nvmlShutdown()
        assert not library.initialized
