"""System memory matches what the kernel reports in /proc/meminfo."""

from __future__ import annotations

from pathlib import Path

from gpu_tui.core.devices.memory import read_memory


def meminfo_kib(field: str) -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        name, _, value = line.partition(":")
        if name == field:
            return int(value.split()[0])
    raise AssertionError(f"{field} not in /proc/meminfo")


def test_total_and_swap_match_proc_meminfo() -> None:
    memory = read_memory()
    assert memory.total_bytes == meminfo_kib("MemTotal") * 1024
    assert memory.swap_total_bytes == meminfo_kib("SwapTotal") * 1024
    assert 0 < memory.available_bytes <= memory.total_bytes
