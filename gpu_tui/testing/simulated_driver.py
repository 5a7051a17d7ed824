"""A simulated ``libnvidia-ml`` under the real nvidia-ml-py binding: only ``pynvml.nvmlLib`` is
replaced, so the binding's own functions, structs, version fallbacks and constants run as they do
on a GPU server, and the simulated C functions write what a given driver branch writes.

What makes it a driver and not a stand-in for ``pynvml``:

- **Arguments are converted as ctypes converts them for a C call** with no ``argtypes``: an int,
  bytes, ``None`` or a ctypes object goes through; anything else (a tuple such as the binding's
  own ``NVML_P2P_CAPS_INDEX_READ = (0,)``, a float, a Python object) raises
  ``ctypes.ArgumentError`` before the "driver" is reached, as on a real machine.
- **Driver branches are data** (:data:`BRANCHES`): the symbols each exports and how wide the
  process entries it writes are. R535 writes 32-byte entries through the ``_v3`` process calls,
  which this binding reads as 24-byte ones (every entry after the first is garbled into PID 0 /
  4294967295 phantoms); 535.98 and later R535 releases export no ``_v3`` at all; R470 has neither
  ``_v3`` nor ``nvmlDeviceGetMemoryInfo_v2``.
- **Memory as the driver counts it**: the unversioned call (v1) reports reserved memory as used
  (``used = total - free``); ``nvmlDeviceGetMemoryInfo_v2`` reports it apart, as nvidia-smi does.
- **Handles a job may not open**: ``nvmlDeviceGetCount`` counts every GPU, and the handle of one
  outside the job's cgroup fails with ``NVML_ERROR_NO_PERMISSION`` (Slurm ``ConstrainDevices``).

Readings are the recorded JSON files in ``nvml_readings/`` (the same files the older test double
reads); :func:`install` puts a driver under the real ``pynvml`` and :func:`uninstall` takes it
away again.
"""

from __future__ import annotations

import ctypes
import json
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

READINGS = Path(__file__).parent / "nvml_readings"

# NVML return codes (nvml.h): the binding turns each into its NVMLError_* class.
SUCCESS = 0
ERROR_INVALID_ARGUMENT = 2
ERROR_NOT_SUPPORTED = 3
ERROR_NO_PERMISSION = 4
ERROR_NOT_FOUND = 6
ERROR_INSUFFICIENT_SIZE = 7
ERROR_GPU_IS_LOST = 15
ERROR_UNKNOWN = 999

HANDLE_BASE = 0x6E76_0000
"""Simulated device handles are addresses from here, one page per GPU."""

_R535_PROCESS_ENTRY = struct.Struct("<IxxxxQIIQ")
"""pid, usedGpuMemory, gpuInstanceId, computeInstanceId, usedGpuCcProtectedMemory: 32 bytes."""
_PROCESS_ENTRY = struct.Struct("<IxxxxQII")
"""pid, usedGpuMemory, gpuInstanceId, computeInstanceId: 24 bytes (``nvmlProcessInfo_v2_t``)."""
NO_INSTANCE = 0xFFFFFFFF
"""gpuInstanceId / computeInstanceId of a process on a GPU without MIG."""

_NEWER_THAN_R470 = frozenset(
    {
        "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetGraphicsRunningProcesses_v3",
        "nvmlDeviceGetMemoryInfo_v2",
        "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetConfComputeMemSizeInfo",
        "nvmlDeviceGetRunningProcessDetailList",
    }
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
    "r535": Branch(
        "R535",
        "535.86.10",
        12020,
        missing=frozenset({"nvmlDeviceGetRunningProcessDetailList"}),
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
        ),
    ),
    "r550": Branch("R550", "550.90.12", 12040, missing=frozenset()),
    "r570": Branch("R570", "570.133.20", 12080, missing=frozenset()),
}
"""The branches a test can say "on R535 …" about. Symbols and entry sizes as NVML's headers and
nvitop's per-driver rules (``nvitop/api/libnvml.py``) give them."""


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


def _target(pointer: Any) -> Any:
    """The ctypes object a ``byref(...)`` argument points at."""
    return pointer._obj


def _write_string(buffer: Any, size: Any, text: str) -> int:
    encoded = text.encode()
    if len(encoded) + 1 > int(getattr(size, "value", size)):
        return ERROR_INSUFFICIENT_SIZE
    buffer.value = encoded
    return SUCCESS


