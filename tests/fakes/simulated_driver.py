"""A simulated ``libnvidia-ml`` under the real nvidia-ml-py binding: only ``pynvml.nvmlLib`` is
replaced, so the binding's own functions, structs, version fallbacks and constants run as they do
on a GPU server, and the simulated C functions write what a given driver branch writes.

What makes it a driver and not a stand-in for ``pynvml``:

- **Arguments are converted as ctypes converts them for a C call** with no ``argtypes``: an int,
  bytes, ``None`` or a ctypes object goes through; anything else (a tuple such as the binding's
  own ``NVML_P2P_CAPS_INDEX_READ = (0,)``, a float, a Python object) raises
  ``ctypes.ArgumentError`` before the "driver" is reached, as on a real machine.
- **Results are written through the caller's pointers** and the call returns an NVML return
  code; the binding turns a code into its ``NVMLError_*`` and a symbol the library lacks into
  ``NVMLError_FunctionNotFound``, exactly as over ``libnvidia-ml.so.1``.
- **Driver branches are data** (:data:`BRANCHES`): the symbols each exports and how wide the
  process entries it writes are. R535 writes 32-byte entries through the ``_v3`` process calls,
  which this binding reads as 24-byte ones (every entry after the first is garbled into PID 0 /
  4294967295 phantoms); 535.98 and later R535 releases export no ``_v3`` at all; R470 has neither
  ``_v3`` nor ``nvmlDeviceGetMemoryInfo_v2``.
- **Memory as the driver counts it**: the unversioned call (v1) reports reserved memory as used
  (``used = total - free``); ``nvmlDeviceGetMemoryInfo_v2`` reports it apart, as nvidia-smi does.
- **Handles a job may not open**: ``nvmlDeviceGetCount`` counts every GPU, and the handle of one
  outside the job's cgroup fails with ``NVML_ERROR_NO_PERMISSION`` (Slurm ``ConstrainDevices``).
- **Calls before ``nvmlInit``** (or after the last ``nvmlShutdown``) return
  ``NVML_ERROR_UNINITIALIZED``, as the library does.

- **Counters and events as the driver keeps them**: NVLink data counters grow at a recorded
  rate from the library's start; XID events wait in an event set until taken
  (``library.raise_xid(3, 79)``); GPM metrics are answered between two samples of one GPU, on
  Hopper and newer only, from the recorded ``gpm`` reading.

Readings are the recorded JSON files in ``nvml_readings/``; a ``null`` or absent reading makes
its call return ``NVML_ERROR_NOT_SUPPORTED``, as a driver does for a field the GPU lacks. Calls
that only copy one reading into out-parameters are rows of :data:`READS` and :data:`STRINGS`;
the others are ``_c_<symbol>`` methods.

Faults, named by the *binding's* function (``"nvmlDeviceGetPowerUsage"``, ``"nvmlInit"``), which
is mapped to the C symbols that function calls (:func:`c_symbols`)::

    library.fail_init("LibRmVersionMismatch")      # nvmlInit raises
    library.lose(1, at_handle=True)                # GpuIsLost at nvmlDeviceGetHandleByIndex(1)
    library.lose(0)                                # GpuIsLost for GPU 0, its handle included
    library.not_supported(0, "nvmlDeviceGetPowerUsage")
    library.fail(None, "nvmlDeviceGetName", "NoPermission")     # every GPU
    library.remove_function("nvmlDeviceGetCurrentClocksEventReasons")   # FunctionNotFound
    library.block("nvmlDeviceGetPowerUsage", 2.0)  # the call sleeps 2 s first
    library.hang("nvmlInit")                       # the call blocks until library.release()
    library.set_processes(0, compute=[{"pid": 42, "used_memory_bytes": 1 << 30, "sm_percent": 80}])
    library.set_reading(0, sm_clock_mhz=1755, power_watts=700, clocks_event_reasons=0x4)

:func:`install` puts a driver under the real ``pynvml`` and :func:`uninstall` takes it away again;
:func:`driver` does both around a block. A subprocess gets one through
``tests/fakes/simulated_binding.py``.
"""

from __future__ import annotations

import ctypes
import inspect
import json
import re
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

READINGS = Path(__file__).parent / "nvml_readings"

# NVML return codes (nvml.h): the binding turns each into its NVMLError_* class.
SUCCESS = 0
ERROR_UNINITIALIZED = 1
ERROR_INVALID_ARGUMENT = 2
ERROR_NOT_SUPPORTED = 3
ERROR_NO_PERMISSION = 4
ERROR_NOT_FOUND = 6
ERROR_INSUFFICIENT_SIZE = 7
ERROR_FUNCTION_NOT_FOUND = 13
ERROR_GPU_IS_LOST = 15
ERROR_ARGUMENT_VERSION_MISMATCH = 25
ERROR_UNKNOWN = 999

ERROR_CODES: dict[str, int] = {
    "UNINITIALIZED": 1,
    "INVALID_ARGUMENT": 2,
    "NOT_SUPPORTED": 3,
    "NO_PERMISSION": 4,
    "ALREADY_INITIALIZED": 5,
    "NOT_FOUND": 6,
    "INSUFFICIENT_SIZE": 7,
    "INSUFFICIENT_POWER": 8,
    "DRIVER_NOT_LOADED": 9,
    "TIMEOUT": 10,
    "IRQ_ISSUE": 11,
    "LIBRARY_NOT_FOUND": 12,
    "FUNCTION_NOT_FOUND": 13,
    "CORRUPTED_INFOROM": 14,
    "GPU_IS_LOST": 15,
    "RESET_REQUIRED": 16,
    "OPERATING_SYSTEM": 17,
    "LIB_RM_VERSION_MISMATCH": 18,
    "IN_USE": 19,
    "MEMORY": 20,
    "NO_DATA": 21,
    "VGPU_ECC_NOT_SUPPORTED": 22,
    "INSUFFICIENT_RESOURCES": 23,
    "FREQ_NOT_SUPPORTED": 24,
    "ARGUMENT_VERSION_MISMATCH": 25,
    "DEPRECATED": 26,
    "NOT_READY": 27,
    "GPU_NOT_FOUND": 28,
    "INVALID_STATE": 29,
    "RESET_TYPE_NOT_SUPPORTED": 30,
    "UNKNOWN": 999,
}
"""``NVML_ERROR_*`` (nvml.h)."""

HANDLE_BASE = 0x6E76_0000
"""Simulated device handles are addresses from here, one page per GPU."""
MIG_STRIDE = 0x10
"""A MIG device's handle lies inside its GPU's page: slot ``s`` at ``(s + 1) * MIG_STRIDE``."""

