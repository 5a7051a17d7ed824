"""One passive check of this machine: the inventory, one live reading per GPU (NVML opened once,
under its call limits), the kernel log's XIDs, and the host's checks, gathered into a report."""

from __future__ import annotations

import glob
import os
from collections.abc import Callable
from types import ModuleType

from gpu_tui.core.check import xid
from gpu_tui.core.check.findings import SKIP, Finding, Report
from gpu_tui.core.check.gpu_checks import UNREAD, gpu_findings
from gpu_tui.core.check.host_checks import cpu_clock, cpu_governor, cpu_turbo, driver_and_torch
from gpu_tui.core.check.nvml_health import device_health
from gpu_tui.core.devices import discover
from gpu_tui.core.devices.doctor import LIBRARY_NOT_FOUND, explain_code
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.torch_build import torch_cuda

DRIVER_LIBRARY_MISSING = explain_code(LIBRARY_NOT_FOUND)[0]
"""What discovery says where there is no NVIDIA driver library at all."""


def has_nvidia_device() -> bool:
    """Whether the NVIDIA kernel driver or its device files are here (so no NVML is a fault)."""
    return os.path.exists("/proc/driver/nvidia/version") or bool(glob.glob("/dev/nvidia[0-9]*"))


def run_check(
    *,
    nvml: ModuleType | None = None,
    nvidia_present: Callable[[], bool] = has_nvidia_device,
    kernel_log: Callable[[], dict[str, list[int]] | str] = xid.kernel_xids,
    torch_build: Callable[[], str | Unknown | None] = torch_cuda,
    measure: Callable[[int], list[Finding]] | None = None,
    demo: bool = False,
) -> Report:
    """Check this machine (``nvml`` swaps in another binding; the other arguments say what the
    machine has, for tests). ``measure``: the active checks (``active.quick_findings``) for the
    number of GPUs the passive checks found, run after them; left out, none runs. ``demo``:
    say the SIMULATED GPU is not checked."""
    report = _passive(nvml, nvidia_present, kernel_log, torch_build)
    if demo:  # said, so that the SIMULATED GPU the other views show is not taken as checked
        simulated = Finding(
            "simulated-gpu", SKIP, "SIMULATED", why="made up by --demo: there is nothing to check"
        )
        report = Report((*report.findings, simulated), report.gpu_count, report.could_not_check)
    if measure is None or report.could_not_check:
        return report
    return Report(
        (*report.findings, *measure(report.gpu_count)), report.gpu_count, report.could_not_check
    )


def _passive(
    nvml: ModuleType | None,
    nvidia_present: Callable[[], bool],
    kernel_log: Callable[[], dict[str, list[int]] | str],
    torch_build: Callable[[], str | Unknown | None],
) -> Report:
    inventory = discover(nvml=nvml)
    findings: list[Finding] = [
        driver_and_torch(inventory, torch_build()),
        cpu_governor(),
        cpu_turbo(),
        cpu_clock(inventory.cpu),
    ]
    backend = inventory.backends.get("nvml")
    gpus = [gpu for gpu in inventory.accelerators if not gpu.simulated]
    if backend is None or not backend.available or not gpus:
        reason = (backend.reason if backend is not None else "") or "no NVIDIA GPU found"
        # No driver library and no NVIDIA device: a machine without a GPU, not a sick one.
        # Anything else (a driver that does not answer, a broken binding) could hide GPUs.
        no_driver = backend is not None and reason == DRIVER_LIBRARY_MISSING
        if nvidia_present() or not (no_driver or backend is None or backend.available):
            return Report(tuple(findings), 0, could_not_check=f"NVML: {reason}")
        findings.append(Finding("gpus", SKIP, "none", why=f"the GPU checks did not run: {reason}"))
        return Report(tuple(findings), 0)
    session = NvmlSession.open(nvml)
    if not session.status.available:
        return Report(tuple(findings), len(gpus), could_not_check=str(session.status.reason))
    try:
        readings = [session.sample(gpu.index) for gpu in gpus]
    finally:
        session.close()
    health = device_health([gpu.index for gpu in gpus], nvml)
    kernel = kernel_log()
    for gpu, reading in zip(gpus, readings, strict=True):
        findings += gpu_findings(gpu, reading, kernel, health.get(gpu.index, UNREAD))
    return Report(tuple(findings), len(gpus))
