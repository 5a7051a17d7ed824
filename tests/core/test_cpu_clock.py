"""The cores' clock measured by a timed chain of dependent adds (machine code through ctypes)."""

from __future__ import annotations

import mmap
import os
import platform

import psutil
import pytest

from gpu_tui.core.devices import cpu_clock

pytestmark = pytest.mark.skipif(
    platform.machine().lower() not in ("x86_64", "amd64", "aarch64", "arm64"),
    reason="the chain is written for x86-64 and AArch64; elsewhere it is not measured (tested "
    "below with the machine name changed)",
)


def test_the_chain_counts_its_adds() -> None:
    made = cpu_clock._chain()
    assert made is not None
    _memory, chain = made
    assert chain(1000) == 1000 * cpu_clock.ADDS_PER_PASS


def test_the_clock_measured_here_is_a_cpu_clock_and_above_a_slow_floor() -> None:
    mhz = cpu_clock.sustained_clock_mhz(os.cpu_count() or 1)
    assert mhz is not None
    assert 200 < mhz < 7000  # no CPU gpu-tui runs on is outside this
    frequency = psutil.cpu_freq()
    if frequency is not None and frequency.max > 0:  # where the OS says the most it can be
        assert mhz < 1.1 * frequency.max


@pytest.fixture(autouse=True)
def measured_afresh() -> None:
    cpu_clock.sustained_clock_mhz.cache_clear()  # measured once per process otherwise


def test_another_architecture_is_not_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_clock.platform, "machine", lambda: "riscv64")
    assert cpu_clock.sustained_clock_mhz(2) is None


def test_a_kernel_that_refuses_executable_memory_is_not_measured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(*args: object, **kwargs: object) -> mmap.mmap:
        raise PermissionError("Operation not permitted")  # SELinux deny_execmem, PaX

    monkeypatch.setattr(cpu_clock.mmap, "mmap", refused)
    assert cpu_clock.sustained_clock_mhz(2) is None


def test_a_chain_that_runs_faster_than_any_clock_measured_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A core that folds the adds (as Golden Cove and later fold add-a-constant) runs the chain
    # at several adds per cycle: no clock, rather than a CPU peak several times too high.
    monkeypatch.setattr(cpu_clock, "_best_mhz", lambda chain, runs: 10_873.0)
    assert cpu_clock.sustained_clock_mhz(2) is None
    cpu_clock.sustained_clock_mhz.cache_clear()
    monkeypatch.setattr(cpu_clock, "_best_mhz", lambda chain, runs: 3_278.0)
    assert cpu_clock.sustained_clock_mhz(2) == 3_278.0