_R535_PROCESS_ENTRY = struct.Struct("<IxxxxQIIQ")
"""pid, usedGpuMemory, gpuInstanceId, computeInstanceId, usedGpuCcProtectedMemory: 32 bytes."""
_PROCESS_ENTRY = struct.Struct("<IxxxxQII")
"""pid, usedGpuMemory, gpuInstanceId, computeInstanceId: 24 bytes (``nvmlProcessInfo_v2_t``)."""
NO_INSTANCE = 0xFFFFFFFF
"""gpuInstanceId / computeInstanceId of a process on a GPU without MIG."""
NOT_AVAILABLE_U64 = 0xFFFF_FFFF_FFFF_FFFF
"""``NVML_VALUE_NOT_AVAILABLE`` as a 64-bit field: a process's memory the driver cannot see."""
MEMORY_V2 = 0x02000028
"""``nvmlMemory_v2``: the struct version ``nvmlDeviceGetMemoryInfo_v2`` checks."""
EVENT_SET_BASE = 0x6576_0000
"""Simulated event-set handles are addresses from here."""
GPM_SAMPLE_BASE = 0x6770_0000
"""Simulated GPM sample buffers are addresses from here."""
XID_EVENT = 0x8
"""``nvmlEventTypeXidCriticalError``."""
ERROR_TIMEOUT = 10
GPM_METRICS = {
    1: "graphics_util",
    2: "sm_util",
    3: "sm_occupancy",
    5: "any_tensor_util",
    10: "dram_bw_util",
    11: "fp64_util",
    12: "fp32_util",
    13: "fp16_util",
    20: "pcie_tx_mib_per_second",
    21: "pcie_rx_mib_per_second",
    60: "nvlink_rx_mib_per_second",
    61: "nvlink_tx_mib_per_second",
}
"""``NVML_GPM_METRIC_*`` id → key of a device's ``gpm`` reading (percent, or MiB/s)."""
FIELD_MEMORY_TEMP = 82
FIELD_NVLINK_DATA_TX = 138
FIELD_NVLINK_DATA_RX = 139
VALUE_TYPE_UNSIGNED_LONG_LONG = 3
SAMPLING_PERIOD_US = 167_000
"""What the encoder/decoder utilisation calls report as their sampling period."""

_GPM = frozenset(
    {
        "nvmlGpmQueryDeviceSupport",
        "nvmlGpmSampleAlloc",
        "nvmlGpmSampleGet",
        "nvmlGpmMetricsGet",
        "nvmlGpmSampleFree",
    }
)
"""GPU Performance Monitoring: R520 and newer."""

_FABRIC_V = frozenset({"nvmlDeviceGetGpuFabricInfoV"})
"""The versioned fabric-state call: R550 and newer."""
_FABRIC = _FABRIC_V | {"nvmlDeviceGetGpuFabricInfo"}
"""The NVSwitch fabric's state per GPU (Hopper and newer on NVSwitch systems): R535 and newer."""

_NEWER_THAN_R470 = (
    _GPM
    | _FABRIC
    | frozenset(
        {
            "nvmlDeviceGetComputeRunningProcesses_v3",
            "nvmlDeviceGetGraphicsRunningProcesses_v3",
            "nvmlDeviceGetMemoryInfo_v2",
            "nvmlDeviceGetCurrentClocksEventReasons",
            "nvmlDeviceGetConfComputeMemSizeInfo",
            "nvmlDeviceGetRunningProcessDetailList",
        }
    )
)


@dataclass(frozen=True)
class Branch:
    """One driver branch: its version strings, the symbols it lacks, and the bytes it writes
    per process entry through each process call."""

    name: str
    driver_version: str
    cuda_driver_version: int
    missing: frozenset[str]
    process_entry_bytes: dict[str, int] = field(default_factory=dict)
    """Per symbol; a symbol not listed writes the 24-byte v2 entry."""

    def exports(self, symbol: str) -> bool:
        return symbol not in self.missing


BRANCHES: dict[str, Branch] = {
    "r470": Branch(
        "R470",
        "470.256.02",
        11040,
        missing=_NEWER_THAN_R470,
    ),
    "r510": Branch(
        "R510 to R530",
        "530.30.02",
        12010,
        missing=frozenset(
            {
                "nvmlDeviceGetCurrentClocksEventReasons",
                "nvmlDeviceGetConfComputeMemSizeInfo",
                "nvmlDeviceGetRunningProcessDetailList",
            }
        )
        | _GPM
        | _FABRIC,
    ),
    "r535": Branch(
        "R535",
        "535.86.10",
        12020,
        missing=frozenset({"nvmlDeviceGetRunningProcessDetailList"}) | _FABRIC_V,
        process_entry_bytes={
            "nvmlDeviceGetComputeRunningProcesses_v3": 32,
            "nvmlDeviceGetGraphicsRunningProcesses_v3": 32,
        },
    ),
    "r535.98": Branch(
        "R535 (535.98 and later)",
        "535.183.01",
        12020,
        missing=frozenset(
            {
                "nvmlDeviceGetComputeRunningProcesses_v3",
                "nvmlDeviceGetGraphicsRunningProcesses_v3",
                "nvmlDeviceGetRunningProcessDetailList",
            }
        )
        | _FABRIC_V,
    ),
    "r550": Branch("R550", "550.90.12", 12040, missing=frozenset()),
    "r570": Branch("R570", "570.133.20", 12080, missing=frozenset()),
}
"""The branches a test can say "on R535 …" about. Symbols and entry sizes as NVML's headers and
nvitop's per-driver rules (``nvitop/api/libnvml.py``) give them. A key names the first release
the row describes (``r535.98``: 535.98 on)."""

DEFAULT_BRANCH = "r550"
"""The branch of a reading that records no driver version."""


def branch_for(version: str | None) -> str:
    """The key of the branch a recorded driver ``version`` belongs to: the newest row of
    :data:`BRANCHES` released at or before it (565.57.01 behaves as R550 here)."""
    if not version:
        return DEFAULT_BRANCH
    recorded = tuple(int(part) for part in version.split(".")[:2])

    def first_release(key: str) -> tuple[int, ...]:
        major, _, minor = key[1:].partition(".")
        return int(major), int(minor or 0)

    older = [key for key in BRANCHES if first_release(key) <= recorded]
    return max(older, key=first_release) if older else min(BRANCHES, key=first_release)


def ctypes_argument_check(position: int, value: object) -> None:
    """Raise what ctypes raises for ``value`` as argument ``position`` (1-based) of a C function
    called without ``argtypes``."""
    if value is None or isinstance(value, bytes | str | ctypes._SimpleCData):
        return
    if isinstance(value, ctypes.Structure | ctypes.Array | ctypes._Pointer | ctypes.Union):
        return
    if type(value).__name__ == "CArgObject":  # what ctypes.byref returns
        return
    if isinstance(value, int) and not isinstance(value, bool):
        if not -(2**31) <= value < 2**32:
            raise ctypes.ArgumentError(
                f"argument {position}: OverflowError: int too long to convert"
            )
        return
    raise ctypes.ArgumentError(
        f"argument {position}: TypeError: Don't know how to convert parameter {position}"
    )


def error_code(short_name: str | int) -> int:
    """The NVML return code of ``"GpuIsLost"`` (the binding's ``NVMLError_GpuIsLost``), of
    ``"GPU_IS_LOST"``, or of the code itself."""
    if isinstance(short_name, int):
        return short_name
    name = short_name.removeprefix("NVMLError_")
    for constant, code in ERROR_CODES.items():
        if name in (constant, "".join(part.capitalize() for part in constant.split("_"))):
            return code
    raise KeyError(f"no NVML error is called {short_name!r}")


_POINTER_CALL = re.compile(r'_nvmlGetFunctionPointer\("(\w+)"\)')
_CALLED = re.compile(r"\b(nvml\w+)\(")


