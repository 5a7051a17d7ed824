"""Theoretical peak arithmetic: worked examples to 0.1 %, and which clock each peak used."""

from __future__ import annotations

import pytest

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.model import PeakClock, Peaks
from gpu_tui.core.devices.peaks import cpu_flops_per_cycle, cpu_fp32_peak, gpu_peaks, sku_class
from gpu_tui.core.devices.rated_clocks import RatedSku, find_rated
from gpu_tui.core.devices.sources import Source

NOT_READ = Unknown("not read")
TIGHT = 1e-3  # relative: NVIDIA's H100 whitepaper rounds its figures to one decimal place


def peaks_for(
    name: str,
    cc: str,
    sms: int,
    mhz: int | Unknown,
    mem_mhz: int | Unknown = NOT_READ,
    bus: int | Unknown = NOT_READ,
    vendor: str = "NVIDIA",
    pci_device_id: int | Unknown | None = None,
) -> Peaks:
    return gpu_peaks(
        vendor=vendor,
        name=name,
        compute_capability=cc,
        sm_count=sms,
        max_sm_clock_mhz=mhz,
        max_memory_clock_mhz=mem_mhz,
        memory_bus_width_bits=bus,
        pci_device_id=pci_device_id,
    )


def test_h100_sxm_tensor_peak_uses_the_datasheet_tensor_clock() -> None:
    peaks = peaks_for("NVIDIA H100 80GB HBM3", "9.0", 132, 1980, 2619, 5120)
    assert peaks.bf16_tflops == pytest.approx(989.4, rel=TIGHT)
    assert peaks.fp16_tflops == pytest.approx(989.4, rel=TIGHT)
    assert peaks.tf32_tflops == pytest.approx(494.7, rel=TIGHT)
    assert peaks.fp8_tflops == pytest.approx(1978.9, rel=TIGHT)
    assert peaks.fp32_tflops == pytest.approx(66.9, rel=TIGHT)
    assert peaks.memory_bandwidth_gb_per_second == pytest.approx(3352, rel=TIGHT)
    assert peaks.basis["bf16_tflops"].startswith(
        "132 SMs × 1.83 GHz (NVIDIA's rated tensor clock for H100 SXM5 80GB; NVML max 1.98 GHz)"
        " × 4096 FLOP/clk/SM"
    )
    assert peaks.basis["fp32_tflops"].startswith(
        "132 SMs × 1.98 GHz (NVIDIA's rated FP32 clock for H100 SXM5 80GB) × 256 FLOP/clk/SM"
    )
    bf16 = peaks.clocks["bf16_tflops"]
    assert (bf16.clock_basis, bf16.clock_mhz, bf16.upper_bound) == ("rated", 1830, False)
    assert (peaks.clocks["fp32_tflops"].clock_mhz, bf16.rated_sku) == (1980, "H100 SXM5 80GB")
    assert (
        bf16.source_url
        == "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
    )
    assert peaks.basis["memory_bandwidth_gb_per_second"] == (
        "2619 MHz × 5120 bit × 2 (double data rate) ÷ 8 bit/B = 3,352 GB/s"
    )


def test_h200_same_compute_as_h100_and_bandwidth_above_datasheet() -> None:
    peaks = peaks_for("NVIDIA H200", "9.0", 132, 1980, 3201, 6144)
    assert peaks.bf16_tflops == pytest.approx(989.4, rel=TIGHT)
    assert peaks.memory_bandwidth_gb_per_second == pytest.approx(4916.7, rel=1e-4)


def test_h100_pcie_tensor_peak_uses_the_clock_nvidias_figure_is_computed_at() -> None:
    # NVML max 1755 MHz would give 114 × 1755 × 4096 = 819.5; NVIDIA's dense figure is 756.
    peaks = peaks_for("NVIDIA H100 PCIe", "9.0", 114, 1755, pci_device_id=0x2331)
    assert peaks.bf16_tflops == pytest.approx(114 * 1620 * 4096 / 1e6, rel=1e-9)
    assert peaks.fp32_tflops == pytest.approx(114 * 1755 * 256 / 1e6, rel=1e-9)
    assert (
        "1.62 GHz (NVIDIA's rated tensor clock for H100 PCIe; NVML max 1.755 GHz)"
        in (peaks.basis["bf16_tflops"])
    )


