"""Which NVML GPU is the worker's ``cuda:N``: by UUID, PCI bus id or CUDA_VISIBLE_DEVICES."""

from __future__ import annotations

import contextlib
from types import ModuleType
from typing import Any

Identity = tuple[str | None, tuple[int, int, int] | None]
"""(UUID without ``GPU-``, (PCI domain, bus, device)) of one NVML GPU."""


def _bus(text: Any) -> tuple[int, int, int] | None:
    """``(domain, bus, device)`` from ``00000000:03:00.0`` or ``0000:03:00.0``."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    try:
        domain, bus, rest = str(text).strip().split(":")
        return int(domain, 16), int(bus, 16), int(rest.split(".")[0], 16)
    except ValueError:
        return None


def _uuid(text: Any) -> str | None:
    """torch writes UUIDs bare, NVML with a ``GPU-`` prefix: compare them without it."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return (str(text).strip().lower().removeprefix("gpu-") or None) if text else None


def identities(nvml: ModuleType) -> list[Identity]:
    """(UUID, PCI bus) of every GPU in NVML's order; (None, None) where it cannot be read."""
    found: list[Identity] = []
    for index in range(int(nvml.nvmlDeviceGetCount())):
        try:
            handle = nvml.nvmlDeviceGetHandleByIndex(index)
        except Exception:  # a lost GPU: it cannot be matched, the others still can
            found.append((None, None))
            continue
        uuid = bus = None
        with contextlib.suppress(Exception):  # each identity is optional: the other may match
            uuid = _uuid(nvml.nvmlDeviceGetUUID(handle))
        with contextlib.suppress(Exception):
            bus = _bus(nvml.nvmlDeviceGetPciInfo(handle).busId)
        found.append((uuid, bus))
    return found


def match(environment: dict[str, Any], known: list[Identity]) -> dict[str, dict[str, Any]]:
    """NVML index of each ``cuda:N`` in the worker's record, and how it was matched; a GPU that
    cannot be matched for sure gets ``nvml_index: None`` and the reason (no telemetry)."""
    visible = environment.get("cuda_visible_devices")
    entries = [e.strip() for e in visible.split(",")] if visible else []
    pci_order = environment.get("cuda_device_order") == "PCI_BUS_ID"
    return {
        str(d["device"]): _match_one(d, known, entries, pci_order)
        for d in environment.get("devices") or []
        if str(d.get("device", "")).startswith("cuda")
    }


def _match_one(
    device: dict[str, Any], known: list[Identity], entries: list[str], pci_order: bool
) -> dict[str, Any]:
    cuda_index = int(str(device["device"]).partition(":")[2] or 0)
    uuid, bus = _uuid(device.get("uuid")), _bus(device.get("pci_bus_id"))
    entry = entries[cuda_index] if cuda_index < len(entries) else None
    listed = _uuid(entry) if entry and not entry.isdigit() else None  # CUDA allows UUID prefixes
    nvml = range(len(known))
    tries = (
        ("uuid", [i for i in nvml if uuid and known[i][0] == uuid]),
        ("pci_bus_id", [i for i in nvml if bus and known[i][1] == bus]),
        (
            "CUDA_VISIBLE_DEVICES (UUID)",
            [i for i in nvml if listed and (known[i][0] or "").startswith(listed)],
        ),
        (
            "CUDA_VISIBLE_DEVICES with CUDA_DEVICE_ORDER=PCI_BUS_ID",
            [i for i in nvml if pci_order and entry == str(i)],
        ),
        (
            "CUDA_DEVICE_ORDER=PCI_BUS_ID",
            [i for i in nvml if pci_order and not entries and cuda_index == i],
        ),
    )
    for how, hits in tries:
        if len(hits) == 1:
            return {"nvml_index": hits[0], "matched_by": how}
    return {
        "nvml_index": None,
        "reason": "no NVML GPU has its UUID or PCI bus id (a MIG instance, or a container "
        "that shows NVML other GPUs): no telemetry for it",
    }