def c_symbols(binding: Any, function: str) -> frozenset[str]:
    """The C symbols the binding's ``function`` looks up, following the binding's own calls
    (``nvmlInit`` → ``nvmlInitWithFlags``, ``nvmlDeviceGetPciInfo`` → ``…_v3``). A name the
    binding does not define is taken as a C symbol itself."""
    if not callable(getattr(binding, function, None)):
        return frozenset({function})
    found: set[str] = set()
    seen: set[str] = set()

    def walk(name: str) -> None:
        python = getattr(binding, name, None)
        if name in seen or not inspect.isfunction(python):
            return
        seen.add(name)
        source = inspect.getsource(inspect.unwrap(python))
        found.update(_POINTER_CALL.findall(source))
        for called in _CALLED.findall(source):
            walk(called)

    walk(function)
    return frozenset(found)


# -- the table of calls that copy readings into out-parameters ----------------------------------


@dataclass(frozen=True)
class Arg:
    """A step of a reading's path taken from the call's value arguments (0 = the first one after
    the device handle): looked up in ``names``, or used as a list index when there are none.
    An argument ``names`` lacks is ``NVML_ERROR_INVALID_ARGUMENT``."""

    position: int | tuple[int, ...]
    names: Mapping[Any, str] | None = None


@dataclass(frozen=True)
class Const:
    """An out-parameter the driver fills with the same value on every GPU."""

    value: int


PathStep = str | int | Arg
Out = tuple[PathStep, ...] | Const


@dataclass(frozen=True)
class Reads:
    """``nvmlX(device, <inputs value arguments>, out…)``: each out-parameter gets the reading at
    its path in the device's record (a MIG device's record for a MIG handle)."""

    outs: tuple[Out, ...]
    inputs: int = 0


def _one(*path: PathStep, inputs: int = 0) -> Reads:
    return Reads((path,), inputs)


CLOCKS = {0: "graphics", 1: "sm", 2: "mem", 3: "video"}
"""``nvmlClockType_t`` → key of ``clock_mhz`` / ``max_clock_mhz``."""
THRESHOLDS = {0: "shutdown", 1: "slowdown", 2: "mem_max", 3: "gpu_max"}
"""``nvmlTemperatureThresholds_t`` → key of ``temperature_threshold_c``."""
SENSORS = {0: "temperature_c"}
"""``nvmlTemperatureSensors_t``: NVML_TEMPERATURE_GPU is the only sensor."""
PCIE_COUNTERS = {0: "tx", 1: "rx"}
"""``nvmlPcieUtilCounter_t`` → key of ``pcie_kbps``."""
ECC_COUNTERS = {
    (1, 0): "ecc_volatile_uncorrected",
    (0, 0): "ecc_volatile_corrected",
    (1, 1): "ecc_aggregate_uncorrected",
    (0, 1): "ecc_aggregate_corrected",
}
"""(``nvmlMemoryErrorType_t``, ``nvmlEccCounterType_t``) → reading."""
RETIREMENT_CAUSES = {0: "single_bit", 1: "double_bit"}
"""``nvmlPageRetirementCause_t`` (multiple single-bit errors, a double-bit error) → key of
``retired_pages``."""

READS: dict[str, Reads] = {
    "nvmlDeviceGetArchitecture": _one("architecture"),
    "nvmlDeviceGetNumGpuCores": _one("num_gpu_cores"),
    "nvmlDeviceGetMemoryBusWidth": _one("memory_bus_width"),
    "nvmlDeviceGetCudaComputeCapability": Reads((("cuda_cc", 0), ("cuda_cc", 1))),
    "nvmlDeviceGetClockInfo": _one("clock_mhz", Arg(0, CLOCKS), inputs=1),
    "nvmlDeviceGetMaxClockInfo": _one("max_clock_mhz", Arg(0, CLOCKS), inputs=1),
    "nvmlDeviceGetPowerManagementDefaultLimit": _one("power_default_limit_mw"),
    "nvmlDeviceGetEnforcedPowerLimit": _one("power_enforced_limit_mw"),
    "nvmlDeviceGetPowerUsage": _one("power_usage_mw"),
    "nvmlDeviceGetCurrPcieLinkGeneration": _one("pcie_gen", 0),
    "nvmlDeviceGetMaxPcieLinkGeneration": _one("pcie_gen", 1),
    "nvmlDeviceGetCurrPcieLinkWidth": _one("pcie_width", 0),
    "nvmlDeviceGetMaxPcieLinkWidth": _one("pcie_width", 1),
    "nvmlDeviceGetPcieThroughput": _one("pcie_kbps", Arg(0, PCIE_COUNTERS), inputs=1),
    "nvmlDeviceGetEccMode": Reads((("ecc_mode", 0), ("ecc_mode", 1))),
    "nvmlDeviceGetMigMode": Reads((("mig_mode", 0), ("mig_mode", 1))),
    "nvmlDeviceGetPersistenceMode": _one("persistence_mode"),
    "nvmlDeviceGetComputeMode": _one("compute_mode"),
    "nvmlDeviceGetTemperature": _one(Arg(0, SENSORS), inputs=1),
    "nvmlDeviceGetTemperatureThreshold": _one(
        "temperature_threshold_c", Arg(0, THRESHOLDS), inputs=1
    ),
    "nvmlDeviceGetFanSpeed": _one("fan_percent"),
    "nvmlDeviceGetEncoderUtilization": Reads((("encoder_percent",), Const(SAMPLING_PERIOD_US))),
    "nvmlDeviceGetDecoderUtilization": Reads((("decoder_percent",), Const(SAMPLING_PERIOD_US))),
    "nvmlDeviceGetTotalEccErrors": _one(Arg((0, 1), ECC_COUNTERS), inputs=2),
    "nvmlDeviceGetCurrentClocksEventReasons": _one("clocks_event_reasons"),
    "nvmlDeviceGetCurrentClocksThrottleReasons": _one("clocks_event_reasons"),
    "nvmlDeviceGetNvLinkState": _one("nvlink_active", Arg(0), inputs=1),
    "nvmlDeviceGetNvLinkVersion": _one("nvlink_version", Arg(0), inputs=1),
    "nvmlDeviceGetNvLinkRemoteDeviceType": _one("nvlink_remote_type", Arg(0), inputs=1),
    # the GPU memory's own NUMA node: only on a Grace system, where the GPUs are NUMA nodes
    "nvmlDeviceGetNumaNodeId": _one("gpu_memory_numa_node"),
    "nvmlDeviceGetMaxMigDeviceCount": _one("max_mig_device_count"),
    "nvmlDeviceGetGpuInstanceId": _one("gpu_instance_id"),
    "nvmlDeviceGetComputeInstanceId": _one("compute_instance_id"),
    "nvmlDeviceGetTotalEnergyConsumption": _one("energy_mj"),
    "nvmlDeviceGetPcieReplayCounter": _one("pcie_replay_count"),
    "nvmlDeviceGetRetiredPagesPendingStatus": _one("retired_pages_pending"),
    "nvmlDeviceGetRemappedRows": Reads(
        tuple(
            ("remapped_rows", key) for key in ("correctable", "uncorrectable", "pending", "failed")
        )
    ),
}
"""C functions that copy readings into integer out-parameters, by symbol."""

STRINGS: dict[str, str] = {
    "nvmlDeviceGetName": "name",
    "nvmlDeviceGetUUID": "uuid",
    "nvmlDeviceGetVbiosVersion": "vbios_version",
}
"""``nvmlX(device, char *buffer, unsigned int size)``: the reading as a C string."""