def test_a_sku_not_in_the_table_is_computed_at_nvml_max_as_an_upper_bound() -> None:
    peaks = peaks_for("NVIDIA H800 PCIe", "9.0", 114, 1755)
    assert peaks.bf16_tflops == pytest.approx(114 * 1755 * 4096 / 1e6, rel=1e-9)
    assert peaks.basis["bf16_tflops"].startswith(
        "upper bound: 114 SMs × 1.755 GHz (the maximum clock NVML reports; the vendor's rated "
        "clock for this GPU is not in gpu-tui's table) × 4096 FLOP/clk/SM"
    )
    for key in ("fp32_tflops", "tf32_tflops", "fp16_tflops", "bf16_tflops", "fp8_tflops"):
        assert peaks.clocks[key] == PeakClock(
            clock_basis="nvml_max",
            clock_mhz=1755,
            upper_bound=True,
            clock_note="the vendor's rated clock for this GPU is not in gpu-tui's table",
        )


def test_the_pci_device_id_keeps_another_board_of_the_same_name_off_the_rating() -> None:
    # pci.ids: 0x2321 is H100L 94GB (H100 NVL), 0x2339 another GH100 board (H100 SXM5 94GB).
    rated = peaks_for("NVIDIA H100 NVL", "9.0", 132, 1785, pci_device_id=0x2321)
    other = peaks_for("NVIDIA H100 NVL", "9.0", 132, 1785, pci_device_id=0x2339)
    unread = peaks_for("NVIDIA H100 NVL", "9.0", 132, 1785, pci_device_id=Unknown("NotSupported"))
    assert rated.bf16_tflops == pytest.approx(132 * 1545 * 4096 / 1e6, rel=1e-9)
    assert unread.bf16_tflops == rated.bf16_tflops  # the name alone names one row
    assert other.bf16_tflops == pytest.approx(132 * 1785 * 4096 / 1e6, rel=1e-9)
    assert other.clocks["bf16_tflops"].upper_bound
    assert other.clocks["bf16_tflops"].clock_note == (
        "gpu-tui's table rates 'NVIDIA H100 NVL' only with PCI device ID 0x2321; "
        "NVML reports 0x2339"
    )


def test_a_board_with_other_sm_count_or_a_lower_maximum_is_not_given_the_rating() -> None:
    cut_down = peaks_for("NVIDIA H100 80GB HBM3", "9.0", 114, 1980)
    assert cut_down.clocks["bf16_tflops"].clock_note == (
        "NVML reports 114 SMs; NVIDIA's rating for H100 SXM5 80GB is for 132"
    )
    assert cut_down.bf16_tflops == pytest.approx(114 * 1980 * 4096 / 1e6, rel=1e-9)
    slower = peaks_for("NVIDIA H100 80GB HBM3", "9.0", 132, 1755)
    assert slower.bf16_tflops == pytest.approx(132 * 1755 * 4096 / 1e6, rel=1e-9)
    assert slower.clocks["bf16_tflops"].clock_note == (
        "NVIDIA rates H100 SXM5 80GB at 1.83 GHz, above this board's maximum"
    )


def test_rated_clock_stands_in_when_nvml_reports_no_maximum_clock() -> None:
    # torch under CUDA 13 no longer reports clocks: the bench's peaks still come out rated.
    peaks = peaks_for("NVIDIA H100 80GB HBM3", "9.0", 132, Unknown("clock not reported by torch"))
    assert peaks.bf16_tflops == pytest.approx(989.4, rel=TIGHT)
    assert "NVML max" not in peaks.basis["bf16_tflops"]
    unlisted = peaks_for("NVIDIA H800", "9.0", 132, Unknown("clock not reported by torch"))
    assert unlisted.bf16_tflops == Unknown("max SM clock unknown: clock not reported by torch")


