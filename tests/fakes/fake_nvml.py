"""A stand-in for nvidia-ml-py's ``pynvml`` module, driven by recorded GPU readings, with faults.

Function names, constants, error classes and error codes follow nvidia-ml-py 13.x. Readings come
from ``tests/fakes/nvml_readings/*.json`` (each file says where its numbers were recorded). A
``null`` or missing reading makes the matching call raise ``NVMLError_NotSupported``, as a real
driver does for a field the GPU lacks. The tests use it, and so do ``scripts/bench_sampler.py`` and
``scripts/fault_matrix.py``.

Fault injection::

    fake = FakeNvml.load("h200")
    fake.fail_init("LibRmVersionMismatch")      # nvmlInit raises
    fake.lose(1, at_handle=True)                # GpuIsLost at nvmlDeviceGetHandleByIndex(1)
    fake.lose(0)                                # GpuIsLost on every call for device 0 from now on
    fake.not_supported(0, "nvmlDeviceGetPowerUsage")
    fake.fail(0, "nvmlDeviceGetName", "NoPermission")
    fake.remove_function("nvmlDeviceGetCurrentClocksEventReasons")   # FunctionNotFound
    fake.block("nvmlDeviceGetPowerUsage", 2.0)  # the call sleeps 2 s first
    fake.hang("nvmlInit")                       # the call blocks until fake.release()
    fake.set_processes(0, compute=[])           # processes vanish
    fake.set_processes(0, compute=[{"pid": 42, "used_memory_bytes": 1 << 30, "sm_percent": 80}])
                                                # one process, 80 % of the SMs' time
    fake.set_reading(0, sm_clock_mhz=1755, power_watts=700, clocks_event_reasons=0x4)
                                                # readings change mid-run (a power cap)

A subprocess cannot be handed a double, so :func:`install_as_pynvml` writes a ``pynvml.py`` that
builds one when imported: put its folder first on ``PYTHONPATH`` and choose a fault with the
environment variables below (a hang never ends: the subprocess's exit ends it).

    GPU_TUI_FAKE_NVML_HANG=nvmlInit             # these calls (comma-separated) block forever
    GPU_TUI_FAKE_NVML_IMPORT=hang               # `import pynvml` itself blocks forever
    GPU_TUI_FAKE_NVML_IMPORT=OSError            # … or raises (OSError, RuntimeError,
                                                #   SyntaxError, ImportError) as a broken install
    GPU_TUI_FAKE_NVML_FIXTURE=hgx_h100_8gpu     # the recorded node (default: h200)
"""

from __future__ import annotations

import copy
import json
import os
import threading
import time
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "nvml_readings"
HANG_VARIABLE = "GPU_TUI_FAKE_NVML_HANG"
IMPORT_VARIABLE = "GPU_TUI_FAKE_NVML_IMPORT"
FIXTURE_VARIABLE = "GPU_TUI_FAKE_NVML_FIXTURE"

# NVML_ERROR_* codes, and class names built from them the way nvidia-ml-py does
# (NVML_ERROR_LIB_RM_VERSION_MISMATCH -> NVMLError_LibRmVersionMismatch).
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
# Messages nvidia-ml-py prints for the common codes (NVMLError._errcode_to_string).
MESSAGES: dict[int, str] = {
    1: "Uninitialized",
    2: "Invalid Argument",
    3: "Not Supported",
    4: "Insufficient Permissions",
    6: "Not Found",
    9: "Driver Not Loaded",
    10: "Timeout",
    12: "NVML Shared Library Not Found",
    13: "Function Not Found",
    15: "GPU is lost",
    16: "GPU requires restart",
    18: "RM has detected an NVML/RM version mismatch.",
    999: "Unknown Error",
}