_BEFORE_INIT = frozenset({"nvmlInitWithFlags", "nvmlInit_v2", "nvmlInit", "nvmlErrorString"})
"""Symbols the library answers before ``nvmlInit``."""


class _Return(Exception):  # noqa: N818 - a return code, not an error of the simulation
    """Leave a simulated C function with this NVML return code."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _target(pointer: Any) -> Any:
    """The ctypes object a ``byref(...)`` (or ``pointer(...)``) argument points at."""
    if isinstance(pointer, ctypes._Pointer):
        return pointer.contents
    return pointer._obj


def _number(value: Any) -> int:
    """A value argument as the C function sees it (a ``c_uint`` or a plain int)."""
    return int(getattr(value, "value", value))


def _write_string(buffer: Any, size: Any, text: str) -> int:
    encoded = text.encode()
    if len(encoded) + 1 > _number(size):
        return ERROR_INSUFFICIENT_SIZE
    buffer.value = encoded
    return SUCCESS


def _write_handle(out: Any, address: int) -> None:
    handle = ctypes.c_void_p(address)
    ctypes.memmove(ctypes.addressof(_target(out)), ctypes.byref(handle), ctypes.sizeof(handle))


def _address(handle: Any) -> int | None:
    if not isinstance(handle, ctypes._Pointer | ctypes.c_void_p):
        return None
    return ctypes.cast(handle, ctypes.c_void_p).value or 0


def _reading(record: Mapping[str, Any] | None, *path: str | int) -> Any:
    """The reading at ``path``: NOT_SUPPORTED where it is null or absent, INVALID_ARGUMENT past
    the end of a list (a link the GPU does not have)."""
    value: Any = record
    for step in path:
        if value is None:
            break
        if isinstance(step, int):
            if not 0 <= step < len(value):
                raise _Return(ERROR_INVALID_ARGUMENT)
            value = value[step]
        else:
            value = value.get(step)
    if value is None:
        raise _Return(ERROR_NOT_SUPPORTED)
    return value


def _fill_pci(info: Any, bus_id: str, device_id: str | None, subsystem_id: str | None) -> None:
    domain, bus, rest = bus_id.split(":")
    device = rest.split(".")[0]
    info.busId = bus_id.encode()
    info.busIdLegacy = bus_id[-12:].encode()  # "0000:03:00.0": a 16-bit domain
    info.domain, info.bus, info.device = int(domain, 16), int(bus, 16), int(device, 16)
    info.pciDeviceId = int(device_id, 16) if device_id else 0
    info.pciSubSystemId = int(subsystem_id, 16) if subsystem_id else 0


class SimulatedLibrary:
    """What ``CDLL("libnvidia-ml.so.1")`` would be: each exported symbol is an attribute that
    takes C arguments and returns an NVML return code.

    ``branch`` left out: the branch the reading was recorded on (:func:`branch_for`), and the
    recorded version strings; given: that branch's own version strings."""

    def __init__(self, reading: dict[str, Any], branch: Branch | None = None) -> None:
        self.reading = reading
        recorded = branch is None
        self.branch: Branch = (
            BRANCHES[branch_for(reading.get("driver_version"))] if branch is None else branch
        )
        versions = reading if recorded and reading.get("driver_version") else {}
        self.driver_version: str = versions.get("driver_version") or self.branch.driver_version
        self.cuda_driver_version: int = int(
            versions.get("cuda_driver_version") or self.branch.cuda_driver_version
        )
        self.nvml_version: str = versions.get("nvml_version") or (
            f"{self.cuda_driver_version // 1000}.{self.driver_version}"
        )
        self.devices: list[dict[str, Any]] = reading["devices"]
        self.no_permission: set[int] = {int(gpu) for gpu in reading.get("no_permission") or ()}
        """GPUs outside this job's cgroup: counted, but their handles cannot be opened (a
        reading's ``no_permission``: the GPU indices a Slurm/cgroup job may not open)."""
        self.lost: set[int] = set()
        """GPUs fallen off the bus: their handles and every call on them say GPU_IS_LOST."""
        self.lost_at_handle: set[int] = set()
        """GPUs whose handle lookup says GPU_IS_LOST (calls on a handle got before still work)."""
        self.process_samples: dict[int, dict[int, tuple[int, ...]]] = {}
        """Per GPU, each process's latest utilisation sample, ``pid: (timeStamp µs, smUtil[,
        memUtil])``. The driver keeps a process's last sample after it stops launching kernels,
        and returns every sample newer than the caller's ``lastSeenTimeStamp``; a listed process
        with an ``sm_percent`` reading gets a fresh sample at each call."""
        self.sample_clock: Callable[[], int] = lambda: time.time_ns() // 1000
        """µs since the epoch at which a running process's next sample is stamped (a test can
        make it a counter); stamps never repeat or go back, whatever it says."""
        self.utilization_asked: list[int] = []
        """``lastSeenTimeStamp`` of each ``nvmlDeviceGetProcessUtilization`` (the binding asks
        twice per call, size then samples; the size query is the one counted)."""
        self.calls: list[str] = []
        """Every C symbol called, in order."""
        self.initialised = 0
        self.init_error: int | None = None
        self.faults: dict[tuple[int | None, str], int] = {}
        """``(GPU index or None for every GPU, C symbol)`` → the return code it gives."""
        self.removed: set[str] = set()
        self.blocks: dict[str, float] = {}
        self.hangs: set[str] = set()
        self.binding: Any = None
        """The ``pynvml`` module this library is installed under."""
        self.pending_xids: list[tuple[int, int]] = [
            (int(gpu), int(code)) for gpu, code in reading.get("xid_events") or ()
        ]
        """``(GPU index, XID)`` the driver has raised and no event set has taken yet (a
        reading's ``xid_events``: what happens while it is watched)."""
        self._event_sets: dict[int, set[int]] = {}
        """Event-set handle → the GPUs registered on it for XID events."""
        self._gpm_samples: dict[int, tuple[int, float] | None] = {}
        """GPM buffer → the GPU and time of the sample taken into it (None: none yet)."""
        self._started = time.monotonic()
        self._released = threading.Event()
        self._last_stamp = 0
        self._lock = threading.Lock()

    @property
    def initialized(self) -> bool:
        """Whether an ``nvmlInit`` is still open (NVML counts them; the last shutdown ends it)."""
        return self.initialised > 0

    def called(self, function: str) -> int:
        """How many C calls the binding's ``function`` (or that C symbol) has made so far."""
        symbols = self._symbols(function)
        with self._lock:
            return sum(symbol in symbols for symbol in self.calls)

    @classmethod
    def load(cls, reading: str, branch: str | None = None) -> SimulatedLibrary:
        """A driver with ``nvml_readings/<reading>.json`` on ``branch`` (see the class)."""
        return cls(load_reading(reading), None if branch is None else BRANCHES[branch])

    def add_readings(self, name: str) -> None:
        """Merge ``nvml_readings/<name>.json`` in: its ``devices[i]`` fields into GPU i, its
        other keys at the top (e.g. the NVLink and PCIe topology of a recorded node)."""
        extra = load_reading(name)
        for device, more in zip(self.devices, extra.pop("devices", []), strict=False):
            device.update(more)
        self.reading.update({k: v for k, v in extra.items() if not k.startswith("_")})
        self.pending_xids += [(int(gpu), int(code)) for gpu, code in extra.get("xid_events") or ()]
        self.no_permission.update(int(gpu) for gpu in extra.get("no_permission") or ())

    # -- faults ------------------------------------------------------------------------------

    def _symbols(self, function: str) -> frozenset[str]:
        if self.binding is not None:
            return c_symbols(self.binding, function)
        import pynvml

        return c_symbols(pynvml, function)

    def fail_init(self, short_name: str | int) -> None:
        """``nvmlInit`` fails with this error: ``"DriverNotLoaded"``, ``"LibRmVersionMismatch"``."""
        self.init_error = error_code(short_name)

    def lose(self, index: int, *, at_handle: bool = False) -> None:
        """GPU ``index`` is lost: from now on every call on it, or (``at_handle``) only its handle
        lookup, says GPU_IS_LOST."""
        (self.lost_at_handle if at_handle else self.lost).add(index)

    def not_supported(self, index: int | None, function: str) -> None:
        self.fail(index, function, "NotSupported")

    def fail(self, index: int | None, function: str, short_name: str | int) -> None:
        """``function`` fails with this error on GPU ``index`` (its MIG devices included), or on
        every GPU (``None``); ``nvmlDeviceGetHandleByIndex`` fails for that index."""
        code = error_code(short_name)
        for symbol in self._symbols(function):
            self.faults[(index, symbol)] = code

    def remove_function(self, function: str) -> None:
        """The library no longer exports the symbols ``function`` calls: the binding raises
        ``NVMLError_FunctionNotFound`` (``NVMLLibraryMismatchError`` for the unversioned
        process calls), as with a driver older than the binding."""
        symbols = self._symbols(function)
        self.removed.update(symbols)
        binding = self.binding
        if binding is not None:
            with binding.libLoadLock:
                for symbol in symbols:
                    binding._nvmlGetFunctionPointer_cache.pop(symbol, None)

    def block(self, function: str, seconds: float) -> None:
        """``function`` takes ``seconds`` before it answers."""
        for symbol in self._symbols(function):
            self.blocks[symbol] = seconds

    def hang(self, function: str) -> None:
        """From now on ``function`` blocks, as a call stuck in a sick driver does, until
        :meth:`release`. A test that hangs a call must release it at teardown."""
        if self._released.is_set():
            self._released = threading.Event()
        self.hangs.update(self._symbols(function))

    def release(self) -> None:
        """Let every hanging call return (and later calls run normally)."""
        self.hangs.clear()
        self._released.set()

    def set_processes(
        self,
        index: int,
        *,
        compute: list[dict[str, Any]] | None = None,
        graphics: list[dict[str, Any]] | None = None,
    ) -> None:
        """The processes GPU ``index`` runs from now on: ``{"pid": 42, "used_memory_bytes":
        1 << 30, "sm_percent": 80}`` (memory ``None``: not visible to the driver; no
        ``sm_percent``: no new utilisation sample)."""
        listed = self.devices[index].get("processes") or {}
        if compute is not None:
            listed = {**listed, "compute": compute}
        if graphics is not None:
            listed = {**listed, "graphics": graphics}
        self.devices[index]["processes"] = listed

    def set_reading(
        self,
        index: int,
        *,
        sm_clock_mhz: int | None = None,
        memory_clock_mhz: int | None = None,
        power_watts: float | None = None,
        temperature_c: int | None = None,
        clocks_event_reasons: int | None = None,
        **fields: Any,
    ) -> None:
        """Change live readings of GPU ``index`` from now on (values given only): the named
        ones, or any recorded key as it is in the JSON (``fan_percent=40``). Each is one dict
        store, so a sampler thread reading meanwhile sees the old or the new value."""
        device = self.devices[index]
        clocks = dict(device.get("clock_mhz") or {})
        if sm_clock_mhz is not None:
            clocks.update(sm=sm_clock_mhz, graphics=sm_clock_mhz)
        if memory_clock_mhz is not None:
            clocks.update(mem=memory_clock_mhz)
        if clocks != (device.get("clock_mhz") or {}):
            device["clock_mhz"] = clocks
        if power_watts is not None:
            device["power_usage_mw"] = round(power_watts * 1000)
        if temperature_c is not None:
            device["temperature_c"] = temperature_c
        if clocks_event_reasons is not None:
            device["clocks_event_reasons"] = clocks_event_reasons
        for key, value in fields.items():
            device[key] = value

    def raise_xid(self, index: int, xid: int) -> None:
        """GPU ``index`` reports XID ``xid`` (an ``nvidia-smi``-style Xid in the kernel log):
        event sets registered for it get the event."""
        with self._lock:
            self.pending_xids.append((index, xid))

    # -- the symbol table --------------------------------------------------------------------

    def __getattr__(self, symbol: str) -> Callable[..., int]:
        if not symbol.startswith("nvml"):
            raise AttributeError(symbol)
        implementation = self._implementation(symbol)
        if implementation is None or not self.branch.exports(symbol) or symbol in self.removed:
            raise AttributeError(symbol)  # the binding turns this into FunctionNotFound
        return self._checked(symbol, implementation)

    def _implementation(self, symbol: str) -> Callable[..., int] | None:
        method: Callable[..., int] | None = getattr(type(self), f"_c_{symbol}", None)
        if method is not None:
            return method
        if symbol in READS:
            spec = READS[symbol]
            return lambda library, *args: library._copy_readings(spec, *args)
        if symbol in STRINGS:
            key = STRINGS[symbol]
            return lambda library, h, buffer, size: _write_string(
                buffer, size, str(_reading(library._record(h), key))
            )
        return None

    def exported(self) -> list[str]:
        """Every symbol this library answers on its branch."""
        names = [n.removeprefix("_c_") for n in dir(type(self)) if n.startswith("_c_nvml")]
        every = sorted({*names, *READS, *STRINGS})
        return [s for s in every if self.branch.exports(s) and s not in self.removed]

    def _checked(self, symbol: str, implementation: Callable[..., int]) -> Callable[..., int]:
        def call(*args: object) -> int:
            for position, value in enumerate(args, start=1):
                ctypes_argument_check(position, value)
            with self._lock:
                self.calls.append(symbol)
            return self._enter(symbol, implementation, args)

        return call

    def _enter(self, symbol: str, implementation: Callable[..., int], args: tuple[Any, ...]) -> int:
        if symbol in self.hangs:
            self._released.wait()
        if symbol in self.removed:
            return ERROR_FUNCTION_NOT_FOUND  # the binding looked it up before it went
        if symbol in self.blocks:
            time.sleep(self.blocks[symbol])
        if not self.initialised and symbol not in _BEFORE_INIT:
            return ERROR_UNINITIALIZED
        index = self._index_of(symbol, args)
        if index is not None and index in self.lost:
            return ERROR_GPU_IS_LOST
        fault = self.faults.get((index, symbol), self.faults.get((None, symbol)))
        if fault is not None:
            return fault
        try:
            return implementation(self, *args)
        except _Return as returned:
            return returned.code

    def _index_of(self, symbol: str, args: tuple[Any, ...]) -> int | None:
        """The GPU a call is about: the index asked for a handle, or the first handle's GPU."""
        if not args:
            return None
        if symbol == "nvmlDeviceGetHandleByIndex_v2":
            return _number(args[0])
        found = self._resolve(args[0])
        return None if found is None else found[0]

    # -- handles -----------------------------------------------------------------------------

    def _resolve(self, handle: Any) -> tuple[int, int | None] | None:
        """``(GPU index, MIG slot or None)`` of a handle this library gave out."""
        address = _address(handle)
        if address is None:
            return None
        index, rest = divmod(address - HANDLE_BASE, 0x1000)
        if not 0 <= index < len(self.devices):
            return None
        if rest == 0:
            return index, None
        slot, inside = divmod(rest, MIG_STRIDE)
        migs = self.devices[index].get("mig_devices") or []
        if inside or not 0 < slot <= len(migs):
            return None
        return index, slot - 1

    def _record(self, handle: Any) -> dict[str, Any]:
        """The readings of the GPU or MIG device behind ``handle``."""
        found = self._resolve(handle)
        if found is None:
            raise _Return(ERROR_INVALID_ARGUMENT)
        index, slot = found
        if index in self.lost:
            raise _Return(ERROR_GPU_IS_LOST)
        device = self.devices[index]
        return device if slot is None else device["mig_devices"][slot]

    def _gpu(self, handle: Any) -> tuple[int, dict[str, Any]]:
        """A physical GPU's index and readings: a MIG handle is an invalid argument here."""
        found = self._resolve(handle)
        if found is None or found[1] is not None:
            raise _Return(ERROR_INVALID_ARGUMENT)
        if found[0] in self.lost:
            raise _Return(ERROR_GPU_IS_LOST)
        return found[0], self.devices[found[0]]

    # -- table-driven calls ------------------------------------------------------------------

    def _copy_readings(self, spec: Reads, handle: Any, *rest: Any) -> int:
        record = self._record(handle)
        inputs, outs = rest[: spec.inputs], rest[spec.inputs :]
        if len(outs) != len(spec.outs):
            return ERROR_INVALID_ARGUMENT
        values = [self._out_value(record, out, inputs) for out in spec.outs]
        for pointer, value in zip(outs, values, strict=True):
            if pointer is None:
                return ERROR_INVALID_ARGUMENT
            _target(pointer).value = int(value)
        return SUCCESS

    @staticmethod
    def _out_value(record: dict[str, Any], out: Out, inputs: tuple[Any, ...]) -> Any:
        if isinstance(out, Const):
            return out.value
        path: list[str | int] = []
        for step in out:
            if not isinstance(step, Arg):
                path.append(step)
                continue
            positions = step.position if isinstance(step.position, tuple) else (step.position,)
            given = tuple(_number(inputs[p]) for p in positions)
            key: tuple[int, ...] | int = given if isinstance(step.position, tuple) else given[0]
            if step.names is None:
                path.append(given[0])
            elif key in step.names:
                path.append(step.names[key])
            else:
                raise _Return(ERROR_INVALID_ARGUMENT)
        return _reading(record, *path)

    # -- the C functions ---------------------------------------------------------------------

    def _c_nvmlInitWithFlags(self, flags: int) -> int:
        if self.init_error is not None:
            return self.init_error
        self.initialised += 1
        return SUCCESS

    def _c_nvmlInit_v2(self) -> int:
        return self._c_nvmlInitWithFlags(0)

    def _c_nvmlShutdown(self) -> int:
        self.initialised = max(0, self.initialised - 1)
        return SUCCESS

    def _c_nvmlSystemGetDriverVersion(self, buffer: Any, size: Any) -> int:
        return _write_string(buffer, size, self.driver_version)

    def _c_nvmlSystemGetNVMLVersion(self, buffer: Any, size: Any) -> int:
        return _write_string(buffer, size, self.nvml_version)

    def _c_nvmlSystemGetCudaDriverVersion(self, version: Any) -> int:
        _target(version).value = self.cuda_driver_version
        return SUCCESS

    def _c_nvmlSystemGetCudaDriverVersion_v2(self, version: Any) -> int:
        return self._c_nvmlSystemGetCudaDriverVersion(version)

    def _c_nvmlDeviceGetCount_v2(self, count: Any) -> int:
        _target(count).value = len(self.devices)  # inaccessible GPUs are counted too
        return SUCCESS

    def _c_nvmlDeviceGetHandleByIndex_v2(self, index: Any, device: Any) -> int:
        number = _number(index)
        if not 0 <= number < len(self.devices):
            return ERROR_INVALID_ARGUMENT
        if number in self.no_permission:
            return ERROR_NO_PERMISSION
        if number in self.lost or number in self.lost_at_handle:
            return ERROR_GPU_IS_LOST
        _write_handle(device, HANDLE_BASE + number * 0x1000)
        return SUCCESS

    def _c_nvmlDeviceGetPciInfo_v3(self, handle: Any, info: Any) -> int:
        record = self._record(handle)
        bus_id = str(_reading(record, "pci_bus_id"))
        _fill_pci(
            _target(info), bus_id, record.get("pci_device_id"), record.get("pci_subsystem_id")
        )
        return SUCCESS

    def _c_nvmlDeviceGetNvLinkRemotePciInfo_v2(self, handle: Any, link: Any, info: Any) -> int:
        bus_id = str(_reading(self._record(handle), "nvlink_remote_bus_id", _number(link)))
        _fill_pci(_target(info), bus_id, None, None)
        return SUCCESS

    def _c_nvmlDeviceGetMemoryInfo(self, handle: Any, memory: Any) -> int:
        total, used, reserved = _memory(self._record(handle))
        out = _target(memory)
        out.total, out.used, out.free = total, used + reserved, total - used - reserved
        return SUCCESS

    def _c_nvmlDeviceGetMemoryInfo_v2(self, handle: Any, memory: Any) -> int:
        out = _target(memory)
        if out.version != MEMORY_V2:
            return ERROR_ARGUMENT_VERSION_MISMATCH
        total, used, reserved = _memory(self._record(handle))
        out.total, out.reserved, out.used = total, reserved, used
        out.free = total - used - reserved
        return SUCCESS

    def _c_nvmlDeviceGetGpuFabricInfo(self, handle: Any, info: Any) -> int:
        fabric = _reading(self._record(handle), "fabric")
        out = _target(info)
        out.state, out.status = int(fabric["state"]), int(fabric.get("status", SUCCESS))
        return SUCCESS

    def _c_nvmlDeviceGetGpuFabricInfoV(self, handle: Any, info: Any) -> int:
        if _target(info).version != self.binding.nvmlGpuFabricInfo_v2:
            return ERROR_ARGUMENT_VERSION_MISMATCH
        return self._c_nvmlDeviceGetGpuFabricInfo(handle, info)

    def _c_nvmlDeviceGetRetiredPages(
        self, handle: Any, cause: Any, count: Any, addresses: Any
    ) -> int:
        pages = _reading(self._record(handle), "retired_pages")
        chosen = [int(page) for page in pages[RETIREMENT_CAUSES[_number(cause)]]]
        room = _target(count)
        if addresses is None or room.value < len(chosen):
            room.value = len(chosen)
            return ERROR_INSUFFICIENT_SIZE if chosen else SUCCESS
        for at, page in enumerate(chosen):
            addresses[at] = page
        room.value = len(chosen)
        return SUCCESS

    def _c_nvmlDeviceGetUtilizationRates(self, handle: Any, utilization: Any) -> int:
        rates = _reading(self._record(handle), "utilization_percent")
        out = _target(utilization)
        out.gpu, out.memory = int(_reading(rates, "gpu")), int(_reading(rates, "memory"))
        return SUCCESS

    def _c_nvmlDeviceGetCpuAffinity(self, handle: Any, size: Any, affinity: Any) -> int:
        words = _reading(self._record(handle), "cpu_affinity_words")
        out = _target(affinity)
        for at, word in enumerate(words[: _number(size)]):
            out[at] = int(word)
        return SUCCESS

    def _c_nvmlDeviceGetMemoryAffinity(
        self, handle: Any, size: Any, affinity: Any, scope: Any
    ) -> int:
        """The recorded ``numa_node`` (``nvidia-smi topo -m``'s NUMA affinity) as a node set;
        node scope (0) only: socket scope is not recorded."""
        if _number(scope) != 0:
            raise _Return(ERROR_NOT_SUPPORTED)
        node = int(_reading(self._record(handle), "numa_node"))
        out = _target(affinity)
        if node // 64 < _number(size):
            out[node // 64] = 1 << (node % 64)
        return SUCCESS

    def _c_nvmlDeviceGetTopologyCommonAncestor(self, a: Any, b: Any, level: Any) -> int:
        (_, first), (second, _) = self._gpu(a), self._gpu(b)
        _target(level).value = int(_reading(first, "pcie_level", second))
        return SUCCESS

    def _c_nvmlDeviceGetP2PStatus(self, a: Any, b: Any, index: Any, status: Any) -> int:
        (i, first), (j, _) = self._gpu(a), self._gpu(b)
        matrix = self.reading.get("p2p_status")  # a test's own matrix, for every caps index
        if matrix is not None:
            _target(status).value = int(matrix[i][j])
        elif _number(index) == 0:  # NVML_P2P_CAPS_INDEX_READ
            _target(status).value = int(_reading(first, "p2p_read_status", j))
        else:
            return ERROR_NOT_SUPPORTED
        return SUCCESS

    def _c_nvmlDeviceGetMigDeviceHandleByIndex(self, handle: Any, index: Any, out: Any) -> int:
        number, device = self._gpu(handle)
        slot = _number(index)
        if not 0 <= slot < len(device.get("mig_devices") or []):
            return ERROR_NOT_FOUND  # an empty slot, as the real call reports it
        _write_handle(out, HANDLE_BASE + number * 0x1000 + (slot + 1) * MIG_STRIDE)
        return SUCCESS

    def _c_nvmlDeviceGetDeviceHandleFromMigDeviceHandle(self, handle: Any, out: Any) -> int:
        found = self._resolve(handle)
        if found is None or found[1] is None:
            return ERROR_INVALID_ARGUMENT
        _write_handle(out, HANDLE_BASE + found[0] * 0x1000)
        return SUCCESS

    def _c_nvmlDeviceIsMigDeviceHandle(self, handle: Any, out: Any) -> int:
        found = self._resolve(handle)
        if found is None:
            return ERROR_INVALID_ARGUMENT
        _target(out).value = int(found[1] is not None)
        return SUCCESS

    def _c_nvmlDeviceGetProcessUtilization(
        self, handle: Any, samples: Any, count: Any, last_seen: Any
    ) -> int:
        index, device = self._gpu(handle)
        kept = self.process_samples.setdefault(index, {})
        listed = device.get("processes") or {}
        running = [p for kind in ("compute", "graphics") for p in listed.get(kind) or []]
        fresh = samples is None  # the binding asks how many first: that is when they are taken
        if fresh:
            self.utilization_asked.append(_number(last_seen))
        if fresh and any(p.get("sm_percent") is not None for p in running):
            with self._lock:  # stamped as the driver does: µs since the epoch, never repeated
                stamp = self._last_stamp = max(self._last_stamp + 1, self.sample_clock())
            for p in running:
                if p.get("sm_percent") is not None:
                    kept[int(p["pid"])] = (
                        stamp,
                        int(p["sm_percent"]),
                        int(p.get("memory_percent") or 0),
                    )
        since = _number(last_seen)
        newer = [(pid, sample) for pid, sample in list(kept.items()) if sample[0] > since]
        wanted = _target(count)
        if not newer:
            return ERROR_NOT_FOUND
        if samples is None or wanted.value < len(newer):
            wanted.value = len(newer)
            return ERROR_INSUFFICIENT_SIZE
        for at, (pid, (stamp, sm, *memory)) in enumerate(newer):
            samples[at].pid, samples[at].timeStamp, samples[at].smUtil = pid, stamp, sm
            samples[at].memUtil = memory[0] if memory else 0
        wanted.value = len(newer)
        return SUCCESS

    def _c_nvmlDeviceGetFieldValues(self, handle: Any, count: Any, values: Any) -> int:
        """Each asked field gets its own return code: NOT_SUPPORTED where unrecorded. NVLink
        data counters (KiB) grow at the recorded ``nvlink_kib_per_second`` from the library's
        start, as the driver's do from its load."""
        record = self._record(handle)
        fields = _target(values)
        elapsed = time.monotonic() - self._started
        rates = record.get("nvlink_kib_per_second") or {}
        for at in range(_number(count)):
            entry = fields[at]
            entry.timestamp = time.time_ns() // 1000
            entry.valueType = VALUE_TYPE_UNSIGNED_LONG_LONG
            value: float | None = None
            if entry.fieldId == FIELD_MEMORY_TEMP:
                value = record.get("memory_temperature_c")
            elif entry.fieldId in (FIELD_NVLINK_DATA_TX, FIELD_NVLINK_DATA_RX):
                rate = rates.get("tx" if entry.fieldId == FIELD_NVLINK_DATA_TX else "rx")
                value = None if rate is None else rate * elapsed
            if value is None:
                entry.nvmlReturn = ERROR_NOT_SUPPORTED
            else:
                entry.nvmlReturn = SUCCESS
                entry.value.ullVal = int(value)
        return SUCCESS

    def _c_nvmlEventSetCreate(self, out: Any) -> int:
        address = EVENT_SET_BASE + 0x10 * (len(self._event_sets) + 1)
        self._event_sets[address] = set()
        _write_handle(out, address)
        return SUCCESS

    def _c_nvmlDeviceRegisterEvents(self, handle: Any, types: Any, event_set: Any) -> int:
        index, device = self._gpu(handle)
        registered = self._event_sets.get(_address(event_set) or 0)
        if registered is None:
            return ERROR_INVALID_ARGUMENT
        if device.get("xid_events") is False or not _number(types) & XID_EVENT:
            return ERROR_NOT_SUPPORTED  # e.g. a GeForce board under WSL
        registered.add(index)
        return SUCCESS

    def _c_nvmlEventSetWait_v2(self, event_set: Any, data: Any, timeout_ms: Any) -> int:
        registered = self._event_sets.get(_address(event_set) or 0)
        if registered is None:
            return ERROR_INVALID_ARGUMENT
        with self._lock:
            mine = next((p for p in self.pending_xids if p[0] in registered), None)
            if mine is not None:
                self.pending_xids.remove(mine)
        if mine is None:
            time.sleep(min(_number(timeout_ms), 50) / 1000)
            return ERROR_TIMEOUT
        out = _target(data)
        handle = ctypes.c_void_p(HANDLE_BASE + mine[0] * 0x1000)
        ctypes.memmove(ctypes.addressof(out), ctypes.byref(handle), ctypes.sizeof(handle))
        out.eventType, out.eventData = XID_EVENT, mine[1]
        out.gpuInstanceId = out.computeInstanceId = NO_INSTANCE
        return SUCCESS

    def _c_nvmlEventSetFree(self, event_set: Any) -> int:
        return (
            SUCCESS
            if self._event_sets.pop(_address(event_set) or 0, None) is not None
            else (ERROR_INVALID_ARGUMENT)
        )

    def _c_nvmlGpmQueryDeviceSupport(self, handle: Any, support: Any) -> int:
        _, device = self._gpu(handle)
        out = _target(support)
        if out.version != 1:
            return ERROR_ARGUMENT_VERSION_MISMATCH
        out.isSupportedDevice = int(int(device.get("architecture") or 0) >= 9)  # Hopper on
        return SUCCESS

    def _c_nvmlGpmSampleAlloc(self, out: Any) -> int:
        address = GPM_SAMPLE_BASE + 0x10 * (len(self._gpm_samples) + 1)
        self._gpm_samples[address] = None
        _write_handle(out, address)
        return SUCCESS

    def _c_nvmlGpmSampleFree(self, sample: Any) -> int:
        found = self._gpm_samples.pop(_address(sample) or 0, "none")
        return ERROR_INVALID_ARGUMENT if found == "none" else SUCCESS

    def _c_nvmlGpmSampleGet(self, handle: Any, sample: Any) -> int:
        index, device = self._gpu(handle)
        address = _address(sample) or 0
        if address not in self._gpm_samples:
            return ERROR_INVALID_ARGUMENT
        if int(device.get("architecture") or 0) < 9:
            return ERROR_NOT_SUPPORTED
        self._gpm_samples[address] = (index, time.monotonic())
        return SUCCESS

    def _c_nvmlGpmMetricsGet(self, request: Any) -> int:
        """Metrics between two samples of one GPU: the recorded ``gpm`` reading, as percent or
        MiB/s; a metric it lacks gets NOT_SUPPORTED in its own return code."""
        asked = _target(request)
        if asked.version != 1:
            return ERROR_ARGUMENT_VERSION_MISMATCH
        first = self._gpm_samples.get(_address(asked.sample1) or 0)
        second = self._gpm_samples.get(_address(asked.sample2) or 0)
        if first is None or second is None or first[0] != second[0] or first[1] >= second[1]:
            return ERROR_INVALID_ARGUMENT
        recorded = self.devices[first[0]].get("gpm") or {}
        for at in range(asked.numMetrics):
            metric = asked.metrics[at]
            value = recorded.get(GPM_METRICS.get(metric.metricId, ""))
            metric.nvmlReturn = ERROR_NOT_SUPPORTED if value is None else SUCCESS
            metric.value = 0.0 if value is None else float(value)
        return SUCCESS

    def _processes(self, symbol: str, kind: str, handle: Any, count: Any, infos: Any) -> int:
        listed = _reading(self._record(handle), "processes", kind)
        wanted = _target(count)
        if infos is None or wanted.value < len(listed):
            wanted.value = len(listed)
            return ERROR_INSUFFICIENT_SIZE if listed else SUCCESS
        stride = self.branch.process_entry_bytes.get(symbol, _PROCESS_ENTRY.size)
        entry = _R535_PROCESS_ENTRY if stride == _R535_PROCESS_ENTRY.size else _PROCESS_ENTRY
        written = b"".join(
            entry.pack(
                int(p["pid"]),
                _used_memory(p),
                int(p.get("gpu_instance_id", NO_INSTANCE)),
                int(p.get("compute_instance_id", NO_INSTANCE)),
                *([0] * (stride == 32)),
            )
            for p in listed
        )
        if len(written) > ctypes.sizeof(infos):
            raise AssertionError("the simulated driver would write past the caller's buffer")
        ctypes.memmove(ctypes.addressof(infos), written, len(written))
        wanted.value = len(listed)
        return SUCCESS

    def _c_nvmlDeviceGetComputeRunningProcesses_v2(self, h: Any, n: Any, p: Any) -> int:
        return self._processes("nvmlDeviceGetComputeRunningProcesses_v2", "compute", h, n, p)

    def _c_nvmlDeviceGetComputeRunningProcesses_v3(self, h: Any, n: Any, p: Any) -> int:
        return self._processes("nvmlDeviceGetComputeRunningProcesses_v3", "compute", h, n, p)

    def _c_nvmlDeviceGetGraphicsRunningProcesses_v2(self, h: Any, n: Any, p: Any) -> int:
        return self._processes("nvmlDeviceGetGraphicsRunningProcesses_v2", "graphics", h, n, p)

    def _c_nvmlDeviceGetGraphicsRunningProcesses_v3(self, h: Any, n: Any, p: Any) -> int:
        return self._processes("nvmlDeviceGetGraphicsRunningProcesses_v3", "graphics", h, n, p)


def _used_memory(process: Mapping[str, Any]) -> int:
    used = process.get("used_memory_bytes", process.get("used_bytes"))
    return NOT_AVAILABLE_U64 if used is None else int(used)


def _memory(device: dict[str, Any]) -> tuple[int, int, int]:
    """Total, used (nvidia-smi's *Used*, reserved left out) and driver-reserved bytes."""
    total = int(_reading(device, "memory_total_bytes"))
    used = int(_reading(device, "memory_used_bytes"))
    reserved = int(device.get("memory_reserved_bytes") or 0)
    return total, used, reserved


def load_reading(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((READINGS / f"{name}.json").read_text())
    return data


def reading_names() -> list[str]:
    """Every recorded reading (a file that only adds to another one included)."""
    return sorted(path.stem for path in READINGS.glob("*.json"))


def install(pynvml: Any, library: SimulatedLibrary) -> None:
    """Put ``library`` under the real binding ``pynvml``, as if the driver had been loaded."""
    from gpu_tui.core.devices import nvml_process

    nvml_process.forget_nvml()  # opened afresh, as by a new process on this driver
    with pynvml.libLoadLock:
        pynvml.nvmlLib = library
        pynvml._nvmlGetFunctionPointer_cache.clear()
        pynvml._nvmlLib_refcount = 0
    library.binding = pynvml


def uninstall(pynvml: Any) -> None:
    from gpu_tui.core.devices import nvml_pcie, nvml_process

    nvml_pcie.stop_all()  # a session's PCIe reader a test left running must call no more
    nvml_process.forget_nvml()  # the next driver is opened afresh, as a new process would
    with pynvml.libLoadLock:
        library = pynvml.nvmlLib
        pynvml.nvmlLib = None
        pynvml._nvmlGetFunctionPointer_cache.clear()
        pynvml._nvmlLib_refcount = 0
    if isinstance(library, SimulatedLibrary):
        library.release()  # a call still hanging in it returns, so no thread stays blocked


@contextmanager
def driver(
    reading: str, branch: str | None = None, *, add: Iterable[str] = ()
) -> Iterator[SimulatedLibrary]:
    """The real ``pynvml`` over a simulated driver of ``branch`` (left out: the one the reading
    was recorded on) with the recorded ``reading`` and the readings named in ``add`` merged in,
    for the duration of the block."""
    import pynvml

    library = SimulatedLibrary.load(reading, branch)
    for extra in add:
        library.add_readings(extra)
    install(pynvml, library)
    try:
        yield library
    finally:
        uninstall(pynvml)
