"""The simulated driver under the real nvidia-ml-py binding behaves as a driver does: arguments
converted as ctypes converts them, symbols per branch, entries as wide as the branch writes."""

from __future__ import annotations

import ctypes
import json

import pynvml
import pytest

from gpu_tui.testing import simulated_driver
from gpu_tui.testing.simulated_driver import driver


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
    with driver("h200") as library:
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        with pytest.raises(ctypes.ArgumentError, match="argument 3"):
            pynvml.nvmlDeviceGetP2PStatus(handle, handle, pynvml.NVML_P2P_CAPS_INDEX_READ)
        assert pynvml.nvmlDeviceGetP2PStatus(handle, handle, 0) == 0
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