class NVMLError(Exception):
    """Base class; ``NVMLError(code)`` returns the matching subclass, as in nvidia-ml-py."""

    _by_code: dict[int, type[NVMLError]] = {}  # noqa: RUF012 - filled once below
    value: int

    def __new__(cls, value: int) -> NVMLError:
        if cls is NVMLError:
            cls = NVMLError._by_code.get(value, NVMLError)
        obj = Exception.__new__(cls)
        obj.value = value
        return obj

    def __init__(self, value: int) -> None:
        super().__init__(value)

    def __str__(self) -> str:
        return MESSAGES.get(self.value, f"NVML Error with code {self.value}")


def _class_name(constant: str) -> str:
    return "NVMLError_" + "".join(part.capitalize() for part in constant.split("_"))


def _init(self: NVMLError, *args: object) -> None:
    Exception.__init__(self, self.value)


ERROR_CLASSES: dict[str, type[NVMLError]] = {}
for _constant, _code in ERROR_CODES.items():

    def _make_new(code: int) -> Any:
        def new(cls: type[NVMLError], *args: object) -> NVMLError:
            return NVMLError.__new__(cls, code)

        return new

    _methods = {"__new__": _make_new(_code), "__init__": _init}
    _cls = type(_class_name(_constant), (NVMLError,), _methods)
    ERROR_CLASSES[_cls.__name__] = _cls
    NVMLError._by_code[_code] = _cls


def error(short_name: str) -> NVMLError:
    """An error instance from a short name: ``error("GpuIsLost")``."""
    return ERROR_CLASSES[f"NVMLError_{short_name}"]()  # type: ignore[call-arg]


@dataclass(frozen=True)
class Handle:
    """What nvmlDeviceGetHandleByIndex returns: a physical GPU, or one MIG device of it."""

    index: int
    mig: int | None = None


class _Struct:
    def __init__(self, **fields: object) -> None:
        self.__dict__.update(fields)


CONSTANTS: dict[str, int] = {
    "NVML_CLOCK_GRAPHICS": 0,
    "NVML_CLOCK_SM": 1,
    "NVML_CLOCK_MEM": 2,
    "NVML_CLOCK_VIDEO": 3,
    "NVML_TEMPERATURE_GPU": 0,
    "NVML_TEMPERATURE_THRESHOLD_SHUTDOWN": 0,
    "NVML_TEMPERATURE_THRESHOLD_SLOWDOWN": 1,
    "NVML_TEMPERATURE_THRESHOLD_MEM_MAX": 2,
    "NVML_TEMPERATURE_THRESHOLD_GPU_MAX": 3,
    "NVML_PCIE_UTIL_TX_BYTES": 0,
    "NVML_PCIE_UTIL_RX_BYTES": 1,
    "NVML_MEMORY_ERROR_TYPE_CORRECTED": 0,
    "NVML_MEMORY_ERROR_TYPE_UNCORRECTED": 1,
    "NVML_VOLATILE_ECC": 0,
    "NVML_AGGREGATE_ECC": 1,
    "NVML_FEATURE_DISABLED": 0,
    "NVML_FEATURE_ENABLED": 1,
    "NVML_DEVICE_MIG_DISABLE": 0,
    "NVML_DEVICE_MIG_ENABLE": 1,
    "NVML_NVLINK_MAX_LINKS": 18,
    "NVML_P2P_CAPS_INDEX_READ": 0,
    "NVML_COMPUTEMODE_DEFAULT": 0,
    "NVML_COMPUTEMODE_EXCLUSIVE_THREAD": 1,
    "NVML_COMPUTEMODE_PROHIBITED": 2,
    "NVML_COMPUTEMODE_EXCLUSIVE_PROCESS": 3,
    "NVML_DEVICE_ARCH_KEPLER": 2,
    "NVML_DEVICE_ARCH_MAXWELL": 3,
    "NVML_DEVICE_ARCH_PASCAL": 4,
    "NVML_DEVICE_ARCH_VOLTA": 5,
    "NVML_DEVICE_ARCH_TURING": 6,
    "NVML_DEVICE_ARCH_AMPERE": 7,
    "NVML_DEVICE_ARCH_ADA": 8,
    "NVML_DEVICE_ARCH_HOPPER": 9,
    "NVML_DEVICE_ARCH_BLACKWELL": 10,
    "NVML_DEVICE_ARCH_RUBIN": 13,
    "nvmlClocksEventReasonGpuIdle": 0x1,
    "nvmlClocksEventReasonApplicationsClocksSetting": 0x2,
    "nvmlClocksEventReasonSwPowerCap": 0x4,
    "nvmlClocksEventReasonHwSlowdown": 0x8,
    "nvmlClocksEventReasonSyncBoost": 0x10,
    "nvmlClocksEventReasonSwThermalSlowdown": 0x20,
    "nvmlClocksEventReasonHwThermalSlowdown": 0x40,
    "nvmlClocksEventReasonHwPowerBrakeSlowdown": 0x80,
    "nvmlClocksEventReasonDisplayClockSetting": 0x100,
    "nvmlClocksThrottleReasonBoardLimit": 0x200,
    "nvmlClocksThrottleReasonReliability": 0x400,
}


