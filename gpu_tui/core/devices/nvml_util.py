"""NVML call helpers shared by discovery and the live session: per-field reads and fallbacks."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

from gpu_tui.core.devices.doctor import (
    FUNCTION_NOT_FOUND,
    explain_nvml_error,
    field_reason,
    is_gpu_lost,
    nvml_error_code,
)
from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.model import BackendStatus

T = TypeVar("T")

# Clocks-event (throttle) reason bits, as nvml.h defines them. The more specific hardware
# reasons (0x40 thermal, 0x80 power brake) also set 0x8, so 0x8 alone is shown only without them.
_REASONS: tuple[tuple[int, str], ...] = (
    (0x1, "idle"),
    (0x2, "application clock setting"),
    (0x4, "power cap"),
    (0x8, "hardware slowdown"),
    (0x10, "sync boost"),
    (0x20, "software thermal slowdown"),
    (0x40, "hardware thermal slowdown"),
    (0x80, "hardware power brake"),
    (0x100, "display clock setting"),
    (0x200, "board limit"),
    (0x400, "reliability limit"),
)


def throttle_words(mask: int) -> tuple[str, ...]:
    """Plain words for a clocks-event reason bitmask; empty when the clocks run free."""
    words = [word for bit, word in _REASONS if mask & bit]
    if mask & 0xC0:
        words.remove("hardware slowdown")
    known = sum(bit for bit, _ in _REASONS)
    if mask & ~known:
        words.append(f"other (0x{mask & ~known:x})")
    return tuple(words)


class GpuLostError(Exception):
    """Raised inside a device read when NVML says the GPU is lost: the device is shown as lost."""


def read(call: Callable[[], T]) -> Maybe[T]:
    """One field: the value, or ``Unknown(reason)``; a lost GPU aborts the whole device."""
    try:
        return call()
    except Exception as error:  # each field fails on its own
        if is_gpu_lost(error):
            raise GpuLostError(field_reason(error)) from error
        return Unknown(field_reason(error))


def missing_function(error: BaseException) -> bool:
    """The binding or the driver lacks a function (so try the older variant)."""
    return (
        isinstance(error, AttributeError)
        or nvml_error_code(error) == FUNCTION_NOT_FOUND
        or type(error).__name__ == "NVMLLibraryMismatchError"
    )


def first_available(nvml: ModuleType, names: tuple[str, ...], *args: object) -> Any:
    """Call the first of ``names`` that this binding and driver provide."""
    last: BaseException = AttributeError(names[0])
    for name in names:
        try:
            return getattr(nvml, name)(*args)
        except Exception as error:
            if not missing_function(error):
                raise
            last = error
    raise last


def failed_status(error: BaseException) -> BackendStatus:
    """The NVML backend, unavailable because of ``error`` (``NotAnsweringError`` included)."""
    reason, fix = explain_nvml_error(error)
    return BackendStatus("nvml", False, reason, fix)
