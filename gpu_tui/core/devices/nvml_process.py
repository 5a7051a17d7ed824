"""NVML, opened once per process and shared by everything in it that reads the driver.

Discovery, the topology, the Monitor's live session, the exporter, bench telemetry and the
health check all read the same driver. On a machine without persistence mode, every
``nvmlInit`` that finds no other client re-initialises each GPU (seconds per GPU), and the last
``nvmlShutdown`` undoes it; opening and closing once per reader paid that cost several times at
start, and each time risked the call limit. So the first reader opens NVML and it stays open
until the process ends (the driver frees it then, as it does for nvidia-smi). An open that
failed or did not answer in time is not remembered: the next reader tries again, and one slow
``nvmlInit`` does not leave the rest of the session without GPUs.

Opening runs NVML calls: call :func:`open_nvml` inside a ``GATE.run`` job (``nvml_guard``).
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType

from gpu_tui.core.devices.doctor import check_binding, explain_import_error
from gpu_tui.core.devices.model import BackendStatus
from gpu_tui.core.devices.nvml_guard import IMPORT_CALL, traced, traced_call
from gpu_tui.core.devices.nvml_util import failed_status

_lock = threading.Lock()
"""Held only to look up and store, never across an NVML call (which may hang)."""
_opened: dict[int, ModuleType] = {}
"""``id`` of a binding → that binding, initialised and wrapped in ``TracedNvml``."""
_generation = 0
"""Counts :func:`forget_nvml` calls: an open that began before one is not kept."""


def open_nvml(nvml: ModuleType | None = None) -> tuple[ModuleType | None, BackendStatus | None]:
    """This process's NVML, initialised on the first call (``nvml`` swaps in another binding);
    on failure, None and the status that explains why. Never raises.

    The module comes back wrapped in ``TracedNvml``. Importing and initialising can hang in a
    sick driver: run this inside a ``GATE.run`` job, never on a thread that must stay free.
    """
    module = nvml
    if module is None:
        try:
            module = traced_call(IMPORT_CALL, importlib.import_module, "pynvml")
        except Exception as error:  # not only ImportError: a broken install raises anything
            reason, fix = explain_import_error(error)
            return None, BackendStatus("nvml", False, reason, fix)
    key = id(module)
    with _lock:
        if key in _opened:
            return _opened[key], None
        generation = _generation
    wrong = check_binding(module)
    if wrong is not None:
        return None, BackendStatus("nvml", False, wrong[0], wrong[1])
    traced_module = traced(module)
    try:
        traced_module.nvmlInit()
    except Exception as error:
        return None, failed_status(error)
    with _lock:
        if generation == _generation:
            _opened[key] = traced_module
    return traced_module, None


def forget_nvml() -> None:
    """Open NVML afresh on the next :func:`open_nvml`: for a process whose driver was replaced
    under it (a test's simulated driver), not for one that merely stopped reading."""
    global _generation
    with _lock:
        _opened.clear()
        _generation += 1
