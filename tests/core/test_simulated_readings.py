"""Every recorded reading comes back through the real nvidia-ml-py binding over the simulated
driver, on every branch: each call returns the recorded value, a null reading is NotSupported, a
symbol the branch lacks is FunctionNotFound.

The expected values are read from the JSON here, independently of the driver's own tables."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import pynvml
import pytest

from tests.fakes.simulated_driver import BRANCHES, READINGS, driver, reading_names

NOT_SUPPORTED = "NotSupported"
INVALID = "InvalidArgument"
NOT_FOUND = "NotFound"
MISSING = "FunctionNotFound"
MISMATCH = "LibraryMismatch"


def recorded(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((READINGS / f"{name}.json").read_text())
    return data


def setups() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each whole reading, and each reading that only adds to another merged over it (a file
    whose GPUs have no UUID: ``hgx_h100_8gpu_topology`` over ``hgx_h100_8gpu``)."""
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    names = reading_names()
    for name in names:
        if "uuid" in recorded(name)["devices"][0]:
            found[name] = (name, ())
            continue
        base = max((other for other in names if name.startswith(other + "_")), key=len)
        found[f"{base}+{name.removeprefix(base + '_')}"] = (base, (name,))
    return found


SETUPS = setups()


def merged(setup: str) -> dict[str, Any]:
    base, extras = SETUPS[setup]
    data = recorded(base)
    for extra in extras:
        more_data = recorded(extra)
        for device, more in zip(data["devices"], more_data.pop("devices"), strict=False):
            device.update(more)
        data.update({k: v for k, v in more_data.items() if not k.startswith("_")})
    return data


def locked(setup: str) -> set[int]:
    """The GPUs a reading puts outside the job's cgroup (``no_permission``)."""
    return {int(gpu) for gpu in merged(setup).get("no_permission") or ()}


def node_set(node: Any) -> Any:
    """A recorded NUMA node as the one-word node set the driver writes (or what it says)."""
    return [1 << node] if isinstance(node, int) else node


def at(record: Any, *path: str | int) -> Any:
    """The recorded value, or NOT_SUPPORTED where it is null or absent, INVALID past a list."""
    for step in path:
        if record is None:
            return NOT_SUPPORTED
        if isinstance(step, int):
            if step >= len(record):
                return INVALID
            record = record[step]
        else:
            record = record.get(step)
    return NOT_SUPPORTED if record is None else record


Handle = Any
Run = Callable[[Handle, list[Handle]], Any]
Expect = Callable[[dict[str, Any], int, int], Any]


@dataclass(frozen=True)
class Call:
    run: Run
    """What the app does: the binding's function on GPU ``handle`` (all handles given)."""
    expect: Expect
    """The value from the device's JSON record, its index and the GPU count."""
    needs: str | None = None
    """A C symbol some branches lack: there, the binding says FunctionNotFound."""
    missing: str = MISSING


def peer(index: int, count: int) -> int:
    return (index + 1) % count


def bus_fields(device: dict[str, Any]) -> Any:
    bus_id = at(device, "pci_bus_id")
    if bus_id == NOT_SUPPORTED:
        return bus_id
    domain, bus, rest = bus_id.split(":")
    return (bus_id, "0000:" + bus + ":" + rest, int(domain, 16), int(bus, 16))


def pci_fields(info: Any) -> tuple[str, str, int, int]:
    return (info.busId, info.busIdLegacy, info.domain, info.bus)


def clock(name: str, key: str, kind: int) -> tuple[str, Call]:
    return f"{name}[{key}]", Call(
        lambda h, _: getattr(pynvml, name)(h, kind),
        lambda d, i, n: at(
            d, "clock_mhz" if name == "nvmlDeviceGetClockInfo" else "max_clock_mhz", key
        ),
    )


