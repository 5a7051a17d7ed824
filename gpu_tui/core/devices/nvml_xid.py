"""XID errors, as the driver reports them: one NVML event set for every GPU of a session, drained
without waiting at each reading, and the last XID kept per GPU (what dcgm-exporter's
``DCGM_FI_DEV_XID_ERRORS`` shows). An XID is the driver's code for a GPU fault (79: fell off
the bus, 48: uncorrectable ECC, 13/31/43: a program's fault); 0 means none since we started."""

from __future__ import annotations

import contextlib
import ctypes
import threading
from types import ModuleType
from typing import Any

from gpu_tui.core.devices.doctor import field_reason, nvml_error_code
from gpu_tui.core.devices.fields import Maybe, Unknown

XID_CRITICAL_ERROR = 0x8
"""``nvmlEventTypeXidCriticalError``."""
NVML_TIMEOUT = 10
"""``NVML_ERROR_TIMEOUT``: no event is waiting."""
DRAIN_LIMIT = 64
"""Events taken per reading at most: a GPU flooding XIDs cannot hold a tick."""


def _address(handle: Any) -> int | None:
    try:
        return ctypes.cast(handle, ctypes.c_void_p).value
    except (TypeError, ctypes.ArgumentError):
        return None


class XidWatch:
    """The last XID of each GPU of one NVML session, or why it cannot be known."""

    def __init__(self, nvml: ModuleType, handles: list[object | None]) -> None:
        self._nvml = nvml
        self._lock = threading.Lock()
        self._last: dict[int, int] = {}
        self._refused: dict[int, str] = {}
        self._index_of: dict[int, int] = {}
        self._set: Any = None
        try:
            self._set = nvml.nvmlEventSetCreate()
        except Exception as error:
            self._refused = {index: field_reason(error) for index in range(len(handles))}
            return
        for index, handle in enumerate(handles):
            if handle is None:
                continue
            try:
                nvml.nvmlDeviceRegisterEvents(handle, XID_CRITICAL_ERROR, self._set)
            except Exception as error:
                self._refused[index] = field_reason(error)
                continue
            self._last[index] = 0
            address = _address(handle)
            if address is not None:
                self._index_of[address] = index

    def last(self, index: int) -> Maybe[int]:
        """GPU ``index``'s last XID since the watch began (0: none); takes waiting events."""
        with self._lock:
            self._drain()
            if index in self._refused:
                return Unknown(f"XID events: {self._refused[index]}")
            return self._last.get(index, Unknown("XID events: this GPU could not be opened"))

    def _drain(self) -> None:
        if self._set is None or not self._last:
            return
        for _ in range(DRAIN_LIMIT):
            try:
                event = self._nvml.nvmlEventSetWait_v2(self._set, 0)
            except Exception as error:
                if nvml_error_code(error) != NVML_TIMEOUT:
                    reason = field_reason(error)
                    self._refused.update(dict.fromkeys(self._last, reason))
                return
            index = self._index_of.get(_address(event.device) or 0)
            if index is not None and int(event.eventType) & XID_CRITICAL_ERROR:
                self._last[index] = int(event.eventData)

    def close(self) -> None:
        """Free the event set (NVML is still open: the session closes it after this)."""
        event_set, self._set = self._set, None
        if event_set is not None:
            with contextlib.suppress(Exception):  # the session is ending either way
                self._nvml.nvmlEventSetFree(event_set)
