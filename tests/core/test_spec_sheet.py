"""The spec sheet, the comparison bars and the inventory JSON, from fixed and recorded GPUs (the
recorded ones read through nvidia-ml-py's own ``pynvml`` over the simulated driver)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from gpu_tui.core.devices.compare import compare_accelerator, compare_cpu
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.inventory_json import inventory_json
from gpu_tui.core.devices.model import Accelerator
from gpu_tui.core.devices.nvidia import discover_nvidia
from gpu_tui.core.devices.peaks import gpu_peaks
from gpu_tui.core.devices.simulated import simulated_accelerator
from gpu_tui.core.devices.spec_rows import SpecRow
from gpu_tui.core.devices.spec_sheet import accelerator_section, simd_summary, spec_sheet
from tests.conftest import SimulatedNvml
from tests.fakes import simulated_binding
from tests.ui.conftest import fixed_inventory


def test_sections_come_in_order_and_label_the_simulated_gpu() -> None:
    sections = spec_sheet(fixed_inventory(demo=True))
    titles = [section.title for section in sections]
    assert titles[0] == "CPU · AMD EPYC"
    assert titles[1] == "Memory"
    assert titles[2].startswith("GPU 0 · ")
    assert "SIMULATED" in titles[2]
    assert sections[2].label == "GPU 0 · H100 80GB HBM3"
    assert sections[2].simulated
    assert titles[3] == "NVIDIA driver (NVML)"
    assert sections[3].problem


def test_unknown_fields_say_why() -> None:
    cpu = spec_sheet(fixed_inventory(demo=False))[0]
    max_clock = next(row for row in cpu.rows if row.label == "Max clock")
    assert max_clock.unknown
    assert max_clock.value == "unknown"
    assert "boost clock" in max_clock.note


def test_simd_summary_groups_flags() -> None:
    assert simd_summary(("avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni")) == (
        "AVX-512 +BF16 +VNNI · AVX2+FMA"
    )
    assert simd_summary(("amx_tile", "avx512f", "avx512_fp16")) == "AMX · AVX-512 +FP16"
    assert simd_summary(("asimd", "sve", "sve2", "bf16")) == "NEON · SVE2 · BF16"
    assert simd_summary(()) == "none found"


def test_cpu_comparison_puts_the_cpu_last_on_fp32() -> None:
    inventory = fixed_inventory(demo=False)
    fp32 = compare_cpu(inventory.cpu)[0]
    assert fp32.bars[-1].this  # a 2-core VM is the smallest bar
    assert fp32.bars[-1].value is not None
    assert fp32.bars[-1].value * 1000 == inventory.cpu.peak.gflops


def test_accelerator_comparison_has_this_device_once_per_metric() -> None:
    gpu = fixed_inventory(demo=True).accelerators[0]
    comparisons = compare_accelerator(gpu)
    assert comparisons, "there must be metrics to compare"
    for comparison in comparisons:
        assert sum(bar.this for bar in comparison.bars) == 1
        values = [bar.value or 0.0 for bar in comparison.bars]
        assert values == sorted(values, reverse=True)


def test_fp8_is_compared_only_among_devices_that_have_it() -> None:
    h100 = fixed_inventory(demo=True).accelerators[0]
    fp8 = next(c for c in compare_accelerator(h100) if c.metric == "Dense FP8")
    names = [bar.label for bar in fp8.bars]
    assert "NVIDIA B200 (HGX)" in names
    assert "NVIDIA A100 80GB SXM" not in names  # Ampere has no FP8 Tensor Cores
    assert all(bar.value is not None for bar in fp8.bars)
    no_fp8 = replace(h100, peaks=replace(h100.peaks, fp8_tflops=Unknown("not an FP8 GPU")))
    metrics = [c.metric for c in compare_accelerator(no_fp8)]
    assert metrics == ["Dense BF16", "Memory bandwidth", "Memory"]


def test_inventory_json_has_the_documented_fields() -> None:
    document = json.loads(json.dumps(inventory_json(fixed_inventory(demo=True))))
    assert document["schema_version"] == 2
    cpu = document["cpu"]
    assert cpu["model"] == "AMD EPYC"
    assert cpu["physical_cores"] == 2
    assert cpu["logical_cores"] == 2
    assert cpu["peak_fp32_gflops"] > 100
    assert cpu["max_mhz"] is None
    assert "boost clock" in cpu["unknown"]["max_mhz"]
    assert document["memory"]["total_bytes"] == 24 * 1024**3
    (gpu,) = document["accelerators"]
    assert gpu["simulated"] is True
    assert "SIMULATED" in gpu["name"]
    assert gpu["memory_total_bytes"] > 0
    assert set(gpu["peaks"]) >= {"fp32_tflops", "bf16_tflops", "memory_bandwidth_gb_per_second"}
    assert document["backends"]["nvml"]["available"] is False
    assert "NVML" in document["backends"]["nvml"]["reason"]


def test_gpu_peak_rows_show_datasheet_and_arithmetic() -> None:
    gpu = spec_sheet(fixed_inventory(demo=True))[2]
    bf16 = next(row for row in gpu.rows if row.label == "BF16 peak (dense)")
    assert bf16.value == "989.4 TFLOP/s"
    assert "datasheet 989.4 TFLOP/s" in bf16.note
    assert "132 SMs" in bf16.note
    bandwidth = next(row for row in gpu.rows if row.label == "Memory bandwidth")
    assert "5120" in bandwidth.note  # bus width in the derivation


H100_DATASHEET = "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"


def another_board(simulated_nvml: SimulatedNvml, reading: str, device_id: str) -> Accelerator:
    """A recorded GPU whose PCI device ID is changed to a board gpu-tui's table does not rate."""
    library = simulated_nvml(reading)
    library.devices[0]["pci_device_id"] = device_id
    gpus, _ = discover_nvidia(library.binding)
    return gpus[0]


