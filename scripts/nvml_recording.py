#!/usr/bin/env python3
"""Every NVML call gpu-tui makes, asked of the real driver: per GPU, each raw answer (or the
error it gave) under the key the simulated driver reads (tests/fakes/nvml_readings/*.json),
beside what gpu-tui's live session shows from it. The JSON it writes can be turned into a
recording by keeping ``devices[i].raw``.

    python scripts/nvml_recording.py --out recording.json   # on a GPU machine
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import json
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any


def answer(call: Callable[[], Any]) -> Any:
    """The call's value as JSON data, or ``{"error": "NVMLError_…"}``."""
    try:
        return plain(call())
    except Exception as error:  # every failure is a finding
        return {"error": type(error).__name__}


def plain(value: Any) -> Any:
    """A binding's answer (ctypes structs, arrays, its process objects) as JSON data."""
    if hasattr(value, "_fields_"):
        return {name: answer(partial(getattr, value, name)) for name, _ in value._fields_}
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if type(value).__name__ == "nvmlFriendlyObject":  # the binding's process entries
        return {key: plain(item) for key, item in vars(value).items()}
    if isinstance(value, ctypes.Array | tuple | list):
        return [plain(item) for item in value]
    return value if isinstance(value, int | float | str | bool) or value is None else str(value)


def raw_device(nvml: Any, handle: Any, count: int, handles: list[Any]) -> dict[str, Any]:
    ask: dict[str, Callable[[], Any]] = {
        "name": lambda: nvml.nvmlDeviceGetName(handle),
        "uuid": lambda: nvml.nvmlDeviceGetUUID(handle),
        "pci_bus_id": lambda: nvml.nvmlDeviceGetPciInfo(handle).busId,
        "architecture": lambda: nvml.nvmlDeviceGetArchitecture(handle),
        "cuda_cc": lambda: nvml.nvmlDeviceGetCudaComputeCapability(handle),
        "num_gpu_cores": lambda: nvml.nvmlDeviceGetNumGpuCores(handle),
        "memory_bus_width": lambda: nvml.nvmlDeviceGetMemoryBusWidth(handle),
        "memory_v1": lambda: nvml.nvmlDeviceGetMemoryInfo(handle),
        "memory_v2": lambda: nvml.nvmlDeviceGetMemoryInfo(handle, version=nvml.nvmlMemory_v2),
        "power_usage_mw": lambda: nvml.nvmlDeviceGetPowerUsage(handle),
        "power_enforced_limit_mw": lambda: nvml.nvmlDeviceGetEnforcedPowerLimit(handle),
        "energy_mj": lambda: nvml.nvmlDeviceGetTotalEnergyConsumption(handle),
        "temperature_c": lambda: nvml.nvmlDeviceGetTemperature(handle, 0),
        "memory_temperature_c": lambda: nvml.nvmlDeviceGetFieldValues(
            handle, [nvml.NVML_FI_DEV_MEMORY_TEMP]
        )[0],
        "nvlink_data_kib": lambda: nvml.nvmlDeviceGetFieldValues(
            handle,
            [
                nvml.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
                nvml.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX,
            ],
        ),
        "pcie_replay_count": lambda: nvml.nvmlDeviceGetPcieReplayCounter(handle),
        "remapped_rows": lambda: nvml.nvmlDeviceGetRemappedRows(handle),
        "ecc_volatile_corrected": lambda: nvml.nvmlDeviceGetTotalEccErrors(handle, 0, 0),
        "ecc_volatile_uncorrected": lambda: nvml.nvmlDeviceGetTotalEccErrors(handle, 1, 0),
        "clocks_event_reasons": lambda: nvml.nvmlDeviceGetCurrentClocksEventReasons(handle),
        "mig_mode": lambda: nvml.nvmlDeviceGetMigMode(handle),
        "compute_processes_v2": lambda: nvml.nvmlDeviceGetComputeRunningProcesses_v2(handle),
        "compute_processes": lambda: nvml.nvmlDeviceGetComputeRunningProcesses(handle),
        "process_utilization": lambda: nvml.nvmlDeviceGetProcessUtilization(handle, 0),
        "gpm_support": lambda: nvml.nvmlGpmQueryDeviceSupport(handle),
        "p2p_read_status": lambda: [
            nvml.nvmlDeviceGetP2PStatus(handle, other, 0) for other in handles
        ],
        "memory_affinity": lambda: list(nvml.nvmlDeviceGetMemoryAffinity(handle, 1, 0)),
    }
    return {key: answer(call) for key, call in ask.items()}


def shown(session: Any, index: int) -> dict[str, Any]:
    """What gpu-tui's live session reads (two samples apart, as GPM and NVLink rates need)."""
    session.sample(index)
    time.sleep(0.2)
    sample = session.sample(index)
    out: dict[str, Any] = json.loads(json.dumps(dataclasses.asdict(sample), default=str))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    import pynvml

    from gpu_tui.core.devices.nvidia_live import NvmlSession

    pynvml.nvmlInit()
    count = pynvml.nvmlDeviceGetCount()
    handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
    recording: dict[str, Any] = {
        "driver_version": answer(pynvml.nvmlSystemGetDriverVersion),
        "cuda_driver_version": answer(pynvml.nvmlSystemGetCudaDriverVersion),
        "nvml_version": answer(pynvml.nvmlSystemGetNVMLVersion),
        "devices": [],
    }
    session = NvmlSession.open()
    for index, handle in enumerate(handles):
        recording["devices"].append(
            {"raw": raw_device(pynvml, handle, count, handles), "shown": shown(session, index)}
        )
    session.close()
    pynvml.nvmlShutdown()
    args.out.write_text(json.dumps(recording, indent=1) + "\n")
    print(f"{count} GPU(s) recorded in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