class SimulatedLibrary:
    """What ``CDLL("libnvidia-ml.so.1")`` would be: each exported symbol is an attribute that
    takes C arguments and returns an NVML return code."""

    def __init__(self, reading: dict[str, Any], branch: Branch) -> None:
        self.reading = reading
        self.branch = branch
        self.devices: list[dict[str, Any]] = reading["devices"]
        self.no_permission: set[int] = set()
        """GPUs outside this job's cgroup: counted, but their handles cannot be opened."""
        self.lost: set[int] = set()
        self.process_samples: dict[int, dict[int, tuple[int, int]]] = {}
        """Per GPU, each process's latest utilisation sample, ``pid: (timeStamp µs, smUtil)``.
        The driver keeps a process's last sample after it stops launching kernels, and returns
        every sample newer than the caller's ``lastSeenTimeStamp``."""
        self.calls: list[str] = []
        self.initialised = 0
        self._lock = threading.Lock()

    # -- the symbol table --------------------------------------------------------------------

    def __getattr__(self, symbol: str) -> Callable[..., int]:
        implementation = getattr(type(self), f"_c_{symbol}", None)
        if implementation is None or not self.branch.exports(symbol):
            raise AttributeError(symbol)  # the binding turns this into FunctionNotFound
        return self._checked(symbol, implementation)

    def _checked(self, symbol: str, implementation: Callable[..., int]) -> Callable[..., int]:
        def call(*args: object) -> int:
            for position, value in enumerate(args, start=1):
                ctypes_argument_check(position, value)
            with self._lock:
                self.calls.append(symbol)
            return implementation(self, *args)

        return call

    # -- handles -----------------------------------------------------------------------------

    def _device(self, handle: Any) -> tuple[int, dict[str, Any]] | None:
        address = ctypes.cast(handle, ctypes.c_void_p).value or 0
        index, rest = divmod(address - HANDLE_BASE, 0x1000)
        if rest or not 0 <= index < len(self.devices) or index in self.lost:
            return None
        return index, self.devices[index]

    def _with_device(self, handle: Any, read: Callable[[dict[str, Any]], int]) -> int:
        found = self._device(handle)
        if found is not None:
            return read(found[1])
        address = ctypes.cast(handle, ctypes.c_void_p).value or 0
        lost = (address - HANDLE_BASE) // 0x1000 in self.lost
        return ERROR_GPU_IS_LOST if lost else ERROR_INVALID_ARGUMENT

    # -- the C functions ---------------------------------------------------------------------

    def _c_nvmlInitWithFlags(self, flags: int) -> int:
        self.initialised += 1
        return SUCCESS

    def _c_nvmlInit_v2(self) -> int:
        self.initialised += 1
        return SUCCESS

    def _c_nvmlShutdown(self) -> int:
        self.initialised = max(0, self.initialised - 1)
        return SUCCESS

    def _c_nvmlSystemGetDriverVersion(self, buffer: Any, size: Any) -> int:
        return _write_string(buffer, size, self.branch.driver_version)

    def _c_nvmlSystemGetNVMLVersion(self, buffer: Any, size: Any) -> int:
        major = self.branch.cuda_driver_version // 1000
        return _write_string(buffer, size, f"{major}.{self.branch.driver_version}")

    def _c_nvmlSystemGetCudaDriverVersion(self, version: Any) -> int:
        _target(version).value = self.branch.cuda_driver_version
        return SUCCESS

    def _c_nvmlSystemGetCudaDriverVersion_v2(self, version: Any) -> int:
        return self._c_nvmlSystemGetCudaDriverVersion(version)

    def _c_nvmlDeviceGetCount_v2(self, count: Any) -> int:
        _target(count).value = len(self.devices)  # inaccessible GPUs are counted too
        return SUCCESS

    def _c_nvmlDeviceGetHandleByIndex_v2(self, index: Any, device: Any) -> int:
        number = int(getattr(index, "value", index))
        if not 0 <= number < len(self.devices):
            return ERROR_INVALID_ARGUMENT
        if number in self.no_permission:
            return ERROR_NO_PERMISSION
        if number in self.lost:
            return ERROR_GPU_IS_LOST
        address = ctypes.c_void_p(HANDLE_BASE + number * 0x1000)
        pointer = _target(device)
        ctypes.memmove(ctypes.addressof(pointer), ctypes.byref(address), ctypes.sizeof(address))
        return SUCCESS

    def _c_nvmlDeviceGetName(self, handle: Any, buffer: Any, size: Any) -> int:
        return self._with_device(handle, lambda d: _write_string(buffer, size, d["name"]))

    def _c_nvmlDeviceGetUUID(self, handle: Any, buffer: Any, size: Any) -> int:
        return self._with_device(handle, lambda d: _write_string(buffer, size, d["uuid"]))

    def _c_nvmlDeviceGetMemoryInfo(self, handle: Any, memory: Any) -> int:
        def read(device: dict[str, Any]) -> int:
            total, used, reserved = _memory(device)
            out = _target(memory)
            out.total, out.used, out.free = total, used + reserved, total - used - reserved
            return SUCCESS

        return self._with_device(handle, read)

    def _c_nvmlDeviceGetMemoryInfo_v2(self, handle: Any, memory: Any) -> int:
        def read(device: dict[str, Any]) -> int:
            total, used, reserved = _memory(device)
            out = _target(memory)
            out.total, out.reserved, out.used = total, reserved, used
            out.free = total - used - reserved
            return SUCCESS

        return self._with_device(handle, read)

    def _c_nvmlDeviceGetP2PStatus(self, a: Any, b: Any, index: Any, status: Any) -> int:
        first, second = self._device(a), self._device(b)
        if first is None or second is None:
            return ERROR_INVALID_ARGUMENT
        matrix = self.reading.get("p2p_status")
        _target(status).value = 0 if matrix is None else matrix[first[0]][second[0]]
        return SUCCESS

    def _c_nvmlDeviceGetProcessUtilization(
        self, handle: Any, samples: Any, count: Any, last_seen: Any
    ) -> int:
        found = self._device(handle)
        if found is None:
            return ERROR_INVALID_ARGUMENT
        since = int(getattr(last_seen, "value", last_seen))
        kept = self.process_samples.get(found[0], {})
        newer = [(pid, stamp, sm) for pid, (stamp, sm) in kept.items() if stamp > since]
        wanted = _target(count)
        if not newer:
            return ERROR_NOT_FOUND
        if samples is None or wanted.value < len(newer):
            wanted.value = len(newer)
            return ERROR_INSUFFICIENT_SIZE
        for at, (pid, stamp, sm) in enumerate(newer):
            samples[at].pid, samples[at].timeStamp, samples[at].smUtil = pid, stamp, sm
        wanted.value = len(newer)
        return SUCCESS

    def _processes(self, symbol: str, kind: str, handle: Any, count: Any, infos: Any) -> int:
        def read(device: dict[str, Any]) -> int:
            listed = device.get("processes", {}).get(kind, [])
            wanted = _target(count)
            if infos is None or wanted.value < len(listed):
                wanted.value = len(listed)
                return ERROR_INSUFFICIENT_SIZE if listed else SUCCESS
            stride = self.branch.process_entry_bytes.get(symbol, _PROCESS_ENTRY.size)
            entry = _R535_PROCESS_ENTRY if stride == _R535_PROCESS_ENTRY.size else _PROCESS_ENTRY
            written = b"".join(
                entry.pack(
                    p["pid"], p["used_bytes"], NO_INSTANCE, NO_INSTANCE, *([0] * (stride == 32))
                )
                for p in listed
            )
            if len(written) > ctypes.sizeof(infos):
                raise AssertionError("the simulated driver would write past the caller's buffer")
            ctypes.memmove(ctypes.addressof(infos), written, len(written))
            wanted.value = len(listed)
            return SUCCESS

        return self._with_device(handle, read)

    def _c_nvmlDeviceGetComputeRunningProcesses_v2(self, h: Any, n: Any, p: Any) -> int:
        return self._processes("nvmlDeviceGetComputeRunningProcesses_v2", "compute", h, n, p)

    def _c_nvmlDeviceGetComputeRunningProcesses_v3(self, h: Any, n: Any, p: Any) -> int:
        return self._processes("nvmlDeviceGetComputeRunningProcesses_v3", "compute", h, n, p)

    def _c_nvmlDeviceGetGraphicsRunningProcesses_v2(self, h: Any, n: Any, p: Any) -> int:
        return self._processes("nvmlDeviceGetGraphicsRunningProcesses_v2", "graphics", h, n, p)

    def _c_nvmlDeviceGetGraphicsRunningProcesses_v3(self, h: Any, n: Any, p: Any) -> int:
        return self._processes("nvmlDeviceGetGraphicsRunningProcesses_v3", "graphics", h, n, p)