def test_a_firmware_capped_part_shows_the_published_figure() -> None:
    peaks = peaks_for("NVIDIA H20", "9.0", 78, 1980, pci_device_id=0x2329)
    assert (peaks.bf16_tflops, peaks.fp16_tflops, peaks.tf32_tflops, peaks.fp8_tflops) == (
        148.0,
        148.0,
        74.0,
        296.0,
    )
    assert peaks.basis["bf16_tflops"] == (
        "148.0 TFLOP/s as published for H20 (secondary source): its firmware caps the tensor "
        "rate; 78 SMs × 1.98 GHz × 4096 FLOP/clk/SM would give 632.6"
    )
    bf16 = peaks.clocks["bf16_tflops"]
    assert (bf16.clock_basis, bf16.clock_mhz, bf16.upper_bound) == ("published", None, False)
    assert bf16.source_primary is False
    # No FP32 figure is sourced: FP32 falls back to NVML's maximum, as an upper bound.
    assert peaks.fp32_tflops == pytest.approx(78 * 1980 * 256 / 1e6, rel=1e-9)
    assert (
        peaks.clocks["fp32_tflops"].clock_note == "gpu-tui's table has no rated FP32 clock for H20"
    )


def test_rows_sharing_name_and_device_id_are_split_by_the_default_power_limit() -> None:
    source = Source("https://example.invalid/doc", "says")
    low, high = (
        RatedSku(
            "X 300 W", "NVIDIA X", 0x1234, 10, 1000, 900, source, "", power_limit_default_watts=w
        )
        for w in (300.0, 400.0)
    )
    table = (low, high)
    assert (
        find_rated(name="NVIDIA X", sm_count=10, power_limit_default_watts=400.0, table=table)
        is high
    )
    unread = find_rated(name="NVIDIA X", sm_count=10, pci_device_id=0x1234, table=table)
    assert unread == Unknown(
        "2 SKUs in gpu-tui's table share the name 'NVIDIA X'; NVML did not report what tells "
        "them apart"
    )
    assert find_rated(
        name="NVIDIA X", sm_count=10, power_limit_default_watts=350.0, table=table
    ) == Unknown(
        "gpu-tui's table rates 'NVIDIA X' at other default power limits; NVML reports 350 W"
    )


def test_a100() -> None:
    peaks = peaks_for("NVIDIA A100-SXM4-40GB", "8.0", 108, 1410, 1215, 5120)
    assert peaks.bf16_tflops == pytest.approx(311.9, rel=TIGHT)
    assert peaks.tf32_tflops == pytest.approx(155.9, rel=TIGHT)
    assert peaks.fp32_tflops == pytest.approx(19.5, rel=TIGHT)
    assert peaks.memory_bandwidth_gb_per_second == pytest.approx(1555.2, rel=TIGHT)
    assert peaks.fp8_tflops == Unknown("Ampere has no FP8")


def test_a100_80gb_bandwidth() -> None:
    peaks = peaks_for("NVIDIA A100-SXM4-80GB", "8.0", 108, 1410, 1593, 5120)
    assert peaks.memory_bandwidth_gb_per_second == pytest.approx(2039, rel=TIGHT)


def test_ada_professional_runs_fp32_accumulate_at_full_rate() -> None:
    l40s = peaks_for("NVIDIA L40S", "8.9", 142, 2490)
    assert l40s.bf16_tflops == pytest.approx(362.0, rel=TIGHT)
    assert l40s.fp8_tflops == pytest.approx(724.1, rel=TIGHT)
    l4 = peaks_for("NVIDIA L4", "8.9", 58, 2040)
    assert l4.bf16_tflops == pytest.approx(121.2, rel=TIGHT)


def test_geforce_ada_runs_fp32_accumulate_at_half_rate() -> None:
    peaks = peaks_for("NVIDIA GeForce RTX 4090", "8.9", 128, 2520, 10501, 384)
    assert peaks.bf16_tflops == pytest.approx(165.2, rel=TIGHT)
    assert peaks.fp8_tflops == pytest.approx(330.3, rel=TIGHT)
    assert peaks.fp32_tflops == pytest.approx(82.6, rel=TIGHT)
    assert peaks.memory_bandwidth_gb_per_second == pytest.approx(1008, rel=TIGHT)
    assert "GeForce" in peaks.basis["bf16_tflops"]


def test_geforce_4090_uses_boost_clock_not_nvml_max() -> None:
    # Recorded RTX 4090: NVML max SM clock 3105 MHz, boost 2520 MHz (tests/fakes/nvml_readings).
    peaks = peaks_for("NVIDIA GeForce RTX 4090", "8.9", 128, 3105, 10501, 384)
    assert peaks.bf16_tflops == pytest.approx(165.2, rel=TIGHT)
    assert peaks.fp32_tflops == pytest.approx(82.6, rel=TIGHT)
    assert (
        "2.52 GHz (NVIDIA's rated FP32 clock for GeForce RTX 4090; NVML max 3.105 GHz)"
        in (peaks.basis["fp32_tflops"])
    )