class FakeNvml(types.ModuleType):
    """A ``pynvml`` look-alike. Every device function takes a :class:`Handle`."""

    def __init__(self, data: dict[str, Any], name: str = "fake") -> None:
        super().__init__("pynvml")
        self._removed: set[str] = set()
        self.__file__ = "/fake/site-packages/pynvml.py"
        self.fixture_name = name
        self.data = copy.deepcopy(data)
        self.devices: list[dict[str, Any]] = self.data["devices"]
        self.initialized = False
        self._init_count = 0  # NVML counts nvmlInit calls; the last nvmlShutdown ends it
        self.calls: list[str] = []
        self._init_error: str | None = None
        self._lost: set[int] = set()
        self._lost_at_handle: set[int] = set()
        self._faults: dict[tuple[int | None, str], str] = {}
        self._blocks: dict[str, float] = {}
        self._hangs: set[str] = set()
        self._released = threading.Event()
        self.utilization_asked: list[int] = []
        """``last_seen`` of each nvmlDeviceGetProcessUtilization call, in order."""
        self._utilization_clock = 1_700_000_000_000_000  # µs, as the driver stamps samples
        self.NVMLError = NVMLError
        for class_name, cls in ERROR_CLASSES.items():
            setattr(self, class_name, cls)
        for constant, code in ERROR_CODES.items():
            setattr(self, f"NVML_ERROR_{constant}", code)
        for constant, value in CONSTANTS.items():
            setattr(self, constant, value)
        self.nvmlClocksThrottleReasonGpuIdle = 0x1
        self.nvmlClocksThrottleReasonSwPowerCap = 0x4
        self.nvmlClocksThrottleReasonHwSlowdown = 0x8

    @classmethod
    def load(cls, name: str) -> FakeNvml:
        """A fake driven by ``nvml_readings/<name>.json``."""
        return cls(json.loads((FIXTURES / f"{name}.json").read_text()), name)

    def add_readings(self, name: str) -> None:
        """Merge ``nvml_readings/<name>.json`` in: its ``devices[i]`` fields into device
        i, its other keys at the top (e.g. the NVLink and PCIe topology of a recorded node)."""
        extra = json.loads((FIXTURES / f"{name}.json").read_text())
        for device, more in zip(self.devices, extra.pop("devices", []), strict=False):
            device.update(copy.deepcopy(more))
        self.data.update({k: v for k, v in extra.items() if not k.startswith("_")})

    # ---- fault injection -------------------------------------------------------------------
    def fail_init(self, short_name: str) -> None:
        self._init_error = short_name

    def lose(self, index: int, *, at_handle: bool = False) -> None:
        (self._lost_at_handle if at_handle else self._lost).add(index)

    def not_supported(self, index: int | None, function: str) -> None:
        self._faults[(index, function)] = "NotSupported"

    def fail(self, index: int | None, function: str, short_name: str) -> None:
        self._faults[(index, function)] = short_name

    def remove_function(self, function: str) -> None:
        self._removed.add(function)

    def block(self, function: str, seconds: float) -> None:
        self._blocks[function] = seconds

    def hang(self, function: str) -> None:
        """From now on ``function`` blocks, as a call stuck in a sick driver does, until
        :meth:`release`. A test that hangs a call must release it at teardown."""
        if self._released.is_set():
            self._released = threading.Event()
        self._hangs.add(function)

    def release(self) -> None:
        """Let every hanging call return (and later calls run normally)."""
        self._hangs.clear()
        self._released.set()

    def _maybe_hang(self, function: str) -> None:
        if function in self._hangs:
            self._released.wait()

    def set_processes(
        self,
        index: int,
        *,
        compute: list[dict[str, int | None]] | None = None,
        graphics: list[dict[str, int | None]] | None = None,
    ) -> None:
        procs = self.devices[index].setdefault("processes", {})
        if compute is not None:
            procs["compute"] = compute
        if graphics is not None:
            procs["graphics"] = graphics

    def set_reading(
        self,
        index: int,
        *,
        sm_clock_mhz: int | None = None,
        memory_clock_mhz: int | None = None,
        power_watts: float | None = None,
        temperature_c: int | None = None,
        clocks_event_reasons: int | None = None,
    ) -> None:
        """Change live readings from now on (values given only); thread-safe enough for a
        sampler thread reading meanwhile (each is one dict store)."""
        device = self.devices[index]
        if sm_clock_mhz is not None:
            device["clock_mhz"] = {
                **device["clock_mhz"],
                "sm": sm_clock_mhz,
                "graphics": sm_clock_mhz,
            }
        if memory_clock_mhz is not None:
            device["clock_mhz"] = {**device["clock_mhz"], "mem": memory_clock_mhz}
        if power_watts is not None:
            device["power_usage_mw"] = round(power_watts * 1000)
        if temperature_c is not None:
            device["temperature_c"] = temperature_c
        if clocks_event_reasons is not None:
            device["clocks_event_reasons"] = clocks_event_reasons

    # ---- plumbing --------------------------------------------------------------------------
    def __getattribute__(self, name: str) -> Any:
        if name.startswith("nvml") and name in object.__getattribute__(self, "_removed"):
            raise AttributeError(name)  # as if this nvidia-ml-py/driver pair lacks it
        return object.__getattribute__(self, name)

    def _enter(self, function: str, handle: Handle | None = None) -> dict[str, Any]:
        self.calls.append(function)
        self._maybe_hang(function)
        if function in self._removed:
            raise error("FunctionNotFound")
        if function in self._blocks:
            time.sleep(self._blocks[function])
        if not self.initialized:
            raise error("Uninitialized")
        index = handle.index if handle is not None else None
        if index is not None and index in self._lost:
            raise error("GpuIsLost")
        fault = self._faults.get((index, function)) or self._faults.get((None, function))
        if fault is not None:
            raise error(fault)
        if handle is None:
            return self.data
        device = self.devices[handle.index]
        if handle.mig is not None:
            return dict(device["mig_devices"][handle.mig])
        return device

    @staticmethod
    def _get(record: dict[str, Any], *path: str | int) -> Any:
        value: Any = record
        for key in path:
            if value is None:
                break
            value = value.get(key) if isinstance(key, str) else value[key]
        if value is None:
            raise error("NotSupported")
        return value

    # ---- system ----------------------------------------------------------------------------
    def nvmlInit(self) -> None:
        self._maybe_hang("nvmlInit")
        self.nvmlInitWithFlags(0)

    def nvmlInitWithFlags(self, flags: int) -> None:
        self.calls.append("nvmlInitWithFlags")
        self._maybe_hang("nvmlInitWithFlags")
        if self._init_error is not None:
            raise error(self._init_error)
        self._init_count += 1
        self.initialized = True

    def nvmlShutdown(self) -> None:
        self._enter("nvmlShutdown")
        self._init_count -= 1
        self.initialized = self._init_count > 0

    def nvmlSystemGetDriverVersion(self) -> str:
        return str(self._get(self._enter("nvmlSystemGetDriverVersion"), "driver_version"))

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return int(self._get(self._enter("nvmlSystemGetCudaDriverVersion"), "cuda_driver_version"))

    def nvmlSystemGetNVMLVersion(self) -> str:
        return str(self._get(self._enter("nvmlSystemGetNVMLVersion"), "nvml_version"))

    def nvmlDeviceGetCount(self) -> int:
        self._enter("nvmlDeviceGetCount")
        return len(self.devices)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> Handle:
        self._enter("nvmlDeviceGetHandleByIndex")
        if index >= len(self.devices):
            raise error("InvalidArgument")
        if index in self._lost_at_handle:
            raise error("GpuIsLost")
        return Handle(index)

    # ---- inventory -------------------------------------------------------------------------
    def nvmlDeviceGetName(self, h: Handle) -> str:
        return str(self._get(self._enter("nvmlDeviceGetName", h), "name"))

    def nvmlDeviceGetUUID(self, h: Handle) -> str:
        return str(self._get(self._enter("nvmlDeviceGetUUID", h), "uuid"))

    def nvmlDeviceGetPciInfo(self, h: Handle) -> _Struct:
        record = self._enter("nvmlDeviceGetPciInfo", h)
        bus_id = self._get(record, "pci_bus_id")
        fields: dict[str, object] = {"busId": bus_id, "busIdLegacy": bus_id[4:]}
        # As nvidia-smi -q prints it ("Device Id : 0x233010DE"): device ID high, vendor low.
        if record.get("pci_device_id") is not None:
            fields["pciDeviceId"] = int(record["pci_device_id"], 16)
        return _Struct(**fields)

    def nvmlDeviceGetArchitecture(self, h: Handle) -> int:
        return int(self._get(self._enter("nvmlDeviceGetArchitecture", h), "architecture"))

    def nvmlDeviceGetCudaComputeCapability(self, h: Handle) -> tuple[int, int]:
        major, minor = self._get(self._enter("nvmlDeviceGetCudaComputeCapability", h), "cuda_cc")
        return int(major), int(minor)

    def nvmlDeviceGetNumGpuCores(self, h: Handle) -> int:
        return int(self._get(self._enter("nvmlDeviceGetNumGpuCores", h), "num_gpu_cores"))

    def nvmlDeviceGetMemoryInfo(self, h: Handle, version: int | None = None) -> _Struct:
        record = self._enter("nvmlDeviceGetMemoryInfo", h)
        total = int(self._get(record, "memory_total_bytes"))
        used = int(self._get(record, "memory_used_bytes"))
        return _Struct(total=total, used=used, free=total - used)

    def nvmlDeviceGetMemoryBusWidth(self, h: Handle) -> int:
        return int(self._get(self._enter("nvmlDeviceGetMemoryBusWidth", h), "memory_bus_width"))

    def _clock_key(self, clock_type: int) -> str:
        return {0: "graphics", 1: "sm", 2: "mem", 3: "video"}[clock_type]

    def nvmlDeviceGetMaxClockInfo(self, h: Handle, clock_type: int) -> int:
        record = self._enter("nvmlDeviceGetMaxClockInfo", h)
        return int(self._get(record, "max_clock_mhz", self._clock_key(clock_type)))

    def nvmlDeviceGetClockInfo(self, h: Handle, clock_type: int) -> int:
        record = self._enter("nvmlDeviceGetClockInfo", h)
        return int(self._get(record, "clock_mhz", self._clock_key(clock_type)))

    def nvmlDeviceGetPowerManagementDefaultLimit(self, h: Handle) -> int:
        record = self._enter("nvmlDeviceGetPowerManagementDefaultLimit", h)
        return int(self._get(record, "power_default_limit_mw"))

    def nvmlDeviceGetEnforcedPowerLimit(self, h: Handle) -> int:
        record = self._enter("nvmlDeviceGetEnforcedPowerLimit", h)
        return int(self._get(record, "power_enforced_limit_mw"))

    def nvmlDeviceGetCurrPcieLinkGeneration(self, h: Handle) -> int:
        return int(self._get(self._enter("nvmlDeviceGetCurrPcieLinkGeneration", h), "pcie_gen", 0))

    def nvmlDeviceGetMaxPcieLinkGeneration(self, h: Handle) -> int:
        return int(self._get(self._enter("nvmlDeviceGetMaxPcieLinkGeneration", h), "pcie_gen", 1))

    def nvmlDeviceGetCurrPcieLinkWidth(self, h: Handle) -> int:
        return int(self._get(self._enter("nvmlDeviceGetCurrPcieLinkWidth", h), "pcie_width", 0))

    def nvmlDeviceGetMaxPcieLinkWidth(self, h: Handle) -> int:
        return int(self._get(self._enter("nvmlDeviceGetMaxPcieLinkWidth", h), "pcie_width", 1))

    def nvmlDeviceGetEccMode(self, h: Handle) -> list[int]:
        return list(self._get(self._enter("nvmlDeviceGetEccMode", h), "ecc_mode"))

    def nvmlDeviceGetMigMode(self, h: Handle) -> list[int]:
        return list(self._get(self._enter("nvmlDeviceGetMigMode", h), "mig_mode"))

    def nvmlDeviceGetPersistenceMode(self, h: Handle) -> int:
        return int(self._get(self._enter("nvmlDeviceGetPersistenceMode", h), "persistence_mode"))

    def nvmlDeviceGetComputeMode(self, h: Handle) -> int:
        return int(self._get(self._enter("nvmlDeviceGetComputeMode", h), "compute_mode"))

    def nvmlDeviceGetTemperatureThreshold(self, h: Handle, kind: int) -> int:
        key = {0: "shutdown", 1: "slowdown", 2: "mem_max", 3: "gpu_max"}[kind]
        record = self._enter("nvmlDeviceGetTemperatureThreshold", h)
        return int(self._get(record, "temperature_threshold_c", key))

    def nvmlDeviceGetVbiosVersion(self, h: Handle) -> str:
        return str(self._get(self._enter("nvmlDeviceGetVbiosVersion", h), "vbios_version"))

    def nvmlDeviceGetNvLinkState(self, h: Handle, link: int) -> int:
        states = self._get(self._enter("nvmlDeviceGetNvLinkState", h), "nvlink_active")
        if link >= len(states):
            raise error("InvalidArgument")
        return int(states[link])

    def _per_link(self, function: str, h: Handle, key: str, link: int) -> Any:
        values = self._get(self._enter(function, h), key)
        if link >= len(values):
            raise error("InvalidArgument")
        return values[link]

    def nvmlDeviceGetNvLinkVersion(self, h: Handle, link: int) -> int:
        return int(self._per_link("nvmlDeviceGetNvLinkVersion", h, "nvlink_version", link))

    def nvmlDeviceGetNvLinkRemoteDeviceType(self, h: Handle, link: int) -> int:
        function = "nvmlDeviceGetNvLinkRemoteDeviceType"
        return int(self._per_link(function, h, "nvlink_remote_type", link))

    def nvmlDeviceGetNvLinkRemotePciInfo_v2(self, h: Handle, link: int) -> _Struct:
        function = "nvmlDeviceGetNvLinkRemotePciInfo_v2"
        return _Struct(busId=str(self._per_link(function, h, "nvlink_remote_bus_id", link)))

    def nvmlDeviceGetTopologyCommonAncestor(self, a: Handle, b: Handle) -> int:
        self._enter("nvmlDeviceGetTopologyCommonAncestor", b)
        levels = self._get(self._enter("nvmlDeviceGetTopologyCommonAncestor", a), "pcie_level")
        return int(levels[b.index])

    def nvmlDeviceGetP2PStatus(self, a: Handle, b: Handle, caps_index: int) -> int:
        self._enter("nvmlDeviceGetP2PStatus", b)
        status = self._get(self._enter("nvmlDeviceGetP2PStatus", a), "p2p_read_status")
        return int(status[b.index])

    def nvmlDeviceGetNumaNodeId(self, h: Handle) -> int:
        return int(self._get(self._enter("nvmlDeviceGetNumaNodeId", h), "numa_node"))

    def nvmlDeviceGetCpuAffinity(self, h: Handle, cpu_set_size: int) -> list[int]:
        words = self._get(self._enter("nvmlDeviceGetCpuAffinity", h), "cpu_affinity_words")
        return [int(w) for w in words][:cpu_set_size]

    # ---- live readings ---------------------------------------------------------------------
    def nvmlDeviceGetUtilizationRates(self, h: Handle) -> _Struct:
        util = self._get(self._enter("nvmlDeviceGetUtilizationRates", h), "utilization_percent")
        return _Struct(gpu=util["gpu"], memory=util["memory"])

    def nvmlDeviceGetTemperature(self, h: Handle, sensor: int) -> int:
        return int(self._get(self._enter("nvmlDeviceGetTemperature", h), "temperature_c"))

    def nvmlDeviceGetPowerUsage(self, h: Handle) -> int:
        return int(self._get(self._enter("nvmlDeviceGetPowerUsage", h), "power_usage_mw"))

    def nvmlDeviceGetFanSpeed(self, h: Handle) -> int:
        return int(self._get(self._enter("nvmlDeviceGetFanSpeed", h), "fan_percent"))

    def nvmlDeviceGetPcieThroughput(self, h: Handle, counter: int) -> int:
        key = "tx" if counter == 0 else "rx"
        return int(self._get(self._enter("nvmlDeviceGetPcieThroughput", h), "pcie_kbps", key))

    def nvmlDeviceGetEncoderUtilization(self, h: Handle) -> list[int]:
        value = self._get(self._enter("nvmlDeviceGetEncoderUtilization", h), "encoder_percent")
        return [int(value), 167000]

    def nvmlDeviceGetDecoderUtilization(self, h: Handle) -> list[int]:
        value = self._get(self._enter("nvmlDeviceGetDecoderUtilization", h), "decoder_percent")
        return [int(value), 167000]

    def nvmlDeviceGetTotalEccErrors(self, h: Handle, error_type: int, counter: int) -> int:
        record = self._enter("nvmlDeviceGetTotalEccErrors", h)
        return int(self._get(record, "ecc_volatile_uncorrected"))

    def nvmlDeviceGetCurrentClocksEventReasons(self, h: Handle) -> int:
        record = self._enter("nvmlDeviceGetCurrentClocksEventReasons", h)
        return int(self._get(record, "clocks_event_reasons"))

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, h: Handle) -> int:
        record = self._enter("nvmlDeviceGetCurrentClocksThrottleReasons", h)
        return int(self._get(record, "clocks_event_reasons"))

    def _processes(self, function: str, h: Handle, kind: str) -> list[_Struct]:
        procs = self._get(self._enter(function, h), "processes", kind)
        return [_Struct(pid=p["pid"], usedGpuMemory=p.get("used_memory_bytes")) for p in procs]

    def nvmlDeviceGetProcessUtilization(self, h: Handle, last_seen: int) -> list[_Struct]:
        """Per-process samples newer than ``last_seen`` (µs): each listed process with an
        ``sm_percent`` reading gives one, stamped one second after the last call's; none newer
        is NOT_FOUND, as the driver says it."""
        record = self._enter("nvmlDeviceGetProcessUtilization", h)
        procs = self._get(record, "processes")
        self.utilization_asked.append(last_seen)
        self._utilization_clock += 1_000_000
        samples = [
            _Struct(
                pid=p["pid"],
                timeStamp=self._utilization_clock,
                smUtil=p["sm_percent"],
                memUtil=p.get("memory_percent", 0),
                encUtil=0,
                decUtil=0,
            )
            for kind in ("compute", "graphics")
            for p in procs.get(kind) or []
            if p.get("sm_percent") is not None
        ]
        fresh = samples if self._utilization_clock > last_seen else []  # all stamped alike
        if not fresh:
            raise error("NotFound")
        return fresh

    def nvmlDeviceGetComputeRunningProcesses(self, h: Handle) -> list[_Struct]:
        return self._processes("nvmlDeviceGetComputeRunningProcesses", h, "compute")

    def nvmlDeviceGetComputeRunningProcesses_v2(self, h: Handle) -> list[_Struct]:
        return self._processes("nvmlDeviceGetComputeRunningProcesses_v2", h, "compute")

    def nvmlDeviceGetComputeRunningProcesses_v3(self, h: Handle) -> list[_Struct]:
        return self._processes("nvmlDeviceGetComputeRunningProcesses_v3", h, "compute")

    def nvmlDeviceGetGraphicsRunningProcesses(self, h: Handle) -> list[_Struct]:
        return self._processes("nvmlDeviceGetGraphicsRunningProcesses", h, "graphics")

    def nvmlDeviceGetGraphicsRunningProcesses_v2(self, h: Handle) -> list[_Struct]:
        return self._processes("nvmlDeviceGetGraphicsRunningProcesses_v2", h, "graphics")

    def nvmlDeviceGetGraphicsRunningProcesses_v3(self, h: Handle) -> list[_Struct]:
        return self._processes("nvmlDeviceGetGraphicsRunningProcesses_v3", h, "graphics")

    # ---- MIG -------------------------------------------------------------------------------
    def nvmlDeviceGetMaxMigDeviceCount(self, h: Handle) -> int:
        record = self._enter("nvmlDeviceGetMaxMigDeviceCount", h)
        return int(self._get(record, "max_mig_device_count"))

    def nvmlDeviceGetMigDeviceHandleByIndex(self, h: Handle, index: int) -> Handle:
        record = self._enter("nvmlDeviceGetMigDeviceHandleByIndex", h)
        if index >= len(record.get("mig_devices") or []):
            raise error("NotFound")  # an empty slot, as the real call reports it
        return Handle(h.index, index)

    def nvmlDeviceIsMigDeviceHandle(self, h: Handle) -> int:
        self._enter("nvmlDeviceIsMigDeviceHandle", h)
        return int(h.mig is not None)