def _memory(device: dict[str, Any]) -> tuple[int, int, int]:
    """Total, used (nvidia-smi's *Used*, reserved left out) and driver-reserved bytes."""
    total = int(device["memory_total_bytes"])
    used = int(device["memory_used_bytes"])
    reserved = int(device.get("memory_reserved_bytes", 0))
    return total, used, reserved


def load_reading(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((READINGS / f"{name}.json").read_text())
    return data


def install(pynvml: Any, library: SimulatedLibrary) -> None:
    """Put ``library`` under the real binding ``pynvml``, as if the driver had been loaded."""
    with pynvml.libLoadLock:
        pynvml.nvmlLib = library
        pynvml._nvmlGetFunctionPointer_cache.clear()
        pynvml._nvmlLib_refcount = 0


def uninstall(pynvml: Any) -> None:
    with pynvml.libLoadLock:
        pynvml.nvmlLib = None
        pynvml._nvmlGetFunctionPointer_cache.clear()
        pynvml._nvmlLib_refcount = 0


@contextmanager
def driver(reading: str, branch: str = "r550") -> Iterator[SimulatedLibrary]:
    """The real ``pynvml`` over a simulated driver of ``branch`` with the recorded ``reading``,
    for the duration of the block."""
    import pynvml

    library = SimulatedLibrary(load_reading(reading), BRANCHES[branch])
    install(pynvml, library)
    try:
        yield library
    finally:
        uninstall(pynvml)