def test_turing_t4_fp16_and_no_bf16() -> None:
    peaks = peaks_for("Tesla T4", "7.5", 40, 1590, 5001, 256)
    assert peaks.fp16_tflops == pytest.approx(65.1, rel=TIGHT)
    assert peaks.memory_bandwidth_gb_per_second == pytest.approx(320.1, rel=TIGHT)
    assert peaks.bf16_tflops == Unknown("Turing has no BF16/TF32/FP8")


def test_v100_and_ga102_and_b200() -> None:
    assert peaks_for("Tesla V100-SXM2-16GB", "7.0", 80, 1530).fp16_tflops == pytest.approx(
        125.3, rel=TIGHT
    )
    rtx3090 = peaks_for("NVIDIA GeForce RTX 3090", "8.6", 82, 1695)
    assert rtx3090.bf16_tflops == pytest.approx(71.2, rel=TIGHT)
    assert rtx3090.fp32_tflops == pytest.approx(35.6, rel=TIGHT)
    assert peaks_for("NVIDIA B200", "10.0", 148, 1860).bf16_tflops == pytest.approx(
        2255.2, rel=TIGHT
    )


def test_geforce_blackwell_fp32_and_unpublished_tensor_rate() -> None:
    peaks = peaks_for("NVIDIA GeForce RTX 5090", "12.0", 170, 2407)
    assert peaks.fp32_tflops == pytest.approx(104.8, rel=TIGHT)
    assert isinstance(peaks.bf16_tflops, Unknown)
    assert "not published" in peaks.bf16_tflops.reason


def test_unknown_arch_and_inputs_give_reasons() -> None:
    pascal = peaks_for("Tesla P100-SXM2-16GB", "6.0", 56, 1480)
    assert pascal.fp32_tflops == Unknown(
        "professional parts of compute capability 6.0 are not in our table"
    )
    no_sms = gpu_peaks(
        vendor="NVIDIA",
        name="NVIDIA H100 80GB HBM3",
        compute_capability="9.0",
        sm_count=Unknown("cores per SM not known for this architecture"),
        max_sm_clock_mhz=1980,
        max_memory_clock_mhz=Unknown("Not Supported"),
        memory_bus_width_bits=5120,
    )
    assert no_sms.bf16_tflops == Unknown(
        "SM count unknown: cores per SM not known for this architecture"
    )
    assert no_sms.memory_bandwidth_gb_per_second == Unknown("memory clock unknown: Not Supported")
    assert no_sms.basis == {}
    unknown_cc = gpu_peaks(
        vendor="NVIDIA",
        name="x",
        compute_capability=Unknown("NotSupported"),
        sm_count=1,
        max_sm_clock_mhz=1,
        max_memory_clock_mhz=1,
        memory_bus_width_bits=8,
    )
    assert unknown_cc.fp32_tflops == Unknown("architecture unknown: NotSupported")


def test_amd_cdna3_compute_and_no_bandwidth_formula() -> None:
    peaks = peaks_for("AMD Instinct MI300X", "gfx942", 304, 2100, 1300, 8192, vendor="AMD")
    assert peaks.bf16_tflops == pytest.approx(1307.4, rel=TIGHT)
    assert isinstance(peaks.memory_bandwidth_gb_per_second, Unknown)


def test_sku_class() -> None:
    assert sku_class("NVIDIA GeForce RTX 4090") == "GeForce"
    assert sku_class("NVIDIA RTX 6000 Ada Generation") == "professional"
    assert sku_class("NVIDIA L40S") == "professional"


ZEN4 = frozenset({"avx", "avx2", "fma", "avx512f"})


