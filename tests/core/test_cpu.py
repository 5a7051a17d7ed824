"""CPU inventory: recorded /proc/cpuinfo and sysfs from real CPUs, and this machine."""

from __future__ import annotations

import os
from pathlib import Path

import psutil
import pytest

from gpu_tui.core.devices.cpu import CpuSources, build_cpu_info, parse_cpuinfo, read_cpu
from gpu_tui.core.devices.cpu_names import short_cpu_name
from gpu_tui.core.devices.fields import Unknown

FIXTURES = Path(__file__).parent.parent / "fixtures" / "cpu"


def recorded(name: str, machine: str = "x86_64", **overrides: object) -> CpuSources:
    folder = FIXTURES / name
    sys_root = folder / "sys"
    return CpuSources(
        cpuinfo=(folder / "proc_cpuinfo").read_text(),
        machine=machine,
        sys_root=sys_root if sys_root.is_dir() else None,
        **overrides,  # type: ignore[arg-type]
    )


def test_this_vm_recorded_zen4() -> None:
    cpu = build_cpu_info(recorded("this-vm-zen4"))
    assert cpu.model == "AMD EPYC"
    assert cpu.vendor == "AuthenticAMD"
    assert cpu.microarchitecture == "Zen 4"
    assert cpu.physical_cores == 2
    assert cpu.logical_cores == 2
    assert cpu.sockets == 1
    assert cpu.numa_nodes == 1
    assert cpu.cache_bytes == {"L1d": 65536, "L1i": 65536, "L2": 2 * 1024**2, "L3": 32 * 1024**2}
    assert "avx512_bf16" in cpu.simd
    assert "amx_tile" not in cpu.simd
    assert isinstance(cpu.max_mhz, Unknown)  # no cpufreq in this VM: said, not guessed
    # 2 cores × 2.596124 GHz × 32 FLOP/cycle (Zen 4), the reported clock since no boost is exposed
    assert cpu.peak.gflops == pytest.approx(2 * 2.596124 * 32)
    assert "2 cores" in cpu.peak.basis
    assert "32 FLOP/cycle" in cpu.peak.basis


def test_sapphire_rapids_has_amx_and_64_flops_per_cycle() -> None:
    cpu = build_cpu_info(recorded("xeon-8480c", logical_cores=224, max_mhz=3800.0))
    assert cpu.model == "Intel(R) Xeon(R) Platinum 8480C"
    assert cpu.microarchitecture == "Sapphire Rapids"
    assert {"amx_tile", "amx_bf16", "amx_int8", "avx512_fp16", "avx512_bf16"} <= set(cpu.simd)
    assert cpu.logical_cores == 224
    # one recorded block: 56 cores on its socket ("cpu cores : 56")
    assert cpu.physical_cores == 56
    assert cpu.peak.flops_per_cycle == 64
    assert cpu.peak.gflops == pytest.approx(56 * 3.8 * 64)
    assert "max boost clock" in cpu.peak.basis


def test_granite_rapids_is_named() -> None:
    cpu = build_cpu_info(recorded("xeon-6972p"))
    assert cpu.microarchitecture == "Granite Rapids"
    assert cpu.physical_cores == 96
    assert "amx_tile" in cpu.simd


def test_epyc_milan_is_avx2_only() -> None:
    cpu = build_cpu_info(recorded("epyc-7r13"))
    assert cpu.microarchitecture == "Zen 3"
    assert "avx2" in cpu.simd
    assert "avx512f" not in cpu.simd
    assert cpu.peak.flops_per_cycle == 32
    assert cpu.logical_cores == 2


def test_epyc_genoa_cloud_part() -> None:
    cpu = build_cpu_info(recorded("epyc-9r14"))
    assert cpu.model == "AMD EPYC 9R14"
    assert cpu.microarchitecture == "Zen 4"
    assert "avx512_bf16" in cpu.simd


@pytest.mark.parametrize(
    ("name", "vendor", "core", "expected_simd"),
    [
        ("graviton2", "ARM", "Neoverse-N1", {"asimd", "asimddp"}),
        ("graviton3", "ARM", "Neoverse-V1", {"asimd", "sve"}),
        ("grace-neoverse-v2", "ARM", "Neoverse-V2", {"sve", "sve2", "bf16", "i8mm"}),
        ("ampere-one-a", "Ampere", "Ampere-1a", {"bf16", "i8mm"}),
    ],
)
def test_arm_servers(name: str, vendor: str, core: str, expected_simd: set[str]) -> None:
    cpu = build_cpu_info(recorded(name, machine="aarch64"))
    assert cpu.vendor == vendor
    assert cpu.microarchitecture == core
    assert cpu.model == core  # Arm kernels print no model name; the core name stands in
    assert expected_simd <= set(cpu.simd)
    assert cpu.architecture == "aarch64"
    assert isinstance(cpu.physical_cores, Unknown)  # Arm /proc/cpuinfo has no core ids
    assert cpu.peak.flops_per_cycle == {"graviton2": 16, "ampere-one-a": 16}.get(name, 32)


def test_parse_handles_spaces_before_colon() -> None:
    blocks = parse_cpuinfo("processor       : 0\nCPU part        : 0xd0c\n\nHardware : x\n")
    assert blocks == [{"processor": "0", "CPU part": "0xd0c"}, {"Hardware": "x"}]


def test_unknown_cpu_is_unknown_not_guessed() -> None:
    cpu = build_cpu_info(CpuSources(cpuinfo="processor\t: 0\n", machine="riscv64"))
    assert cpu.model == "unknown CPU"
    assert isinstance(cpu.vendor, Unknown)
    assert isinstance(cpu.peak.gflops, Unknown)
    assert cpu.logical_cores == 1


def test_this_machine_matches_the_os() -> None:
    cpu = read_cpu()
    assert cpu.logical_cores == os.cpu_count()
    assert cpu.physical_cores == psutil.cpu_count(logical=False)
    assert cpu.model  # the first screen shows it


def test_the_peak_uses_the_clock_measured_with_every_core_busy() -> None:
    cpu = build_cpu_info(recorded("this-vm-zen4", sustained_mhz=3690.0))
    assert cpu.sustained_mhz == 3690.0
    assert cpu.current_mhz == pytest.approx(2596.124)  # the nominal clock, shown beside it
    assert cpu.peak.gflops == pytest.approx(2 * 3.690 * 32)
    assert "3.69 GHz (measured with every core busy)" in cpu.peak.basis


def test_without_a_measured_clock_the_boost_clock_is_the_peak_s() -> None:
    cpu = build_cpu_info(recorded("this-vm-zen4", max_mhz=3700.0))
    assert isinstance(cpu.sustained_mhz, Unknown)
    assert cpu.peak.gflops == pytest.approx(2 * 3.7 * 32)
    assert "max boost clock" in cpu.peak.basis


@pytest.mark.parametrize(
    ("model", "short"),
    [
        ("Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", "Intel Xeon Gold 6338"),
        ("AMD EPYC 7763 64-Core Processor", "AMD EPYC 7763 64-Core"),
        ("Intel(R) Xeon(R) Processor", "Intel Xeon Processor"),  # no model number: a word kept
        ("Intel(R) Core(TM) i9-14900K", "Intel Core i9-14900K"),
        ("Apple M2 Max", "Apple M2 Max"),
    ],
)
def test_a_cpu_list_entry_drops_the_marks_and_the_rated_clock(model: str, short: str) -> None:
    assert short_cpu_name(model) == short
