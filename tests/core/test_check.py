"""``gpu-tui check`` on recorded HGX H100 nodes, healthy and with one fault each, through the real
``pynvml`` over the simulated driver; the host's checks; and the verdict as an exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpu_tui.commands.check import report_json, report_lines
from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.check.active import active_findings
from gpu_tui.core.check.findings import (
    FAIL,
    OK,
    SKIP,
    WARN,
    Finding,
    Report,
    gpu_list,
    same_on_several_gpus,
)
from gpu_tui.core.check.health_sheet import health_section
from gpu_tui.core.check.host_checks import cpu_clock, cpu_governor, cpu_turbo, driver_and_torch
from gpu_tui.core.check.nvml_health import Fabric
from gpu_tui.core.check.run import run_check
from gpu_tui.core.devices import discover
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.json_schemas import schema
from tests import needs
from tests.conftest import SimulatedNvml
from tests.fakes.simulated_binding import environment, install_as_pynvml

HEALTHY = ("hgx_h100_8gpu_topology", "hgx_h100_8gpu_training")
NO_TORCH = Unknown("torch is not installed")


def check(
    simulated_nvml: SimulatedNvml, *fault: str, kernel: dict[str, list[int]] | None = None
) -> Report:
    library = simulated_nvml("hgx_h100_8gpu", add=(*HEALTHY, *fault))
    return run_check(
        nvml=library.binding,
        nvidia_present=lambda: True,
        kernel_log=lambda: kernel or {},
        torch_build=lambda: NO_TORCH,
    )


def failed(report: Report) -> list[tuple[int | None, str]]:
    return [(f.gpu, f.check) for f in report.findings if f.verdict == FAIL]


def test_a_healthy_node_passes_every_check_of_every_gpu(simulated_nvml: SimulatedNvml) -> None:
    report = check(simulated_nvml)
    assert report.exit_status == 0
    assert report.gpu_count == 8
    assert failed(report) == []
    per_gpu = {f.check for f in report.findings if f.gpu == 7}
    assert per_gpu >= {"pcie-link", "nvlink", "ecc", "remapped-rows", "clocks", "xid", "fabric"}
    fabric = next(f for f in report.findings if f.gpu == 7 and f.check == "fabric")
    assert fabric.reading == "registered with the NVSwitch fabric"
    assert all(f.verdict == OK for f in report.findings if f.gpu is not None)


@pytest.mark.parametrize(
    ("fault", "expected", "words"),
    [
        ("hgx_h100_8gpu_check_gen4_x8", [(3, "pcie-link")], "Gen4 x8 (should be Gen5 x16)"),
        ("hgx_h100_8gpu_check_nvlink_down", [(5, "nvlink")], "16 of 18 links up"),
        (
            "hgx_h100_8gpu_check_remap_xid79",
            [(2, "remapped-rows"), (6, "xid")],
            "XID 79: the GPU has fallen off the bus",
        ),
        ("hgx_h100_8gpu_check_thermal", [(1, "clocks"), (1, "temperature")], "thermal slowdown"),
        (
            "hgx_h100_8gpu_check_fabric_not_started",
            [(gpu, "fabric") for gpu in range(8)],
            "fabric: not started (should be completed)",
        ),
    ],
    ids=["gen4-x8", "nvlink-down", "remap-pending-and-xid-79", "thermal", "fabric-manager-down"],
)
def test_each_faulty_node_names_its_fault_on_the_right_gpu_with_a_fix(
    simulated_nvml: SimulatedNvml, fault: str, expected: list[tuple[int, str]], words: str
) -> None:
    report = check(simulated_nvml, fault)
    assert report.exit_status == 1
    assert failed(report) == expected
    lines = [line for line in report_lines(report, every=False) if line.startswith("FAIL")]
    assert any(words in line for line in lines), lines
    assert all("; fix: " in line for line in lines)


def test_an_xid_in_the_kernel_log_is_the_gpu_at_that_pci_address(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("hgx_h100_8gpu", add=HEALTHY)
    bus = library.devices[4]["pci_bus_id"]  # 00000000:9A:00.0 → the kernel's 0000:9a:00
    kernel = {bus[-12:-2].lower(): [13, 48]}
    report = check(simulated_nvml, kernel=kernel)
    (xid,) = [f for f in report.findings if f.check == "xid" and f.verdict != OK]
    assert (xid.gpu, xid.verdict) == (4, FAIL)
    assert xid.reading.startswith("XID 48: double-bit ECC error")  # the failing one, not 13
    assert "[13, 48]" in xid.reading


def test_a_lost_gpu_fails_and_one_outside_the_job_is_not_checked(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("hgx_h100_8gpu", add=HEALTHY)
    library.lose(1)
    library.no_permission.add(2)
    report = run_check(nvml=library.binding, kernel_log=lambda: {}, torch_build=lambda: NO_TORCH)
    by_gpu = {f.gpu: f for f in report.findings if f.check == "openable"}
    assert by_gpu[1].verdict == FAIL
    assert by_gpu[2].verdict == SKIP
    assert "cgroup" in by_gpu[2].why
    assert report.exit_status == 1


def test_without_nvml_a_gpu_machine_could_not_be_checked_and_a_cpu_machine_is_fine(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("h200")
    library.fail_init("DriverNotLoaded")
    gpu_server = run_check(
        nvml=library.binding, nvidia_present=lambda: True, torch_build=lambda: NO_TORCH
    )
    assert gpu_server.exit_status == 2
    assert gpu_server.could_not_check.startswith("NVML: ")
    assert report_lines(gpu_server, every=False)[0].startswith("gpu-tui check: could not check")
    # Without a device file, a driver library that is there but not loaded is still a fault.
    loaded_not = run_check(
        nvml=library.binding, nvidia_present=lambda: False, torch_build=lambda: NO_TORCH
    )
    assert loaded_not.exit_status == 2
    library.fail_init("LibraryNotFound")  # no driver at all: a machine without a GPU
    laptop = run_check(
        nvml=library.binding, nvidia_present=lambda: False, torch_build=lambda: NO_TORCH
    )
    assert laptop.exit_status == 0
    assert report_lines(laptop, every=False)[0].startswith(
        "gpu-tui check: no NVIDIA GPU here; the host is fine"
    )
    (skipped,) = [f for f in laptop.findings if f.check == "gpus"]
    assert skipped.verdict == SKIP
    assert skipped.why.startswith("the GPU checks did not run: ")


def test_torch_built_for_a_newer_cuda_than_the_driver_fails(simulated_nvml: SimulatedNvml) -> None:
    inventory = discover(nvml=simulated_nvml("hgx_h100_8gpu").binding)  # driver: CUDA 12.7
    assert driver_and_torch(inventory, "12.8").verdict == FAIL
    assert driver_and_torch(inventory, "12.4").verdict == OK
    assert driver_and_torch(inventory, None).verdict == WARN  # a CPU build on a GPU node


def test_cpu_governor_and_turbo_from_sysfs(tmp_path: Path) -> None:
    for core, governor in enumerate(["performance", "powersave", "powersave"]):
        folder = tmp_path / f"cpu{core}" / "cpufreq"
        folder.mkdir(parents=True)
        (folder / "scaling_governor").write_text(governor + "\n")
    found = cpu_governor(tmp_path)
    assert (found.verdict, found.reading) == (WARN, "powersave on 2 of 3 cores")
    assert cpu_turbo(tmp_path).verdict == SKIP
    (tmp_path / "intel_pstate").mkdir()
    (tmp_path / "intel_pstate" / "no_turbo").write_text("1\n")
    assert cpu_turbo(tmp_path).verdict == WARN
    (tmp_path / "intel_pstate" / "no_turbo").write_text("0\n")
    assert cpu_turbo(tmp_path).verdict == OK
    assert cpu_governor(tmp_path / "missing").verdict == SKIP


def test_the_json_report_is_the_findings_under_the_shipped_schema(
    simulated_nvml: SimulatedNvml,
) -> None:
    import jsonschema

    report = check(simulated_nvml, "hgx_h100_8gpu_check_thermal")
    document = report_json(report, 1_800_000_000.0)
    jsonschema.validate(document, schema("check"))
    assert (document["verdict"], document["exit_status"]) == ("failed", 1)
    assert document["counts"]["fail"] == 2
    assert len(document["findings"]) == len(report.findings)


def test_the_command_exits_1_and_names_the_fault_on_a_faulty_node(tmp_path: Path) -> None:
    shim = tmp_path / "shim"
    install_as_pynvml(shim)
    env = environment(shim, reading="hgx_h100_8gpu", add=[*HEALTHY, "hgx_h100_8gpu_check_gen4_x8"])
    done = subprocess.run(
        [sys.executable, "-m", "gpu_tui", "check"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("gpu-tui check: 1 check failed (8 GPUs; checks: 1 failed")
    assert "FAIL gpu3 pcie-link: Gen4 x8 (should be Gen5 x16)" in done.stdout
    assert done.stderr == ""
    as_json = subprocess.run(
        [sys.executable, "-m", "gpu_tui", "check", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["counts"]["fail"] == 1


def test_a_finding_is_one_line_with_what_it_should_be_and_the_fix() -> None:
    finding = Finding("pcie-link", FAIL, "Gen4 x8", "Gen5 x16", "slower copies", "reseat it", gpu=3)
    assert finding.line() == (
        "FAIL gpu3 pcie-link: Gen4 x8 (should be Gen5 x16) — slower copies; fix: reseat it"
    )
    assert Finding("mig", OK, "off", gpu=0).line() == "OK   gpu0 mig: off"


def result(device: str, value: float, percent: float | None, **more: Any) -> BenchResult:
    fields: dict[str, Any] = {
        "benchmark": "gemm",
        "variant": "mm",
        "dtype": "bf16",
        "params": {"m": 8192, "n": 8192, "k": 8192},
        "median_seconds": 0.01,
        "p20_seconds": 0.01,
        "p80_seconds": 0.01,
        "repeats": 10,
        "unit": "GFLOP/s",
    } | more
    return BenchResult(device=device, value=value, percent_of_peak=percent, **fields)


def run_of(*results: BenchResult, skipped: list[dict[str, Any]] | None = None) -> RunDocument:
    document = RunDocument("quick", 0.3, "2026-12-07T00:00:00+0000", plan={})
    document.results = list(results)
    document.skipped = skipped or []
    document.environment = {
        "telemetry": {"devices": {f"cuda:{i}": {"nvml_index": 7 - i} for i in range(4)}}
    }
    return document


def test_a_gpu_ten_percent_below_its_siblings_fails_even_near_its_peak() -> None:
    document = run_of(
        result("cuda:0", 700_000, 70.8),
        result("cuda:1", 705_000, 71.3),
        result("cuda:2", 600_000, 60.7),  # 14 % below the others: an outlier
        result("cuda:3", 698_000, 70.6),
        result("cuda:2", 900_000, None, dtype="fp32"),  # the bf16 figure stands for a GPU
    )
    findings = active_findings(document)
    assert [(f.gpu, f.check) for f in findings if f.verdict == FAIL] == [(5, "gemm")]
    (outlier,) = [f for f in findings if f.verdict == FAIL]
    assert outlier.why.startswith("14 % below the median of the other GPUs")
    assert outlier.reading == "600,000 GFLOP/s bf16, 61 % of peak"


def test_above_the_peak_says_an_assumption_is_wrong_and_throttling_is_named() -> None:
    throttled = {"throttle_reasons": ["power cap"]}
    findings = active_findings(
        run_of(
            result("cpu", 300, 128.0, dtype="fp32"),
            result("cuda:0", 200_000, 20.0, telemetry=throttled),
            skipped=[{"benchmark": "transfer", "device": "gpu", "reason": "no pinned memory"}],
        )
    )
    by_check = {f.check: f for f in findings}
    assert by_check["cpu-gemm"].verdict == WARN
    assert "one of its assumptions (the clock, or the work per cycle)" in by_check["cpu-gemm"].why
    assert by_check["gemm"].verdict == WARN
    assert by_check["gemm"].reading.endswith("(throttled while measured: power cap)")
    assert by_check["gpu-measurements"].why.endswith("no pinned memory")


def test_check_quick_measures_the_cpu_here_and_says_why_no_gpu_was_measured() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gpu_tui", "check", "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "measuring" in done.stderr
    document = json.loads(done.stdout)
    import jsonschema

    jsonschema.validate(document, schema("check"))
    checks = {f["check"]: f for f in document["findings"]}
    assert checks["cpu-gemm"]["reading"].endswith("% of peak")
    assert checks["gpu-measurements"]["verdict"] == "skip"
    # the cause beside "not checked", not a reading that says the machine has no GPU
    assert checks["gpu-measurements"]["reading"] == "PyTorch sees no GPU"


def test_torch_s_cuda_build_is_read_without_importing_torch() -> None:
    """The TUI's health check runs in the TUI's process, which must not pay for torch."""
    probe = "from gpu_tui.core.check.run import torch_cuda; import sys; "
    probe += "print(repr(torch_cuda()), 'torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    torch = needs.module("torch")  # CI installs the CPU build: no CUDA
    assert done.stdout.split() == [repr(torch.version.cuda), "False"], done.stderr


def test_cores_busy_well_below_their_reported_clock_are_a_warning() -> None:
    from gpu_tui.core.devices.cpu import build_cpu_info
    from tests.core.test_cpu import recorded

    held_back = cpu_clock(build_cpu_info(recorded("this-vm-zen4", sustained_mhz=1800.0)))
    assert held_back.verdict == WARN
    assert held_back.reading == "1.80 GHz with every core busy (the CPU reports 2.60 GHz)"
    assert "thermal or power limit" in held_back.why
    boosting = cpu_clock(build_cpu_info(recorded("this-vm-zen4", sustained_mhz=3690.0)))
    assert boosting.verdict == OK
    unmeasured = cpu_clock(build_cpu_info(recorded("this-vm-zen4")))
    assert unmeasured.verdict == SKIP
    assert unmeasured.why.startswith("not measured")


def test_a_mig_mode_change_waiting_for_a_reset_is_a_warning(simulated_nvml: SimulatedNvml) -> None:
    report = check(simulated_nvml, "hgx_h100_8gpu_check_mig_pending")
    (pending,) = [f for f in report.findings if f.check == "mig" and f.verdict != OK]
    assert (pending.gpu, pending.verdict) == (5, WARN)
    assert pending.reading == "off; on after the next GPU reset"
    assert "nvidia-smi -r" in pending.fix
    assert report.exit_status == 0  # a warning: the GPU works, in the mode it had


def v100_check(simulated_nvml: SimulatedNvml, *fault: str) -> Report:
    library = simulated_nvml("v100_sxm2_8gpu", add=fault)
    return run_check(
        nvml=library.binding,
        nvidia_present=lambda: True,
        kernel_log=lambda: {},
        torch_build=lambda: NO_TORCH,
    )


def test_retired_pages_on_a_v100_pending_then_past_dcgm_s_limit(
    simulated_nvml: SimulatedNvml,
) -> None:
    healthy = {f.gpu: f for f in v100_check(simulated_nvml).findings if f.check == "retired-pages"}
    assert healthy[0].reading == "0 retired (0 for double-bit errors)"
    assert {f.verdict for f in healthy.values()} == {OK}
    assert len(healthy) == 8
    pending = v100_check(simulated_nvml, "v100_sxm2_8gpu_check_retired_pages")
    (page,) = [f for f in pending.findings if f.check == "retired-pages" and f.verdict != OK]
    assert (page.gpu, page.verdict) == (2, WARN)
    assert page.reading == "3 retired (1 for double-bit errors); one waits for a reset"
    worn = v100_check(simulated_nvml, "v100_sxm2_8gpu_check_worn_memory")
    assert failed(worn) == [(6, "retired-pages")]
    assert worn.exit_status == 1


def test_an_h100_says_it_remaps_rows_instead_of_retiring_pages(
    simulated_nvml: SimulatedNvml,
) -> None:
    report = check(simulated_nvml)
    pages = next(f for f in report.findings if f.check == "retired-pages" and f.gpu == 0)
    assert pages.verdict == OK
    assert pages.reading.startswith("not reported (the A100 and newer remap rows instead")


@pytest.mark.parametrize("branch", ["r535", "r550"])
def test_the_fabric_state_is_read_on_r535_s_call_and_r550_s_versioned_one(
    simulated_nvml: SimulatedNvml, branch: str
) -> None:
    from gpu_tui.core.check.nvml_health import device_health

    library = simulated_nvml("hgx_h100_8gpu", branch, add=HEALTHY)
    health = device_health([0, 7], library.binding)
    assert health[7].fabric == Fabric("completed", "Success")
    versioned = library.called("nvmlDeviceGetGpuFabricInfoV")
    assert versioned == (2 if branch == "r550" else 0)


def test_the_same_finding_on_several_gpus_is_one_line_naming_them(
    simulated_nvml: SimulatedNvml,
) -> None:
    report = check(simulated_nvml, "hgx_h100_8gpu_check_fabric_not_started")
    fabric = [line for line in report_lines(report, every=False) if " fabric: " in line]
    assert len(fabric) == 1
    assert fabric[0].startswith("FAIL gpu0-7 fabric: not started")
    assert [gpu_list(gpus) for gpus in ([1, 4], [0, 1, 2, 5], [3])] == ["1,4", "0-2,5", "3"]


def test_the_lines_of_one_check_stay_together_when_their_readings_differ() -> None:
    findings = [
        Finding("temperature", OK, "63 °C", gpu=0),
        Finding("pcie-link", OK, "Gen5 x16", gpu=0),
        Finding("temperature", OK, "70 °C", gpu=1),
        Finding("pcie-link", OK, "Gen5 x16", gpu=1),
        Finding("temperature", OK, "63 °C", gpu=2),
    ]
    grouped = [(f.check, f.reading, gpus) for f, gpus in same_on_several_gpus(findings)]
    assert grouped == [
        ("temperature", "63 °C", [0, 2]),
        ("temperature", "70 °C", [1]),
        ("pcie-link", "Gen5 x16", [0, 1]),
    ]


def test_a_finding_that_wraps_goes_on_under_its_text_not_its_status_word(tmp_path: Path) -> None:
    shim = tmp_path / "shim"
    install_as_pynvml(shim)
    env = environment(shim, faults=[["fail_init", "LibraryNotFound"]])
    env.update(COLUMNS="80", GPU_TUI_DATA_DIR=str(tmp_path / "data"))
    done = subprocess.run(
        [sys.executable, "-m", "gpu_tui", "check", "--demo"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("SKIP gpus: "))
    continued = lines[start + 1 : start + 3]  # the driver library's explanation is long
    assert continued
    assert all(line.startswith("     ") and line[5] != " " for line in continued), lines
    assert max(map(len, lines[1:])) <= 80


def test_the_health_sheet_puts_every_failure_above_the_passes_of_the_same_check() -> None:
    clocks = [Finding("clocks", OK, "running free", gpu=gpu) for gpu in (0, 2, 3, 4, 5, 6, 7)]
    findings = (
        *clocks[:1],
        Finding("clocks", FAIL, "held back: thermal", gpu=1),
        *clocks[1:],
        Finding("temperature", FAIL, "89 °C", gpu=1),
        Finding("cpu-governor", WARN, "powersave"),
    )
    section = health_section(Report(findings, gpu_count=8))
    assert [row.label for row in section.rows] == [
        "Verdict",
        "gpu1 clocks",
        "gpu1 temperature",
        "cpu-governor",
        "gpu0,2-7 clocks",
    ]