def rows_of(gpu: Accelerator) -> dict[str, SpecRow]:
    return {spec_row.label: spec_row for spec_row in accelerator_section(gpu).rows}


def test_peak_clock_rows_say_the_peaks_use_nvidias_rated_clocks_and_cite_the_source(
    simulated_nvml: SimulatedNvml,
) -> None:
    gpus, _ = discover_nvidia(simulated_nvml("hgx_h100_8gpu").binding)
    rows = rows_of(gpus[0])
    assert rows["FP32 peak clock"].value == "1.98 GHz, NVIDIA-rated"
    tensor = rows["Tensor peak clock"]
    assert tensor.value == "1.83 GHz, NVIDIA-rated"
    assert tensor.note.startswith(
        f"H100 SXM5 80GB: NVIDIA H100 Tensor Core GPU datasheet, {H100_DATASHEET} · "
    )
    assert tensor.note.endswith(
        "1830 MHz is the clock that reproduces NVIDIA's dense figure "
        "(132 SMs × 1.83 GHz × 4096 = 989.4 BF16)"
    )
    assert rows["FP32 peak clock"].note.endswith("(132 SMs × 1.98 GHz × 256 = 66.9 FP32)")
    labels = list(rows)
    assert labels.index("FP32 peak clock") == labels.index("FP32 peak") - 1
    assert labels.index("Tensor peak clock") == labels.index("TF32 peak (dense)") - 1
    assert rows["BF16 peak (dense)"].value == "989.4 TFLOP/s"
    assert "NVIDIA's rated tensor clock for H100 SXM5 80GB" in rows["BF16 peak (dense)"].note


def test_peaks_of_a_gpu_without_a_rating_read_at_most_and_say_why(
    simulated_nvml: SimulatedNvml,
) -> None:
    # pci.ids: 0x233D is "GH100 [H100 96GB]", not the H200 board NVIDIA's H200 figures describe.
    rows = rows_of(another_board(simulated_nvml, "h200", "0x233D10DE"))
    assert rows["BF16 peak (dense)"].value == "at most 1,070.5 TFLOP/s"
    assert rows["FP32 peak"].value == "at most 66.9 TFLOP/s"
    assert rows["BF16 peak (dense)"].note.endswith(
        "upper bound: 132 SMs × 1.98 GHz (the maximum clock NVML reports; gpu-tui's table rates "
        "'NVIDIA H200' only with PCI device ID 0x2335; NVML reports 0x233d) × 4096 FLOP/clk/SM "
        "(Hopper professional, tensor, FP32 accumulate) = 1,070.5 TFLOP/s"
    )
    clock = rows["Tensor peak clock"]
    assert clock.value == "1.98 GHz, NVML max"
    assert clock.note == (
        "gpu-tui's table rates 'NVIDIA H200' only with PCI device ID 0x2335; NVML reports "
        "0x233d · so each peak is an upper bound: the real one may be lower, and a % of it "
        "understates how close a run came"
    )
    assert rows["Memory bandwidth"].value == "4.92 TB/s"  # bandwidth is not clock-rated


