"""/proc/stat and /proc/meminfo read through held descriptors agree with psutil's readings."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import psutil
import pytest

from gpu_tui.core.monitor import procfs
from gpu_tui.core.monitor.host_reader import LiveHostReader, _busy_and_total

RECORDED = Path(__file__).parent.parent / "fixtures" / "procfs" / "this-vm"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@pytest.fixture
def proc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the recorded /proc files that psutil reads in place of the real ones."""
    for name in ("stat", "meminfo", "vmstat"):
        shutil.copy(RECORDED / name, tmp_path / name)
    monkeypatch.setattr(psutil, "PROCFS_PATH", str(tmp_path))
    return tmp_path


def psutil_cpu_times() -> list[tuple[float, float]]:
    """psutil's per-CPU times, counted the sampler's way, in jiffies like /proc/stat."""
    times = [_busy_and_total(t) for t in psutil.cpu_times(percpu=True)]
    return [(round(busy * CLOCK_TICKS), round(total * CLOCK_TICKS)) for busy, total in times]


def test_cpu_times_match_psutil_on_the_recorded_file(proc: Path) -> None:
    assert procfs.cpu_times((proc / "stat").read_bytes()) == psutil_cpu_times()
    assert len(psutil_cpu_times()) == 2


def test_guest_time_is_taken_out_once_as_psutil_does(proc: Path) -> None:
    # A host running VMs: Linux counts guest time inside user time as well as on its own.
    lines = (proc / "stat").read_text().splitlines()
    lines[1] = "cpu0 5000 10 700 90000 30 0 20 5 1200 40"
    (proc / "stat").write_text("\n".join(lines) + "\n")
    times = procfs.cpu_times((proc / "stat").read_bytes())
    total = 5000 + 10 + 700 + 90000 + 30 + 0 + 20 + 5  # everything but guest and guest_nice
    assert times[0] == (total - 90000 - 30, total)  # idle and iowait are not busy
    assert times == psutil_cpu_times()


def test_an_old_kernel_with_fewer_fields_reads_the_ones_it_has() -> None:
    # Before Linux 2.6.33 a line had fewer fields (psutil 7 no longer reads those at all).
    stat = b"cpu  8 0 4 100\ncpu0 5 0 2 50\ncpu1 3 0 2 50\nintr 1 2\ncpu9 1 1 1 1\n"
    assert procfs.cpu_times(stat) == [(7, 57), (5, 55)]


def test_memory_matches_psutil_on_the_recorded_file(proc: Path) -> None:
    found = procfs.memory((proc / "meminfo").read_bytes())
    assert found is not None
    memory, swap = psutil.virtual_memory(), psutil.swap_memory()
    assert (found.total, found.available, found.used) == (
        memory.total,
        memory.available,
        memory.used,
    )
    assert (found.swap_total, found.swap_used) == (swap.total, swap.used)


def test_swap_in_use_is_total_less_free() -> None:
    text = b"MemTotal: 1000 kB\nMemAvailable: 600 kB\nSwapTotal: 300 kB\nSwapFree: 100 kB\n"
    found = procfs.memory(text)
    assert found == procfs.Memory(1000 * 1024, 600 * 1024, 300 * 1024, 100 * 1024)
    assert (found.used, found.swap_used) == (400 * 1024, 200 * 1024)


@pytest.mark.parametrize(
    "available",
    [None, b"MemAvailable:        0 kB\n", b"MemAvailable: 99999999999 kB\n"],
    ids=["missing (before Linux 3.14)", "zero", "more than the total (a container)"],
)
def test_memory_psutil_would_estimate_is_left_to_psutil(available: bytes | None) -> None:
    lines = [line + b"\n" for line in (RECORDED / "meminfo").read_bytes().splitlines()]
    kept = [line for line in lines if not line.startswith(b"MemAvailable:")]
    text = b"".join(kept[:2] + ([available] if available else []) + kept[2:])
    assert procfs.memory(text) is None


def test_a_held_file_is_read_whole_and_afresh_each_time(tmp_path: Path) -> None:
    path = tmp_path / "grows"
    path.write_bytes(b"a" * 10)
    held = procfs.ProcFile(str(path))
    assert held.read() == b"a" * 10
    long = bytes(range(256)) * 300  # several times the first read's room
    path.write_bytes(long)
    assert held.read() == long
    held.close()
    with pytest.raises(OSError, match="Bad file descriptor"):
        os.fstat(held._fd)


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="Linux only: /proc is read here")
def test_both_ways_read_this_machine_alike() -> None:
    held, psutil_only = LiveHostReader(), LiveHostReader(use_procfs=False)
    assert held._stat is not None, "on Linux the sampler reads /proc through held files"
    (cpu, memory), (cpu_psutil, memory_psutil) = held.read(), psutil_only.read()
    assert len(cpu.per_core_percent) == len(cpu_psutil.per_core_percent) == psutil.cpu_count()
    assert memory.total_bytes == memory_psutil.total_bytes
    assert memory.swap_total_bytes == memory_psutil.swap_total_bytes
    # Read a moment apart on a live machine: close, not equal.
    assert memory.available_bytes == pytest.approx(memory_psutil.available_bytes, rel=0.05)
