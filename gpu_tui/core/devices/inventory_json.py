"""The inventory as JSON (``gpu-tui info --json``): unknown → ``null``, reasons kept aside.

Schema (``schema_version`` 1) — units are in the field names (``_bytes``, ``_mhz``, ``_watts``,
``_c`` degrees Celsius, ``_gflops``/``_tflops``, ``_gbps`` = 10^9 bytes per second). Each object
with unknown fields carries ``unknown: {field: reason}``.

Each accelerator's ``peaks`` holds the dense peaks, ``basis`` (the arithmetic, per peak) and
``clocks`` (per compute peak, keyed like ``basis``): ``clock_basis`` is ``"rated"`` (the vendor's
rated clock for the SKU), ``"nvml_max"`` (NVML's maximum SM clock: the SKU is not in gpu-tui's
table) or ``"published"`` (the vendor's figure used as is); ``clock_mhz``; ``upper_bound`` (true
for ``nvml_max``: the real peak may be lower); ``rated_sku``; ``source_url``, ``source_title`` and
``source_primary`` (false: only a secondary page states it); ``clock_note`` (how the clock follows
from the source, or why no rating applies).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.model import Accelerator, CpuInfo, Inventory

SCHEMA_VERSION = 2


def plain(obj: Any) -> Any:
    """Dataclasses, tuples and dicts → JSON-ready values; ``Unknown`` → ``None``."""
    if isinstance(obj, Unknown):
        return None
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return with_reasons({f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)})
    if isinstance(obj, dict):
        return {str(key): plain(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(item) for item in obj]
    return obj


def with_reasons(fields: dict[str, Any]) -> dict[str, Any]:
    """Convert each field, and list the reasons of the unknown ones under ``unknown``."""
    out = {name: plain(value) for name, value in fields.items()}
    reasons = {name: value.reason for name, value in fields.items() if isinstance(value, Unknown)}
    if reasons:
        out["unknown"] = reasons
    return out


def cpu_json(cpu: CpuInfo) -> dict[str, Any]:
    """The CPU, with its peak flattened to ``peak_fp32_gflops`` and ``peak_basis``."""
    fields = {f.name: getattr(cpu, f.name) for f in dataclasses.fields(cpu) if f.name != "peak"}
    fields["peak_fp32_gflops"] = cpu.peak.gflops
    fields["peak_basis"] = cpu.peak.basis
    return with_reasons(fields)


def accelerator_json(accelerator: Accelerator) -> dict[str, Any]:
    """One accelerator; ``peaks`` and ``datasheet`` nested."""
    result: dict[str, Any] = plain(accelerator)
    return result


def inventory_json(inventory: Inventory) -> dict[str, Any]:
    """The whole inventory as the documented JSON document."""
    return {
        "schema_version": SCHEMA_VERSION,
        "cpu": cpu_json(inventory.cpu),
        "memory": plain(inventory.memory),
        "accelerators": [accelerator_json(a) for a in inventory.accelerators],
        "backends": {name: plain(status) for name, status in inventory.backends.items()},
        # two GPUs or more: NVLink, PCIe path and NUMA per pair and GPU (null otherwise)
        "topology": plain(inventory.topology),
    }