def field_value(handle: Any, field: int) -> Any:
    """One field's value, or the short name of its own return code's error."""
    (value,) = pynvml.nvmlDeviceGetFieldValues(handle, [field])
    if value.nvmlReturn:
        raise pynvml.NVMLError(value.nvmlReturn)
    return value.value.ullVal


def total_used(memory: Any) -> tuple[int, int]:
    return memory.total, memory.used


def v1_memory(d: dict[str, Any], i: int, n: int) -> Any:
    """Version 1 counts what the driver reserves as used."""
    total, used = at(d, "memory_total_bytes"), at(d, "memory_used_bytes")
    if NOT_SUPPORTED in (total, used):
        return NOT_SUPPORTED
    return (total, used + d.get("memory_reserved_bytes", 0))


def v2_memory(d: dict[str, Any], i: int, n: int) -> Any:
    total, used = at(d, "memory_total_bytes"), at(d, "memory_used_bytes")
    if NOT_SUPPORTED in (total, used):
        return NOT_SUPPORTED
    return (total, used, d.get("memory_reserved_bytes", 0))


def pcie_pair(key: str, at_index: int) -> Expect:
    return lambda d, i, n: at(d, key, at_index)


CALLS: dict[str, Call] = {
    "nvmlDeviceGetName": Call(lambda h, _: pynvml.nvmlDeviceGetName(h), lambda d, i, n: d["name"]),
    "nvmlDeviceGetUUID": Call(
        lambda h, _: pynvml.nvmlDeviceGetUUID(h), lambda d, i, n: at(d, "uuid")
    ),
    "nvmlDeviceGetPciInfo": Call(
        lambda h, _: pci_fields(pynvml.nvmlDeviceGetPciInfo(h)), lambda d, i, n: bus_fields(d)
    ),
    "nvmlDeviceGetPciInfo.pciDeviceId": Call(
        lambda h, _: pynvml.nvmlDeviceGetPciInfo(h).pciDeviceId,
        lambda d, i, n: (
            NOT_SUPPORTED if d.get("pci_bus_id") is None else int(d["pci_device_id"], 16)
        ),
    ),
    "nvmlDeviceGetArchitecture": Call(
        lambda h, _: pynvml.nvmlDeviceGetArchitecture(h), lambda d, i, n: at(d, "architecture")
    ),
    "nvmlDeviceGetCudaComputeCapability": Call(
        lambda h, _: list(pynvml.nvmlDeviceGetCudaComputeCapability(h)),
        lambda d, i, n: at(d, "cuda_cc"),
    ),
    "nvmlDeviceGetNumGpuCores": Call(
        lambda h, _: pynvml.nvmlDeviceGetNumGpuCores(h), lambda d, i, n: at(d, "num_gpu_cores")
    ),
    "nvmlDeviceGetMemoryBusWidth": Call(
        lambda h, _: pynvml.nvmlDeviceGetMemoryBusWidth(h),
        lambda d, i, n: at(d, "memory_bus_width"),
    ),
    "nvmlDeviceGetMemoryInfo": Call(
        lambda h, _: total_used(pynvml.nvmlDeviceGetMemoryInfo(h)), v1_memory
    ),
    "nvmlDeviceGetMemoryInfo(v2)": Call(
        lambda h, _: (
            *total_used(pynvml.nvmlDeviceGetMemoryInfo(h, version=pynvml.nvmlMemory_v2)),
            pynvml.nvmlDeviceGetMemoryInfo(h, version=pynvml.nvmlMemory_v2).reserved,
        ),
        v2_memory,
        needs="nvmlDeviceGetMemoryInfo_v2",
    ),
    **dict(
        clock(name, key, kind)
        for name in ("nvmlDeviceGetClockInfo", "nvmlDeviceGetMaxClockInfo")
        for kind, key in enumerate(("graphics", "sm", "mem", "video"))
    ),
    "nvmlDeviceGetPowerManagementDefaultLimit": Call(
        lambda h, _: pynvml.nvmlDeviceGetPowerManagementDefaultLimit(h),
        lambda d, i, n: at(d, "power_default_limit_mw"),
    ),
    "nvmlDeviceGetEnforcedPowerLimit": Call(
        lambda h, _: pynvml.nvmlDeviceGetEnforcedPowerLimit(h),
        lambda d, i, n: at(d, "power_enforced_limit_mw"),
    ),
    "nvmlDeviceGetPowerUsage": Call(
        lambda h, _: pynvml.nvmlDeviceGetPowerUsage(h), lambda d, i, n: at(d, "power_usage_mw")
    ),
    "nvmlDeviceGetCurrPcieLinkGeneration": Call(
        lambda h, _: pynvml.nvmlDeviceGetCurrPcieLinkGeneration(h), pcie_pair("pcie_gen", 0)
    ),
    "nvmlDeviceGetMaxPcieLinkGeneration": Call(
        lambda h, _: pynvml.nvmlDeviceGetMaxPcieLinkGeneration(h), pcie_pair("pcie_gen", 1)
    ),
    "nvmlDeviceGetCurrPcieLinkWidth": Call(
        lambda h, _: pynvml.nvmlDeviceGetCurrPcieLinkWidth(h), pcie_pair("pcie_width", 0)
    ),
    "nvmlDeviceGetMaxPcieLinkWidth": Call(
        lambda h, _: pynvml.nvmlDeviceGetMaxPcieLinkWidth(h), pcie_pair("pcie_width", 1)
    ),
    "nvmlDeviceGetPcieThroughput[tx]": Call(
        lambda h, _: pynvml.nvmlDeviceGetPcieThroughput(h, pynvml.NVML_PCIE_UTIL_TX_BYTES),
        lambda d, i, n: at(d, "pcie_kbps", "tx"),
    ),
    "nvmlDeviceGetPcieThroughput[rx]": Call(
        lambda h, _: pynvml.nvmlDeviceGetPcieThroughput(h, pynvml.NVML_PCIE_UTIL_RX_BYTES),
        lambda d, i, n: at(d, "pcie_kbps", "rx"),
    ),
    "nvmlDeviceGetEccMode": Call(
        lambda h, _: pynvml.nvmlDeviceGetEccMode(h), lambda d, i, n: at(d, "ecc_mode")
    ),
    "nvmlDeviceGetMigMode": Call(
        lambda h, _: pynvml.nvmlDeviceGetMigMode(h), lambda d, i, n: at(d, "mig_mode")
    ),
    "nvmlDeviceGetPersistenceMode": Call(
        lambda h, _: pynvml.nvmlDeviceGetPersistenceMode(h),
        lambda d, i, n: at(d, "persistence_mode"),
    ),
    "nvmlDeviceGetComputeMode": Call(
        lambda h, _: pynvml.nvmlDeviceGetComputeMode(h), lambda d, i, n: at(d, "compute_mode")
    ),
    "nvmlDeviceGetTemperature": Call(
        lambda h, _: pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU),
        lambda d, i, n: at(d, "temperature_c"),
    ),
    **{
        f"nvmlDeviceGetTemperatureThreshold[{key}]": Call(
            lambda h, _, kind=kind: pynvml.nvmlDeviceGetTemperatureThreshold(h, kind),
            lambda d, i, n, key=key: at(d, "temperature_threshold_c", key),
        )
        for kind, key in (
            (pynvml.NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, "shutdown"),
            (pynvml.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, "slowdown"),
            (pynvml.NVML_TEMPERATURE_THRESHOLD_MEM_MAX, "mem_max"),
            (pynvml.NVML_TEMPERATURE_THRESHOLD_GPU_MAX, "gpu_max"),
        )
    },
    "nvmlDeviceGetVbiosVersion": Call(
        lambda h, _: pynvml.nvmlDeviceGetVbiosVersion(h), lambda d, i, n: at(d, "vbios_version")
    ),
    "nvmlDeviceGetUtilizationRates": Call(
        lambda h, _: (lambda u: {"gpu": u.gpu, "memory": u.memory})(
            pynvml.nvmlDeviceGetUtilizationRates(h)
        ),
        lambda d, i, n: at(d, "utilization_percent"),
    ),
    "nvmlDeviceGetEncoderUtilization": Call(
        lambda h, _: pynvml.nvmlDeviceGetEncoderUtilization(h)[0],
        lambda d, i, n: at(d, "encoder_percent"),
    ),
    "nvmlDeviceGetDecoderUtilization": Call(
        lambda h, _: pynvml.nvmlDeviceGetDecoderUtilization(h)[0],
        lambda d, i, n: at(d, "decoder_percent"),
    ),
    "nvmlDeviceGetFanSpeed": Call(
        lambda h, _: pynvml.nvmlDeviceGetFanSpeed(h), lambda d, i, n: at(d, "fan_percent")
    ),
    "nvmlDeviceGetTotalEccErrors": Call(
        lambda h, _: pynvml.nvmlDeviceGetTotalEccErrors(
            h, pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, pynvml.NVML_VOLATILE_ECC
        ),
        lambda d, i, n: at(d, "ecc_volatile_uncorrected"),
    ),
    "nvmlDeviceGetTotalEccErrors[corrected]": Call(
        lambda h, _: pynvml.nvmlDeviceGetTotalEccErrors(
            h, pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED, pynvml.NVML_VOLATILE_ECC
        ),
        lambda d, i, n: at(d, "ecc_volatile_corrected"),
    ),
    "nvmlDeviceGetTotalEnergyConsumption": Call(
        lambda h, _: pynvml.nvmlDeviceGetTotalEnergyConsumption(h),
        lambda d, i, n: at(d, "energy_mj"),
    ),
    "nvmlDeviceGetPcieReplayCounter": Call(
        lambda h, _: pynvml.nvmlDeviceGetPcieReplayCounter(h),
        lambda d, i, n: at(d, "pcie_replay_count"),
    ),
    "nvmlDeviceGetRemappedRows": Call(
        lambda h, _: pynvml.nvmlDeviceGetRemappedRows(h),
        lambda d, i, n: (
            NOT_SUPPORTED
            if "remapped_rows" not in d
            else tuple(
                d["remapped_rows"][k] for k in ("correctable", "uncorrectable", "pending", "failed")
            )
        ),
    ),
    "nvmlDeviceGetFieldValues[memory temperature]": Call(
        lambda h, _: field_value(h, pynvml.NVML_FI_DEV_MEMORY_TEMP),
        lambda d, i, n: at(d, "memory_temperature_c"),
    ),
    "nvmlDeviceGetCurrentClocksEventReasons": Call(
        lambda h, _: pynvml.nvmlDeviceGetCurrentClocksEventReasons(h),
        lambda d, i, n: at(d, "clocks_event_reasons"),
        needs="nvmlDeviceGetCurrentClocksEventReasons",
    ),
    "nvmlDeviceGetCurrentClocksThrottleReasons": Call(
        lambda h, _: pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(h),
        lambda d, i, n: at(d, "clocks_event_reasons"),
    ),
    **{
        f"{name}[{link}]": Call(
            lambda h, _, name=name, link=link: getattr(pynvml, name)(h, link),
            lambda d, i, n, key=key, link=link: at(d, key, link),
        )
        for name, key in (
            ("nvmlDeviceGetNvLinkState", "nvlink_active"),
            ("nvmlDeviceGetNvLinkVersion", "nvlink_version"),
            ("nvmlDeviceGetNvLinkRemoteDeviceType", "nvlink_remote_type"),
        )
        for link in (0, 17, 18)
    },
    "nvmlDeviceGetNumaNodeId": Call(
        lambda h, _: pynvml.nvmlDeviceGetNumaNodeId(h),
        lambda d, i, n: at(d, "gpu_memory_numa_node"),
    ),
    "nvmlDeviceGetMemoryAffinity": Call(
        lambda h, _: list(pynvml.nvmlDeviceGetMemoryAffinity(h, 1, 0)),
        lambda d, i, n: node_set(at(d, "numa_node")),
    ),
    "nvmlDeviceGetCpuAffinity": Call(
        lambda h, _: list(pynvml.nvmlDeviceGetCpuAffinity(h, 4)),
        lambda d, i, n: at(d, "cpu_affinity_words"),
    ),
    "nvmlDeviceGetTopologyCommonAncestor": Call(
        lambda h, every: pynvml.nvmlDeviceGetTopologyCommonAncestor(
            h, every[peer(every.index(h), len(every))]
        ),
        lambda d, i, n: at(d, "pcie_level", peer(i, n)),
    ),
    "nvmlDeviceGetP2PStatus": Call(
        lambda h, every: pynvml.nvmlDeviceGetP2PStatus(
            h, every[peer(every.index(h), len(every))], 0
        ),
        lambda d, i, n: at(d, "p2p_read_status", peer(i, n)),
    ),
    "nvmlDeviceGetMaxMigDeviceCount": Call(
        lambda h, _: pynvml.nvmlDeviceGetMaxMigDeviceCount(h),
        lambda d, i, n: at(d, "max_mig_device_count"),
    ),
    "nvmlDeviceGetComputeRunningProcesses_v2": Call(
        lambda h, _: [p.pid for p in pynvml.nvmlDeviceGetComputeRunningProcesses_v2(h)],
        lambda d, i, n: [p["pid"] for p in at(d, "processes", "compute")],
    ),
    "nvmlDeviceGetGraphicsRunningProcesses": Call(
        lambda h, _: [p.pid for p in pynvml.nvmlDeviceGetGraphicsRunningProcesses(h)],
        lambda d, i, n: [p["pid"] for p in at(d, "processes", "graphics")],
        needs="nvmlDeviceGetGraphicsRunningProcesses_v3",
        missing=MISMATCH,
    ),
    "nvmlDeviceIsMigDeviceHandle": Call(
        lambda h, _: pynvml.nvmlDeviceIsMigDeviceHandle(h).value, lambda d, i, n: 0
    ),
}


