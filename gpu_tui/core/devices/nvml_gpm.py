"""What GPU-Util hides: NVML's GPU Performance Monitoring (GPM) on Hopper and newer.

GPU-Util is the share of time *some* kernel ran; GPM counts what the chip did between two
samples: the share of SMs busy, warps resident, tensor-core and FP pipe activity, memory
bandwidth used. Each GPU keeps two sample buffers; a reading takes a new sample and asks the
metrics between it and the one before, so the first reading after start has none yet.
"""

from __future__ import annotations

import contextlib
from types import ModuleType
from typing import Any

from gpu_tui.core.devices.doctor import field_reason
from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.nvml_util import missing_function
from gpu_tui.core.monitor.samples import Activity

METRICS = {
    "graphics_engine_percent": 1,  # NVML_GPM_METRIC_GRAPHICS_UTIL
    "sm_active_percent": 2,  # NVML_GPM_METRIC_SM_UTIL
    "sm_occupancy_percent": 3,  # NVML_GPM_METRIC_SM_OCCUPANCY
    "tensor_percent": 5,  # NVML_GPM_METRIC_ANY_TENSOR_UTIL
    "dram_percent": 10,  # NVML_GPM_METRIC_DRAM_BW_UTIL
    "fp64_percent": 11,
    "fp32_percent": 12,
    "fp16_percent": 13,
}
"""Each ``Activity`` field's ``NVML_GPM_METRIC_*`` id."""
HOPPER = 9
"""``NVML_DEVICE_ARCH_HOPPER``: the first architecture with GPM."""
NOT_SUPPORTED = "needs a Hopper or newer GPU (H100, H200, GH200, B200)"
NO_GPM = "needs NVIDIA driver R520 or newer"
FIRST = "shown from the second reading (two samples are compared)"


class _Buffers:
    def __init__(self, nvml: ModuleType) -> None:
        self.older: Any = nvml.nvmlGpmSampleAlloc()
        self.newer: Any = nvml.nvmlGpmSampleAlloc()
        self.taken = False


class GpmReader:
    """Per GPU, its two GPM buffers, or why it has none (asked once)."""

    def __init__(self) -> None:
        self._buffers: dict[int, _Buffers | Unknown] = {}

    def activity(self, nvml: ModuleType, handle: object, index: int) -> Maybe[Activity]:
        """The activity since this GPU's previous reading. A failing call is this reading's
        reason only; a GPU without GPM is asked once."""
        buffers = self._buffers.get(index)
        if buffers is None:
            buffers = self._buffers[index] = _start(nvml, handle)
        if isinstance(buffers, Unknown):
            return buffers
        try:
            nvml.nvmlGpmSampleGet(handle, buffers.older)  # the oldest sample is overwritten
        except Exception as error:
            return Unknown(f"GPM: {field_reason(error)}")
        buffers.older, buffers.newer = buffers.newer, buffers.older
        if not buffers.taken:
            buffers.taken = True
            return Unknown(FIRST)
        try:
            values = _metrics(nvml, buffers.older, buffers.newer)
        except Exception as error:
            return Unknown(f"GPM: {field_reason(error)}")
        return Activity(**values)

    def close(self, nvml: ModuleType) -> None:
        for buffers in self._buffers.values():
            if isinstance(buffers, _Buffers):
                for sample in (buffers.older, buffers.newer):
                    try:
                        nvml.nvmlGpmSampleFree(sample)
                    except Exception:
                        continue
        self._buffers.clear()


def _start(nvml: ModuleType, handle: object) -> _Buffers | Unknown:
    try:
        supported = nvml.nvmlGpmQueryDeviceSupport(handle).isSupportedDevice
        if not supported:
            return Unknown(NOT_SUPPORTED)
        return _Buffers(nvml)
    except Exception as error:
        if not missing_function(error):
            return Unknown(f"GPM: {field_reason(error)}")
        # An older driver: a newer one helps only a GPU that has GPM.
        with contextlib.suppress(Exception):  # the architecture unknown: say what is known
            if int(nvml.nvmlDeviceGetArchitecture(handle)) < HOPPER:
                return Unknown(NOT_SUPPORTED)
        return Unknown(NO_GPM)


def _metrics(nvml: ModuleType, older: Any, newer: Any) -> dict[str, Maybe[float]]:
    request = nvml.c_nvmlGpmMetricsGet_t()
    request.version = nvml.NVML_GPM_METRICS_GET_VERSION
    request.numMetrics = len(METRICS)
    request.sample1, request.sample2 = older, newer
    for at, metric in enumerate(METRICS.values()):
        request.metrics[at].metricId = metric
    nvml.nvmlGpmMetricsGet(request)
    out: dict[str, Maybe[float]] = {}
    for at, name in enumerate(METRICS):
        metric = request.metrics[at]
        out[name] = (
            Unknown("not measured on this GPU")
            if metric.nvmlReturn
            else max(0.0, min(100.0, float(metric.value)))
        )
    return out
