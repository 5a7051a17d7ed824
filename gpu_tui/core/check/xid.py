"""What an XID means and what to do about it, and XIDs found in the kernel log.

The driver logs each GPU fault as ``NVRM: Xid (PCI:0000:18:00): 79, …``; NVIDIA's catalog
(https://docs.nvidia.com/deploy/xid-errors/index.html) says what each code means. A program's
own fault (13, 31, 43, 45) is a warning: the GPU is fine, the job was not."""

from __future__ import annotations

import re
import subprocess

from gpu_tui.core.check.findings import FAIL, WARN

MEANINGS: dict[int, tuple[str, str, str]] = {
    13: (WARN, "graphics engine exception, most often a program's own bug", "check the job"),
    31: (WARN, "GPU memory page fault, most often a program's own bug", "check the job"),
    43: (WARN, "the GPU stopped a program's work (a program fault)", "check the job"),
    45: (WARN, "a program's work was cleaned up after it was killed", "none needed"),
    48: (FAIL, "double-bit ECC error: memory returned wrong data", "reset the GPU (nvidia-smi -r)"),
    61: (FAIL, "internal micro-controller breakpoint", "reset the GPU; report it if it repeats"),
    62: (FAIL, "internal micro-controller halt", "reset the GPU; report it if it repeats"),
    63: (WARN, "a memory row remap or page retirement was recorded", "reset the GPU to apply it"),
    64: (FAIL, "a memory row remap or page retirement failed", "the GPU needs service (RMA)"),
    74: (FAIL, "NVLink error", "reset the GPU; check the NVLink/NVSwitch and fabric manager"),
    79: (FAIL, "the GPU has fallen off the bus", "power-cycle the node; reseat or RMA the GPU"),
    92: (WARN, "a high rate of corrected (single-bit) ECC errors", "watch it; RMA if it grows"),
    94: (WARN, "contained ECC error: the program that hit it was stopped", "reset when idle"),
    95: (FAIL, "uncontained ECC error: every program on the GPU is affected", "reset the GPU"),
    119: (FAIL, "the GPU's system processor (GSP) did not answer", "reset the GPU or reboot"),
    120: (FAIL, "the GPU's system processor (GSP) reported an error", "reset the GPU or reboot"),
}
UNLISTED = (FAIL, "a driver-reported GPU fault", "look it up in NVIDIA's XID catalog")

_KERNEL_XID = re.compile(
    r"NVRM: Xid \((?:PCI:)?([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})[^)]*\): (\d+)"
)


def meaning(xid: int) -> tuple[str, str, str]:
    """(verdict, what it means, what to do)."""
    return MEANINGS.get(xid, UNLISTED)


def kernel_xids() -> dict[str, list[int]] | str:
    """XIDs in the kernel log by PCI address (``0000:18:00``, lower case), or why the log could
    not be read (``dmesg`` needs root where kernel.dmesg_restrict is 1)."""
    try:
        done = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"the kernel log could not be read ({type(error).__name__})"
    if done.returncode != 0:
        return "the kernel log is not readable by this user (dmesg needs root here)"
    return parse_kernel_log(done.stdout)


def parse_kernel_log(text: str) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for address, xid in _KERNEL_XID.findall(text):
        found.setdefault(address.lower(), []).append(int(xid))
    return found
