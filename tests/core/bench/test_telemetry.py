"""GPU telemetry during bench runs ("GPU telemetry while timed"): windows, warnings, NVML
matching, the runner. NVML is nvidia-ml-py's own ``pynvml`` over the simulated driver."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_tui.core.bench import messages as m
from gpu_tui.core.bench.gpu_match import identities, match
from gpu_tui.core.bench.runner import BenchRunner
from gpu_tui.core.bench.suites import build_plan
from gpu_tui.core.bench.telemetry import Reading, Telemetry, summarise, warning
from tests.conftest import SimulatedNvml
from tests.fakes.scripted_worker import (
    H200_UUID,
    cuda_device,
    environment,
    gemm_result,
    install,
)
from tests.fakes.simulated_driver import SimulatedLibrary

H200_BUS = "00000000:03:00.0"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


# --- readings and windows ---------------------------------------------------------------------
def test_the_live_line_names_clock_power_temperature_and_only_real_throttling() -> None:
    busy = Reading(0.0, 1980, 3201, 612.4, 700, 64, ("power cap",))
    assert busy.line() == "SM 1980 MHz · 612/700 W · 64 °C · power cap"
    idle = Reading(0.0, 345, None, 74.6, None, 28, ("idle",))
    assert idle.line() == "SM 345 MHz · 75 W · 28 °C"  # idle is not throttling
    assert Reading(0.0, lost=True).line().startswith("GPU lost")


def test_a_summary_covers_only_its_window_with_exact_figures() -> None:
    readings = [
        Reading(0.9, 345, 3199, 75, 700, 30, ("idle",)),  # before the window: left out
        Reading(1.0, 1980, 3201, 600, 700, 60),
        Reading(1.5, 1755, 3201, 700, 700, 66, ("power cap",)),
        Reading(2.0, 1890, 3201, 650, 700, 64, ("power cap", "thermal slowdown")),
        Reading(2.1, 345, 3199, 80, 700, 70, ("idle",)),  # after it
    ]
    summary = summarise(readings, 1.0, 2.0)
    assert summary == {
        "samples": 3,
        "window_seconds": 1.0,
        "sm_clock_mhz": {"min": 1755, "median": 1890},
        "memory_clock_mhz": {"min": 3201, "median": 3201},
        "power_watts": {"max": 700, "limit": 700},
        "temperature_c": {"max": 66},
        "throttle_reasons": ["power cap", "thermal slowdown"],
        "lost": False,
    }
    assert warning(summary) == (
        "throttled: power cap, thermal slowdown (SM clock down to 1755 MHz, up to 700/700 W, "
        "66 °C): the figure is held back"
    )
    assert summarise(readings, 3.0, 4.0) is None


def test_idle_alone_is_no_warning_and_a_lost_gpu_is() -> None:
    calm = summarise([Reading(1.0, 1980, None, 500, 700, 50, ("idle",))], 0, 2)
    assert calm is not None
    assert calm["throttle_reasons"] == []
    assert warning(calm) is None
    lost = summarise([Reading(1.0, 1980), Reading(1.5, lost=True)], 0, 2)
    assert lost is not None
    assert lost["lost"] is True
    assert lost["sm_clock_mhz"] == {"min": 1980, "median": 1980}
    assert "GPU lost" in str(warning(lost))


# --- which NVML GPU is cuda:N -----------------------------------------------------------------
def gpus(*devices: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"devices": [{"device": "cpu"}, *devices], **extra}


KNOWN = [("aaaa-0", (0, 0x03, 0)), ("bbbb-1", (0, 0x41, 0)), ("cccc-2", (0, 0x81, 0))]


@pytest.mark.parametrize(
    ("environment_record", "index", "how"),
    [
        (gpus({"device": "cuda:0", "uuid": "GPU-BBBB-1"}), 1, "uuid"),
        (gpus({"device": "cuda:0", "pci_bus_id": "0000:81:00.0"}), 2, "pci_bus_id"),
        (
            gpus({"device": "cuda:1"}, cuda_visible_devices="GPU-cccc,GPU-aaaa"),
            0,
            "CUDA_VISIBLE_DEVICES (UUID)",
        ),
        (
            gpus({"device": "cuda:1"}, cuda_visible_devices="2,1", cuda_device_order="PCI_BUS_ID"),
            1,
            "CUDA_VISIBLE_DEVICES with CUDA_DEVICE_ORDER=PCI_BUS_ID",
        ),
        (
            gpus({"device": "cuda:2"}, cuda_device_order="PCI_BUS_ID"),
            2,
            "CUDA_DEVICE_ORDER=PCI_BUS_ID",
        ),
    ],
)
def test_cuda_devices_are_matched_to_nvml_and_say_how(
    environment_record: dict[str, Any], index: int, how: str
) -> None:
    (record,) = match(environment_record, KNOWN).values()
    assert record == {"nvml_index": index, "matched_by": how}


def test_an_index_alone_is_not_trusted() -> None:
    # CUDA's default order is fastest first, not NVML's PCI order: no telemetry rather than a
    # wrong GPU's readings
    found = match(gpus({"device": "cuda:1"}, cuda_visible_devices="2,1"), KNOWN)
    assert found["cuda:1"]["nvml_index"] is None
    assert "no telemetry" in found["cuda:1"]["reason"]
    assert match(gpus(), KNOWN) == {}


def test_identities_come_from_the_recorded_h200(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("h200")
    library.binding.nvmlInit()
    assert identities(library.binding) == [(H200_UUID, (0, 3, 0))]


def test_telemetry_opens_nothing_for_a_cpu_only_run_and_explains_a_missing_nvml(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("h200")
    assert Telemetry.open(gpus(), library.binding) == (None, {})
    assert library.calls == []  # NVML not even initialised
    library.fail_init("DriverNotLoaded")
    telemetry, records = Telemetry.open(gpus(cuda_device()), library.binding)
    assert telemetry is None
    assert records["cuda:0"]["nvml_index"] is None
    assert "driver" in records["cuda:0"]["reason"].lower()


# --- the runner with a scripted GPU worker and the recorded H200 -------------------------------
def scripted_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    script: list[dict[str, Any]],
    library: SimulatedLibrary,
    on_result: Any = None,
) -> tuple[list[m.Message], BenchRunner]:
    python = install(tmp_path, script, monkeypatch)
    plan = build_plan("quick", only=["gemm"])
    runner = BenchRunner(plan, python=python, nvml=library.binding)
    runner.start()
    got: list[m.Message] = []
    for message in runner.messages():
        got.append(message)
        if isinstance(message, m.ResultReady) and on_result is not None:
            on_result(sum(isinstance(g, m.ResultReady) for g in got))
    return got, runner


GPU_RUN = [
    environment({"device": "cpu"}, cuda_device()),
    {"type": "progress", "index": 0, "total": 1, "benchmark": "gemm", "device": "cuda:0"},
    gemm_result("cuda:0", 8192, 1.5e-3),
    gemm_result("cuda:0", 4096, 2.0e-4, variant="mm-cold"),
    {"type": "done", "cancelled": False},
]


def test_results_carry_readings_and_a_power_cap_mid_run_is_flagged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, simulated_nvml: SimulatedNvml
) -> None:
    library = simulated_nvml("h200")
    library.set_reading(
        0, sm_clock_mhz=1980, power_watts=612, temperature_c=64, clocks_event_reasons=0
    )

    def cap(count: int) -> None:
        if count == 1:  # after the first result: the board hits its power limit
            library.set_reading(0, sm_clock_mhz=1755, power_watts=700, clocks_event_reasons=0x4)

    got, runner = scripted_run(tmp_path, monkeypatch, GPU_RUN, library, cap)
    finished = got[-1]
    assert isinstance(finished, m.Finished)
    assert finished.status == "completed", finished.document.errors
    first, second = finished.document.results
    assert first.telemetry is not None
    assert first.telemetry["sm_clock_mhz"] == {"min": 1980, "median": 1980}
    assert first.telemetry["power_watts"] == {"max": 612, "limit": 700}
    assert first.telemetry["temperature_c"] == {"max": 64}
    assert first.telemetry["throttle_reasons"] == []
    assert not any("throttled" in w for w in first.warnings)
    assert second.telemetry is not None
    assert second.telemetry["throttle_reasons"] == ["power cap"]
    assert second.telemetry["sm_clock_mhz"]["min"] == 1755
    assert any(w.startswith("throttled: power cap") for w in second.warnings)
    assert second.cache == "cold"
    record = (finished.document.environment or {})["telemetry"]["devices"]["cuda:0"]
    assert record["nvml_index"] == 0
    assert record["matched_by"] == "uuid"
    assert record["before"]["sm_clock_mhz"] == 1980
    assert record["after"]["throttle_reasons"] == ["power cap"]
    assert runner.saved_path is not None
    assert '"throttle_reasons"' in runner.saved_path.read_text()  # saved with the run


def test_a_gpu_lost_mid_run_costs_its_readings_not_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, simulated_nvml: SimulatedNvml
) -> None:
    library = simulated_nvml("h200")
    got, _ = scripted_run(
        tmp_path, monkeypatch, GPU_RUN, library, lambda count: count == 1 and library.lose(0)
    )
    finished = got[-1]
    assert isinstance(finished, m.Finished)
    assert finished.status == "completed"
    assert not finished.document.errors
    first, second = finished.document.results
    assert first.telemetry is not None
    assert not first.telemetry["lost"]
    assert second.telemetry is not None
    assert second.telemetry["lost"] is True
    assert any("GPU lost" in w for w in second.warnings)
    record = (finished.document.environment or {})["telemetry"]["devices"]["cuda:0"]
    assert record["after"]["lost"] is True


def test_without_nvml_a_gpu_run_has_no_telemetry_and_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, simulated_nvml: SimulatedNvml
) -> None:
    library = simulated_nvml("h200")
    library.fail_init("LibraryNotFound")
    got, _ = scripted_run(tmp_path, monkeypatch, GPU_RUN, library)
    finished = got[-1]
    assert isinstance(finished, m.Finished)
    assert finished.status == "completed"
    assert [r.telemetry for r in finished.document.results] == [None, None]
    assert not any(isinstance(g, m.Telemetry) for g in got)
    record = (finished.document.environment or {})["telemetry"]["devices"]["cuda:0"]
    assert record["nvml_index"] is None


def test_live_readings_arrive_while_a_gpu_measurement_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, simulated_nvml: SimulatedNvml
) -> None:
    library = simulated_nvml("h200")
    library.set_reading(
        0, sm_clock_mhz=1980, power_watts=612, temperature_c=64, clocks_event_reasons=4
    )
    release = tmp_path / "release"
    script = [*GPU_RUN[:2], {"wait_file": str(release)}, *GPU_RUN[2:]]
    python = install(tmp_path, script, monkeypatch)
    plan = build_plan("quick", only=["gemm"])
    runner = BenchRunner(plan, python=python, nvml=library.binding)
    runner.start()
    lines = []
    for message in runner.messages():
        if isinstance(message, m.Telemetry):
            shown = message.line()
            assert shown is not None
            lines.append(shown[0])
            release.touch()  # the worker goes on only once a live reading came through
    assert lines
    assert lines[0] == "SM 1980 MHz · 612/700 W · 64 °C · power cap"


def test_a_cpu_run_opens_no_nvml_and_keeps_hot_rows_only(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("h200")
    overrides = {"gemm": {"cpu": {"dtypes": {"fp32": [32]}, "cold": {"bf16": [64]}}}}
    plan = build_plan(
        "quick", only=["gemm"], devices=["cpu"], budget_seconds=0.02, overrides=overrides
    )
    runner = BenchRunner(plan, nvml=library.binding)
    runner.start()
    got = list(runner.messages())
    finished = got[-1]
    assert isinstance(finished, m.Finished)
    assert finished.status == "completed", finished.document.errors
    assert library.calls == []
    assert [(r.variant, r.cache, r.telemetry) for r in finished.document.results] == [
        ("mm", "hot", None),
        ("mm-numpy", "hot", None),
    ]
    assert "telemetry" not in (finished.document.environment or {})
    skipped = [s for s in got if isinstance(s, m.Skipped) and s.params.get("cache") == "cold"]
    assert [s.reason for s in skipped] == ["cold-cache rows are GPU only"]
    assert not any(isinstance(g, m.Telemetry) for g in got)