def outcome(call: Callable[[], Any]) -> Any:
    """The value, or the short name of the error the binding raised."""
    try:
        return call()
    except pynvml.NVMLLibraryMismatchError:
        return MISMATCH
    except pynvml.NVMLError as error:
        return type(error).__name__.removeprefix("NVMLError_")


@pytest.mark.parametrize("branch", BRANCHES)
@pytest.mark.parametrize("setup", SETUPS)
def test_every_call_returns_the_recorded_value(setup: str, branch: str) -> None:
    """One test per reading and branch (each call a test of its own would be 1,500 items that
    cost more to schedule than to run); the failures name every call that went wrong."""
    every = merged(setup)["devices"]
    outside = locked(setup)
    devices = [d for i, d in enumerate(every) if i not in outside]  # the GPUs the job may open
    base, extras = SETUPS[setup]
    wrong: dict[str, tuple[list[Any], list[Any]]] = {}
    with driver(base, branch, add=extras):
        pynvml.nvmlInit()
        refused = [outcome(partial(pynvml.nvmlDeviceGetHandleByIndex, i)) for i in sorted(outside)]
        assert refused == ["NoPermission"] * len(outside)
        handles = [
            pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(len(every)) if i not in outside
        ]
        for name, spec in CALLS.items():
            got = [outcome(lambda h=h, spec=spec: spec.run(h, handles)) for h in handles]
            if spec.needs is not None and not BRANCHES[branch].exports(spec.needs):
                expected = [spec.missing] * len(devices)
            else:
                expected = [spec.expect(d, i, len(devices)) for i, d in enumerate(devices)]
            if got != expected:
                wrong[name] = (got, expected)
        pynvml.nvmlShutdown()
    assert len(CALLS) > 50
    assert not wrong, wrong