@pytest.mark.parametrize(
    ("vendor", "family", "model", "flags", "expected"),
    [
        ("AuthenticAMD", 0x19, 0x11, ZEN4, 32),
        ("AuthenticAMD", 0x19, 0x01, frozenset({"avx2", "fma"}), 32),
        ("AuthenticAMD", 0x17, 0x31, frozenset({"avx2", "fma"}), 32),
        ("AuthenticAMD", 0x17, 0x01, frozenset({"avx2", "fma"}), 16),
        ("GenuineIntel", 6, 0x55, frozenset({"avx2", "fma", "avx512f"}), 64),
        ("GenuineIntel", 6, 0x8F, frozenset({"avx2", "fma", "avx512f"}), 64),
        ("GenuineIntel", 6, 0x7E, frozenset({"avx2", "fma", "avx512f"}), 32),
        # a VM that masks the model (0xA7 is a client part) but passes AMX through: a Xeon
        ("GenuineIntel", 6, 0xA7, frozenset({"avx2", "fma", "avx512f", "amx_tile"}), 64),
        ("GenuineIntel", 6, 0x3F, frozenset({"avx", "avx2", "fma"}), 32),
        ("GenuineIntel", 6, 0x2A, frozenset({"avx"}), 16),
    ],
)
def test_cpu_flops_per_cycle(
    vendor: str, family: int, model: int, flags: frozenset[str], expected: int
) -> None:
    result = cpu_flops_per_cycle(vendor=vendor, family=family, model=model, flags=flags)
    assert not isinstance(result, Unknown)
    assert result[0] == expected


def test_cpu_flops_unknown_cores() -> None:
    arm = cpu_flops_per_cycle(vendor="ARM", family=None, model=None, flags=frozenset({"asimd"}))
    assert arm == Unknown("FLOP/cycle for ARM CPU cores is not in our table")
    cortex = cpu_flops_per_cycle(
        vendor="ARM", family=None, model=None, flags=frozenset(), arm_core=(0x41, 0xD08)
    )
    assert cortex == Unknown("FLOP/cycle for Arm core part 0xd08 is not in our table")


@pytest.mark.parametrize(
    ("arm_core", "expected"),
    [((0x41, 0xD0C), 16), ((0x41, 0xD40), 32), ((0x41, 0xD4F), 32), ((0xC0, 0xAC4), 16)],
)
def test_arm_flops_per_cycle(arm_core: tuple[int, int], expected: int) -> None:
    rate = cpu_flops_per_cycle(
        vendor="ARM", family=None, model=None, flags=frozenset({"asimd"}), arm_core=arm_core
    )
    assert not isinstance(rate, Unknown)
    assert rate[0] == expected


def test_zen5_server_and_mobile() -> None:
    turin = cpu_flops_per_cycle(vendor="AuthenticAMD", family=0x1A, model=0x11, flags=ZEN4)
    strix = cpu_flops_per_cycle(vendor="AuthenticAMD", family=0x1A, model=0x24, flags=ZEN4)
    assert not isinstance(turin, Unknown)
    assert not isinstance(strix, Unknown)
    assert (turin[0], strix[0]) == (64, 32)


def test_cpu_peak_two_vcpu_zen4_worked_example() -> None:
    rate = cpu_flops_per_cycle(vendor="AuthenticAMD", family=0x19, model=0x11, flags=ZEN4)
    peak = cpu_fp32_peak(
        cores=2,
        clock_mhz=2600.0,
        clock_label="nominal; no boost clock exposed",
        flops_per_cycle=rate,
    )
    assert peak.gflops == pytest.approx(166.4, rel=1e-9)
    assert peak.flops_per_cycle == 32
    assert peak.basis == (
        "2 cores × 2.60 GHz (nominal; no boost clock exposed) × 32 FLOP/cycle "
        "(Zen 4: 2×256-bit FMA; AVX-512 runs as 2×256) = 166 GFLOP/s"
    )


def test_cpu_peak_unknowns_carry_reasons() -> None:
    no_clock = cpu_fp32_peak(
        cores=4, clock_mhz=Unknown("no clock reported"), clock_label="x", flops_per_cycle=(32, "y")
    )
    assert no_clock.gflops == Unknown("clock unknown: no clock reported")
    assert no_clock.basis.startswith("4 cores × clock unknown (no clock reported) × 32 FLOP/cycle")
    no_rate = cpu_fp32_peak(
        cores=1, clock_mhz=3000.0, clock_label="max", flops_per_cycle=Unknown("Arm")
    )
    assert no_rate.gflops == Unknown("Arm")
    assert no_rate.flops_per_cycle == Unknown("Arm")
    assert no_rate.basis == "1 core × 3.00 GHz (max) × FLOP/cycle unknown (Arm)"
