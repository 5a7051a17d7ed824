"""The spec sheet, the comparison bars and the inventory JSON, from a fixed inventory."""

from __future__ import annotations

import json

from gpu_tui.core.compare import compare_accelerator, compare_cpu
from gpu_tui.core.inventory_json import inventory_json
from gpu_tui.core.spec_sheet import simd_summary, spec_sheet
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
    for comparison in compare_accelerator(gpu):
        assert sum(bar.this for bar in comparison.bars) == 1
        values = [bar.value or 0.0 for bar in comparison.bars]
        assert values == sorted(values, reverse=True)


def test_inventory_json_has_the_documented_fields() -> None:
    document = json.loads(json.dumps(inventory_json(fixed_inventory(demo=True))))
    assert document["schema_version"] == 1
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
    assert set(gpu["peaks"]) >= {"fp32_tflops", "bf16_tflops", "memory_bandwidth_gbps"}
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
