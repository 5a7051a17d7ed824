"""NVIDIA GPUs through NVML: what is installed, read field by field, failing soft per device."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import ModuleType
from typing import Any

from gpu_tui.core.devices.catalog import match_datasheet
from gpu_tui.core.devices.doctor import (
    NO_PERMISSION,
    NOT_IN_JOB,
    explain_nvml_error,
    field_reason,
    is_gpu_lost,
    nvml_error_code,
)
from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.model import (
    Accelerator,
    BackendStatus,
    MigDevice,
    NvLink,
    unknown_peaks,
)
from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.devices.nvml_guard import GATE, NotAnsweringError
from gpu_tui.core.devices.nvml_process import open_nvml
from gpu_tui.core.devices.nvml_util import GpuLostError, failed_status, read
from gpu_tui.core.devices.peaks import gpu_peaks

__all__ = ["NvmlSession", "cores_per_sm", "discover_nvidia"]

# nvmlDeviceArchitecture_t values (nvml.h; nvidia-ml-py 13.615 has up to RUBIN = 13).
_ARCHITECTURES = {
    2: "Kepler",
    3: "Maxwell",
    4: "Pascal",
    5: "Volta",
    6: "Turing",
    7: "Ampere",
    8: "Ada Lovelace",
    9: "Hopper",
    10: "Blackwell",
    13: "Rubin",
}

# FP32 lanes ("CUDA cores") per SM by compute capability, from the architecture whitepapers and
# CUDA's own table (_ConvertSMVer2Cores in
# https://github.com/NVIDIA/cuda-samples/blob/master/Common/helper_cuda.h): NVML gives only the
# core count, and the peak table needs SMs (H100: 16896 / 128 = 132 SMs). 10.3 is B300, 11.0
# Jetson Thor, 12.1 GB10 (DGX Spark).
_CORES_PER_SM = {
    "6.0": 64,
    "6.1": 128,
    "7.0": 64,
    "7.5": 64,
    "8.0": 64,
    "8.6": 128,
    "8.7": 128,
    "8.9": 128,
    "9.0": 128,
    "10.0": 128,
    "10.3": 128,
    "11.0": 128,
    "12.0": 128,
    "12.1": 128,
}

_COMPUTE_MODES = {0: "Default", 1: "Exclusive thread", 2: "Prohibited", 3: "Exclusive process"}


def cores_per_sm(compute_capability: str) -> int | None:
    """CUDA cores per SM for a compute capability, or ``None`` when not in our table."""
    return _CORES_PER_SM.get(compute_capability)


def discover_nvidia(
    nvml: ModuleType | None = None,
) -> tuple[tuple[Accelerator, ...], BackendStatus]:
    """Every NVIDIA GPU NVML can see, and how the NVML backend fared. Never raises.

    Blocks for at most the NVML call limit per call (``nvml_guard``): a driver that stops
    answering makes the backend unavailable, "not answering (NVML call … did not return …)".
    """
    try:
        return GATE.run(lambda: _discover(nvml))
    except NotAnsweringError as hung:  # what was read before the hang is lost with its thread
        return (), failed_status(hung)


def _discover(nvml: ModuleType | None) -> tuple[tuple[Accelerator, ...], BackendStatus]:
    module, failure = open_nvml(nvml)
    if module is None:
        assert failure is not None
        return (), failure
    try:
        details = _system_details(module)
        count = module.nvmlDeviceGetCount()
        gpus = tuple(_device(module, index) for index in range(int(count)))
    except Exception as error:  # device count itself failed: no per-device fallback possible
        reason, fix = explain_nvml_error(error)
        return (), BackendStatus("nvml", False, reason, fix)
    empty = None if gpus else "NVML works but reports no NVIDIA GPUs"
    return gpus, BackendStatus("nvml", True, reason=empty, details=details)


def _system_details(nvml: ModuleType) -> dict[str, str]:
    details: dict[str, str] = {}
    driver = read(lambda: str(nvml.nvmlSystemGetDriverVersion()))
    if isinstance(driver, str):
        details["driver_version"] = driver
    cuda = read(lambda: int(nvml.nvmlSystemGetCudaDriverVersion()))
    if isinstance(cuda, int):
        # Encoded as 1000 × major + 10 × minor (12040 → "12.4").
        details["cuda_driver_version"] = f"{cuda // 1000}.{cuda % 1000 // 10}"
    version = read(lambda: str(nvml.nvmlSystemGetNVMLVersion()))
    if isinstance(version, str):
        details["nvml_version"] = version
    return details


def _device(nvml: ModuleType, index: int) -> Accelerator:
    try:
        handle = nvml.nvmlDeviceGetHandleByIndex(index)
    except Exception as error:
        if nvml_error_code(error) == NO_PERMISSION:
            return _unreadable(index, NOT_IN_JOB, lost=False, state="not in this job")
        return _unreadable(index, field_reason(error), lost=is_gpu_lost(error))
    try:
        return _read_device(nvml, handle, index)
    except GpuLostError as lost:
        return _unreadable(index, str(lost), lost=True)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _read_device(nvml: ModuleType, h: object, index: int) -> Accelerator:
    name = read(lambda: _text(nvml.nvmlDeviceGetName(h)))
    cc = read(lambda: "{}.{}".format(*nvml.nvmlDeviceGetCudaComputeCapability(h)))
    cores = read(lambda: int(nvml.nvmlDeviceGetNumGpuCores(h)))
    sm_count = _sm_count(cc, cores)
    bus_width = read(lambda: int(nvml.nvmlDeviceGetMemoryBusWidth(h)))
    max_sm = read(lambda: int(nvml.nvmlDeviceGetMaxClockInfo(h, nvml.NVML_CLOCK_SM)))
    max_mem = read(lambda: int(nvml.nvmlDeviceGetMaxClockInfo(h, nvml.NVML_CLOCK_MEM)))
    mig = read(lambda: int(nvml.nvmlDeviceGetMigMode(h)[0]) == nvml.NVML_DEVICE_MIG_ENABLE)
    product = name if isinstance(name, str) else f"GPU {index}"
    # The name alone does not tell every GH100 board apart; the PCI device ID (the high half of
    # pciDeviceId, e.g. 0x2330 for H100 SXM5 80GB) does, and picks the rated clock of the SKU.
    device_id = read(lambda: int(nvml.nvmlDeviceGetPciInfo(h).pciDeviceId) >> 16)
    default_power = read(lambda: nvml.nvmlDeviceGetPowerManagementDefaultLimit(h) / 1000)

    def threshold(kind: str) -> Maybe[int]:
        return read(lambda: int(nvml.nvmlDeviceGetTemperatureThreshold(h, getattr(nvml, kind))))

    return Accelerator(
        index=index,
        name=product,
        vendor="NVIDIA",
        backend="nvml",
        simulated=False,
        uuid=read(lambda: _text(nvml.nvmlDeviceGetUUID(h))),
        pci_bus_id=read(lambda: _text(nvml.nvmlDeviceGetPciInfo(h).busId)),
        architecture=read(lambda: _architecture(int(nvml.nvmlDeviceGetArchitecture(h)))),
        compute_capability=cc,
        sm_count=sm_count,
        cuda_cores=cores,
        memory_total_bytes=read(lambda: int(nvml.nvmlDeviceGetMemoryInfo(h).total)),
        memory_bus_width_bits=bus_width,
        max_sm_clock_mhz=max_sm,
        max_memory_clock_mhz=max_mem,
        power_limit_default_watts=default_power,
        power_limit_watts=read(lambda: nvml.nvmlDeviceGetEnforcedPowerLimit(h) / 1000),
        pcie_generation_current=read(lambda: int(nvml.nvmlDeviceGetCurrPcieLinkGeneration(h))),
        pcie_generation_max=read(lambda: int(nvml.nvmlDeviceGetMaxPcieLinkGeneration(h))),
        pcie_width_current=read(lambda: int(nvml.nvmlDeviceGetCurrPcieLinkWidth(h))),
        pcie_width_max=read(lambda: int(nvml.nvmlDeviceGetMaxPcieLinkWidth(h))),
        ecc_enabled=read(lambda: int(nvml.nvmlDeviceGetEccMode(h)[0]) == 1),
        mig_enabled=mig,
        persistence_mode=read(lambda: int(nvml.nvmlDeviceGetPersistenceMode(h)) == 1),
        compute_mode=read(lambda: _COMPUTE_MODES[int(nvml.nvmlDeviceGetComputeMode(h))]),
        temperature_slowdown_c=threshold("NVML_TEMPERATURE_THRESHOLD_SLOWDOWN"),
        temperature_shutdown_c=threshold("NVML_TEMPERATURE_THRESHOLD_SHUTDOWN"),
        temperature_max_operating_c=threshold("NVML_TEMPERATURE_THRESHOLD_GPU_MAX"),
        vbios_version=read(lambda: _text(nvml.nvmlDeviceGetVbiosVersion(h))),
        nvlink=_nvlink(nvml, h),
        peaks=gpu_peaks(
            vendor="NVIDIA",
            name=product,
            compute_capability=cc,
            sm_count=sm_count,
            max_sm_clock_mhz=max_sm,
            max_memory_clock_mhz=max_mem,
            memory_bus_width_bits=bus_width,
            pci_device_id=device_id,
            power_limit_default_watts=default_power,
        ),
        datasheet=match_datasheet(product),
        mig_devices=_mig_devices(nvml, h) if mig is True else (),
    )


def _call_int(function: Callable[..., Any], *args: object) -> int:
    return int(function(*args))


def _call_text(function: Callable[..., Any], *args: object) -> str:
    return _text(function(*args))


def _architecture(code: int) -> Maybe[str]:
    return _ARCHITECTURES.get(code) or Unknown(f"architecture id {code} is newer than gpu-tui")


def _sm_count(cc: Maybe[str], cores: Maybe[int]) -> Maybe[int]:
    if isinstance(cores, Unknown):
        return Unknown(f"CUDA core count unknown: {cores.reason}")
    if isinstance(cc, Unknown):
        return Unknown(f"compute capability unknown: {cc.reason}")
    per_sm = cores_per_sm(cc)
    if per_sm is None or cores % per_sm:
        return Unknown(f"cores per SM not known for compute capability {cc}")
    return cores // per_sm


def _nvlink(nvml: ModuleType, h: object) -> Maybe[NvLink]:
    """Active links out of those the GPU has; a GPU without NVLink answers NotSupported."""
    active = 0
    links = 0
    for link in range(int(getattr(nvml, "NVML_NVLINK_MAX_LINKS", 18))):
        state = read(partial(_call_int, nvml.nvmlDeviceGetNvLinkState, h, link))
        if isinstance(state, Unknown):
            if links == 0:
                return state
            break  # past the last link this GPU has
        links += 1
        active += state == 1
    return NvLink(active_links=active, max_links=links)


def _mig_devices(nvml: ModuleType, h: object) -> tuple[MigDevice, ...]:
    """MIG instances of a MIG-enabled GPU (cheap: a handful of calls, once at discovery)."""
    slots = read(lambda: int(nvml.nvmlDeviceGetMaxMigDeviceCount(h)))
    found: list[MigDevice] = []
    for slot in range(slots if isinstance(slots, int) else 0):
        mig = read(partial(nvml.nvmlDeviceGetMigDeviceHandleByIndex, h, slot))
        if isinstance(mig, Unknown):
            continue  # an empty slot answers NotFound
        name = read(partial(nvml.nvmlDeviceGetName, mig))
        memory = read(partial(nvml.nvmlDeviceGetMemoryInfo, mig))
        found.append(
            MigDevice(
                name=_text(name) if not isinstance(name, Unknown) else f"MIG device {slot}",
                uuid=read(partial(_call_text, nvml.nvmlDeviceGetUUID, mig)),
                memory_total_bytes=memory
                if isinstance(memory, Unknown)
                else read(partial(int, memory.total)),
            )
        )
    return tuple(found)


def _unreadable(index: int, reason: str, *, lost: bool, state: str = "unreadable") -> Accelerator:
    """A GPU we hold no handle for: shown by index, every field unknown with the reason."""
    missing = Unknown(reason)
    return Accelerator(
        index=index,
        name=f"GPU {index}: lost" if lost else f"GPU {index}: {state}",
        vendor="NVIDIA",
        backend="nvml",
        simulated=False,
        uuid=missing,
        pci_bus_id=missing,
        architecture=missing,
        compute_capability=missing,
        sm_count=missing,
        cuda_cores=missing,
        memory_total_bytes=missing,
        memory_bus_width_bits=missing,
        max_sm_clock_mhz=missing,
        max_memory_clock_mhz=missing,
        power_limit_default_watts=missing,
        power_limit_watts=missing,
        pcie_generation_current=missing,
        pcie_generation_max=missing,
        pcie_width_current=missing,
        pcie_width_max=missing,
        ecc_enabled=missing,
        mig_enabled=missing,
        persistence_mode=missing,
        compute_mode=missing,
        temperature_slowdown_c=missing,
        temperature_shutdown_c=missing,
        temperature_max_operating_c=missing,
        vbios_version=missing,
        nvlink=missing,
        peaks=unknown_peaks(reason),
        datasheet=None,
        lost=lost,
    )