# ---- the double as the real ``pynvml`` module of a subprocess ---------------------------------
IMPORT_ERRORS: dict[str, BaseException] = {
    "OSError": OSError(5, "Input/output error", "/usr/lib/python3/dist-packages/pynvml.py"),
    "RuntimeError": RuntimeError("pynvml: cannot load the NVML symbols table"),
    "SyntaxError": SyntaxError(
        "invalid syntax", ("/usr/lib/python3/dist-packages/pynvml.py", 812, 9, "def nvmlInit(:\n")
    ),
    "ImportError": ImportError(
        "cannot import name 'c_nvmlMemory_t' from partially initialized module"
    ),
}

_SHIM = """\
\"\"\"Test double standing in for nvidia-ml-py's pynvml (from tests.fakes.fake_nvml).\"\"\"
import sys

from tests.fakes.fake_nvml import pynvml_from_environment

sys.modules[__name__] = pynvml_from_environment()
"""


def install_as_pynvml(directory: Path) -> Path:
    """Write ``pynvml.py`` into ``directory``: with that folder first on ``PYTHONPATH`` a
    subprocess's ``import pynvml`` builds this double, faults chosen by the variables above."""
    directory.mkdir(parents=True, exist_ok=True)
    shim = directory / "pynvml.py"
    shim.write_text(_SHIM)
    return shim


def pynvml_from_environment() -> FakeNvml:
    """What the written ``pynvml.py`` becomes when imported (it runs inside the import)."""
    fault = os.environ.get(IMPORT_VARIABLE, "")
    if fault == "hang":
        threading.Event().wait()  # an import stuck for good, holding the import lock of pynvml
    if fault:
        raise IMPORT_ERRORS[fault]
    fake = FakeNvml.load(os.environ.get(FIXTURE_VARIABLE) or "h200")
    for function in filter(None, os.environ.get(HANG_VARIABLE, "").split(",")):
        fake.hang(function.strip())
    return fake