@pytest.mark.parametrize("branch", BRANCHES)
@pytest.mark.parametrize("setup", SETUPS)
def test_the_system_calls_give_the_branch_s_versions(setup: str, branch: str) -> None:
    base, extras = SETUPS[setup]
    with driver(base, branch, add=extras):
        pynvml.nvmlInit()
        versions = (
            pynvml.nvmlSystemGetDriverVersion(),
            pynvml.nvmlSystemGetCudaDriverVersion(),
            pynvml.nvmlSystemGetNVMLVersion(),
            pynvml.nvmlDeviceGetCount(),
        )
    expected = BRANCHES[branch]
    major = expected.cuda_driver_version // 1000
    assert versions == (
        expected.driver_version,
        expected.cuda_driver_version,
        f"{major}.{expected.driver_version}",
        len(merged(setup)["devices"]),
    )


@pytest.mark.parametrize("setup", SETUPS)
def test_left_to_itself_the_driver_is_the_one_the_reading_was_recorded_on(setup: str) -> None:
    data = merged(setup)
    base, extras = SETUPS[setup]
    with driver(base, add=extras):
        pynvml.nvmlInit()
        versions = (
            pynvml.nvmlSystemGetDriverVersion(),
            pynvml.nvmlSystemGetCudaDriverVersion(),
            pynvml.nvmlSystemGetNVMLVersion(),
        )
    if data["driver_version"] is None:  # not recorded: the default branch's
        default = BRANCHES["r550"]
        assert versions == (default.driver_version, default.cuda_driver_version, "12.550.90.12")
    else:
        assert versions == (
            data["driver_version"],
            data["cuda_driver_version"],
            data["nvml_version"],
        )


