"""What a health check reads from NVML beyond the inventory and a live reading: the NVSwitch
fabric's state, retired memory pages (GPUs before the A100, which remap rows instead) and a MIG
mode change waiting for a reset. Read once per check, through this process's NVML, under the
call limit (``nvml_guard``)."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from types import ModuleType

from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.nvml_guard import GATE, NotAnsweringError
from gpu_tui.core.devices.nvml_process import open_nvml
from gpu_tui.core.devices.nvml_util import missing_function, read

FABRIC_STATES = {0: "not supported", 1: "not started", 2: "in progress", 3: "completed"}
"""``nvmlGpuFabricState_t``."""


@dataclass(frozen=True)
class Fabric:
    """This GPU's registration with the NVSwitch fabric (fabric manager's work)."""

    state: str
    """One of :data:`FABRIC_STATES`' words."""
    status: str
    """NVML's word for how the registration ended ("Success" once completed)."""


@dataclass(frozen=True)
class RetiredPages:
    """Memory pages the driver took out of use, by cause, and whether one waits for a reset."""

    single_bit: int
    double_bit: int
    pending: Maybe[bool]


@dataclass(frozen=True)
class DeviceHealth:
    fabric: Maybe[Fabric]
    retired_pages: Maybe[RetiredPages]
    mig_pending: Maybe[bool]
    """The MIG mode the GPU takes at its next reset; Unknown where MIG does not exist."""


def _fabric(nvml: ModuleType, handle: object) -> Fabric:
    try:
        info = nvml.c_nvmlGpuFabricInfoV_t()
        nvml.nvmlDeviceGetGpuFabricInfoV(handle, ctypes.byref(info))
    except Exception as error:
        if not missing_function(error):  # R535 has only the first version
            raise
        info = nvml.c_nvmlGpuFabricInfo_t()
        nvml.nvmlDeviceGetGpuFabricInfo(handle, ctypes.byref(info))
    state = FABRIC_STATES.get(int(info.state), f"state {int(info.state)}")
    status = int(info.status)
    return Fabric(state, "Success" if status == 0 else str(nvml.nvmlErrorString(status)))


def _retired(nvml: ModuleType, handle: object) -> RetiredPages:
    single = nvml.nvmlDeviceGetRetiredPages(
        handle, nvml.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS
    )
    double = nvml.nvmlDeviceGetRetiredPages(
        handle, nvml.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
    )
    pending = read(lambda: int(nvml.nvmlDeviceGetRetiredPagesPendingStatus(handle)) == 1)
    return RetiredPages(len(single), len(double), pending)


def _device(nvml: ModuleType, index: int) -> DeviceHealth:
    handle = nvml.nvmlDeviceGetHandleByIndex(index)
    mig = read(lambda: nvml.nvmlDeviceGetMigMode(handle))
    return DeviceHealth(
        fabric=read(lambda: _fabric(nvml, handle)),
        retired_pages=read(lambda: _retired(nvml, handle)),
        mig_pending=mig if isinstance(mig, Unknown) else int(mig[1]) == 1,
    )


def device_health(indices: list[int], nvml: ModuleType | None = None) -> dict[int, DeviceHealth]:
    """These GPUs' readings; a GPU that could not be read (or a driver that did not answer in
    time) is left out, and its checks say so."""

    def job() -> dict[int, DeviceHealth]:
        module, _ = open_nvml(nvml)
        found: dict[int, DeviceHealth] = {}
        if module is None:
            return found
        for index in indices:
            try:
                found[index] = _device(module, index)
            except Exception:  # lost, or outside this job's cgroup: its other checks say it
                continue
        return found

    try:
        return GATE.run(job)
    except NotAnsweringError:
        return {}