def test_a_published_figure_and_a_weak_source_are_named_as_such() -> None:
    peaks = gpu_peaks(
        vendor="NVIDIA",
        name="NVIDIA H20",
        compute_capability="9.0",
        sm_count=78,
        max_sm_clock_mhz=1980,
        max_memory_clock_mhz=Unknown("not read"),
        memory_bus_width_bits=Unknown("not read"),
        pci_device_id=0x2329,
    )
    gpu = replace(simulated_accelerator(0), name="NVIDIA H20", peaks=peaks, datasheet=None)
    rows = rows_of(gpu)
    tensor = rows["Tensor peak clock"]
    assert tensor.value == "as published (weak source)"
    assert "H20: Tom's Hardware" in tensor.note
    assert "(secondary source), https://www.tomshardware.com/" in tensor.note
    assert rows["FP32 peak clock"].value == "1.98 GHz, NVML max"
    assert rows["FP32 peak clock"].note.startswith(
        "gpu-tui's table has no rated FP32 clock for H20 · "
    )
    assert rows["BF16 peak (dense)"].value == "148.0 TFLOP/s"
    assert rows["FP32 peak"].value == "at most 39.5 TFLOP/s"


def test_no_peak_clock_rows_when_no_compute_peak_is_known() -> None:
    gpu = replace(
        simulated_accelerator(0),
        peaks=gpu_peaks(
            vendor="NVIDIA",
            name="Tesla P100-SXM2-16GB",
            compute_capability="6.0",
            sm_count=56,
            max_sm_clock_mhz=1480,
            max_memory_clock_mhz=715,
            memory_bus_width_bits=4096,
        ),
    )
    labels = list(rows_of(gpu))
    assert "FP32 peak clock" not in labels
    assert "Tensor peak clock" not in labels


def test_inventory_json_says_which_clock_each_peak_used(simulated_nvml: SimulatedNvml) -> None:
    rated, _ = discover_nvidia(simulated_nvml("hgx_h100_8gpu").binding)
    unrated = another_board(simulated_nvml, "h200", "0x233D10DE")
    inventory = replace(fixed_inventory(demo=False), accelerators=(rated[0], unrated))
    document = json.loads(json.dumps(inventory_json(inventory)))
    first, second = document["accelerators"]
    assert first["peaks"]["bf16_tflops"] == pytest.approx(
        989.4, rel=1e-3
    )  # fields kept as they were
    assert first["peaks"]["clocks"]["bf16_tflops"] == {
        "clock_basis": "rated",
        "clock_mhz": 1830,
        "upper_bound": False,
        "rated_sku": "H100 SXM5 80GB",
        "source_url": H100_DATASHEET,
        "source_title": "NVIDIA H100 Tensor Core GPU datasheet",
        "source_primary": True,
        "clock_note": (
            "1830 MHz is the clock that reproduces NVIDIA's dense figure (132 SMs × 1.83 GHz × "
            "4096 = 989.4 BF16)"
        ),
    }
    assert first["peaks"]["clocks"]["fp32_tflops"]["clock_mhz"] == 1980
    clock = second["peaks"]["clocks"]["bf16_tflops"]
    assert (clock["clock_basis"], clock["clock_mhz"], clock["upper_bound"]) == (
        "nvml_max",
        1980,
        True,
    )
    assert clock["source_url"] is None
    assert set(second["peaks"]["clocks"]) == {
        "fp32_tflops",
        "tf32_tflops",
        "fp16_tflops",
        "bf16_tflops",
        "fp8_tflops",
    }


def test_info_json_from_the_command_line_carries_the_clock_basis(tmp_path: Path) -> None:
    shim = simulated_binding.install_as_pynvml(tmp_path / "shim").parent
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GPU_TUI_", "TEXTUAL"))}
    env = simulated_binding.environment(shim, reading="geforce_rtx4090", base=clean)
    env["GPU_TUI_DATA_DIR"] = str(tmp_path / "data")
    result = subprocess.run(
        [sys.executable, "-m", "gpu_tui", "info", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    (gpu,) = json.loads(result.stdout)["accelerators"]
    clocks = gpu["peaks"]["clocks"]
    assert {key: (c["clock_basis"], c["clock_mhz"]) for key, c in clocks.items()} == dict.fromkeys(
        ("fp32_tflops", "tf32_tflops", "fp16_tflops", "bf16_tflops", "fp8_tflops"),
        ("rated", 2520),
    )
    assert gpu["max_sm_clock_mhz"] == 3105  # NVML's maximum, which the peaks do not use