MIG_READINGS = [
    name for name in SETUPS if any(d.get("mig_devices") for d in merged(name)["devices"])
]


@pytest.mark.parametrize("branch", BRANCHES)
@pytest.mark.parametrize("setup", MIG_READINGS)
def test_each_mig_device_reads_its_own_record(setup: str, branch: str) -> None:
    devices = merged(setup)["devices"]
    base, extras = SETUPS[setup]
    with driver(base, branch, add=extras):
        pynvml.nvmlInit()
        for index, device in enumerate(devices):
            parent = pynvml.nvmlDeviceGetHandleByIndex(index)
            slots = device.get("mig_devices") or []
            for slot, mig in enumerate(slots):
                handle = pynvml.nvmlDeviceGetMigDeviceHandleByIndex(parent, slot)
                memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
                assert pynvml.nvmlDeviceGetName(handle) == mig["name"]
                assert pynvml.nvmlDeviceGetUUID(handle) == mig["uuid"]
                assert (memory.total, memory.used) == (
                    mig["memory_total_bytes"],
                    mig["memory_used_bytes"],
                )
                assert pynvml.nvmlDeviceIsMigDeviceHandle(handle).value == 1
                assert pynvml.nvmlDeviceGetGpuInstanceId(handle) == mig["gpu_instance_id"]
                assert pynvml.nvmlDeviceGetComputeInstanceId(handle) == mig["compute_instance_id"]
                assert outcome(lambda h=handle: pynvml.nvmlDeviceGetPowerUsage(h)) == NOT_SUPPORTED
                back = pynvml.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(handle)
                assert pynvml.nvmlDeviceGetUUID(back) == device["uuid"]
            past = outcome(partial(pynvml.nvmlDeviceGetMigDeviceHandleByIndex, parent, len(slots)))
            assert past == NOT_FOUND  # an empty slot


def test_every_reading_is_covered() -> None:
    covered = {name for base, extras in SETUPS.values() for name in (base, *extras)}
    assert covered == set(reading_names())
    assert MIG_READINGS
