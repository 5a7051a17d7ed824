"""``gpu-tui watch``: JSON lines for scripts, a one-line summary for humans, clean exits. NVML is
nvidia-ml-py's own ``pynvml`` over the simulated driver."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from gpu_tui.commands import watch, watch_text
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.live_sources import open_gpu_sources
from gpu_tui.core.devices.nvml_gpm import FIRST
from gpu_tui.core.monitor.samples import CpuSample, GpuProcess, GpuSample, MemorySample, Sample
from tests.conftest import SimulatedNvml
from tests.fakes import simulated_binding
from tests.fakes.samples import NOT_SUPPORTED, gpu_sample
from tests.helpers.running_app import command, environment

ROOT = Path(__file__).resolve().parents[2]


def gpu_tui(*args: str, **kwargs: object) -> subprocess.Popen[str]:
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "gpu_tui", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def a_gpu(**changes: object) -> GpuSample:
    """A busy, power-capped GPU running another user's job."""
    busy = {
        "utilization_percent": 97.0,
        "memory_utilization_percent": 40.0,
        "memory_used_bytes": 60 << 30,
        "temperature_c": 71.0,
        "power_watts": 655.0,
        "pcie_tx_bytes_per_second": math.nan,
        "throttle_reasons": ("power cap",),
        "processes": (
            GpuProcess(
                pid=4242,
                kind="compute",
                used_memory_bytes=59 << 30,
                sm_percent=NOT_SUPPORTED,
                user=Unknown("another user's process"),
                command=Unknown("another user's process"),
            ),
        ),
    }
    merged = {"index": 0, **busy, **changes}
    return gpu_sample(**merged)


def a_sample(*gpus: GpuSample) -> Sample:
    return Sample(
        timestamp=1_700_000_000.5,
        cpu=CpuSample(12.5, (10.0, 15.0), Unknown("no clock"), (0.5, 0.4, 0.3), 48.0),
        memory=MemorySample(16 << 30, 4 << 30, 12 << 30, 2 << 30, 0),
        gpus=gpus,
    )


# --- the JSON schema --------------------------------------------------------------------------


def test_json_line_has_nulls_with_reasons() -> None:
    line = watch.sample_to_json(a_sample(a_gpu()), interval=0.5)
    text = json.dumps(line, allow_nan=False)  # raises if a NaN slipped through
    assert json.loads(text) == line
    assert line["schema_version"] == 2
    assert line["timestamp"] == 1_700_000_000.5
    assert line["interval_seconds"] == 0.5
    assert line["cpu"]["frequency_mhz"] is None
    assert line["cpu"]["unknown"] == {"frequency_mhz": "no clock"}
    assert line["cpu"]["load_average"] == [0.5, 0.4, 0.3]
    assert line["memory"]["total_bytes"] == 16 << 30
    assert line["memory"]["unknown"] == {}
    (gpu,) = line["gpus"]
    assert gpu["fan_percent"] is None
    assert gpu["unknown"] == {"fan_percent": "not supported by this GPU"}
    assert gpu["pcie_tx_bytes_per_second"] is None  # NaN is not a reading
    assert gpu["memory_reserved_bytes"] == 531 << 20  # apart from memory_used_bytes
    assert gpu["throttle_reasons"] == ["power cap"]
    assert gpu["lost"] is False
    assert gpu["stale"] is False
    (process,) = gpu["processes"]
    assert process["pid"] == 4242
    assert process["user"] is None
    assert process["unknown"]["command"] == "another user's process"


def test_human_line_is_one_line_of_columns() -> None:
    line = watch_text.human_line(
        a_sample(a_gpu(), a_gpu(index=1, lost=True), a_gpu(index=2, stale=True, simulated=True))
    )
    assert "\n" not in line
    assert "cpu  12 % [ 10  15]    ?MHz load  0.50" in line  # room for 100 %, 4 digits, 10.00
    assert "mem  4.0/16.0GiB swap 0.0/2.0GiB" in line
    assert "gpu0            97 % tensor  12 % 60.0/80.0GiB  71 °C 655/700W" in line  # under sim2's
    assert "gpu1           LOST " in line
    assert "sim2 SIMULATED" in line
    assert line.endswith(" | sim2 SIMULATED (stale)")  # after the columns: it moves none


def test_a_tick_wider_than_the_terminal_goes_on_a_line_per_gpu() -> None:
    sample = a_sample(a_gpu(), a_gpu(index=1))
    one = watch_text.human_line(sample)
    assert watch_text.Layout(sample, None).lines(sample) == [one]  # a pipe: one line per tick
    assert watch_text.Layout(sample, len(one)).lines(sample) == [one]
    host, gpu0, gpu1 = watch_text.Layout(sample, 80).lines(sample)
    assert host.endswith("swap 0.0/2.0GiB")
    assert len(host) <= 80
    assert gpu0.startswith("  gpu0  97 % tensor  12 % 60.0/80.0GiB")
    assert gpu1.startswith("  gpu1 ")


def test_a_narrow_terminal_loses_the_least_needed_columns_not_a_row_s_shape() -> None:
    sample = a_sample(a_gpu(), a_gpu(index=1))
    host, gpu0, _gpu1 = watch_text.Layout(sample, 40).lines(sample)
    assert host.endswith(" | cpu  12 % | mem  4.0/16.0GiB")  # per-core, clock, load, swap out
    assert gpu0 == "  gpu0  97 % tensor  12 % 60.0/80.0GiB"  # temperature and power left out
    assert max(len(host), len(gpu0)) <= 40


def test_the_tensor_column_is_kept_for_the_second_tick_and_nothing_moves() -> None:
    """GPM compares two samples: the first tick has no tensor figure yet, only a place for it."""
    pending = a_gpu(activity=Unknown(FIRST))
    first, second = a_sample(pending), a_sample(a_gpu())
    layout = watch_text.Layout(first, None)
    before, after = layout.lines(first)[0], layout.lines(second)[0]
    assert "tensor   ? %" in before
    assert "tensor  12 %" in after
    assert len(before) == len(after)
    assert before.index("60.0/80.0GiB") == after.index("60.0/80.0GiB")
    without = a_gpu(activity=Unknown("needs a Hopper or newer GPU (H100, H200, GH200, B200)"))
    assert "tensor" not in watch_text.human_line(a_sample(without))  # never coming: no column


def test_a_gpu_s_last_xid_comes_after_the_columns_and_none_says_nothing() -> None:
    line = watch_text.human_line(a_sample(a_gpu(), a_gpu(index=1, last_xid=79)))
    assert line.endswith(" | gpu1 XID 79")
    assert line.count("XID") == 1
    sample = a_sample(a_gpu(), a_gpu(index=1, last_xid=79))
    assert watch_text.Layout(sample, 80).lines(sample)[2].endswith("655/700W XID 79")


def test_human_line_says_no_swap_in_two_words() -> None:
    sample = a_sample()
    sample = dataclasses.replace(
        sample, memory=dataclasses.replace(sample.memory, swap_total_bytes=0, swap_used_bytes=0)
    )
    assert watch_text.human_line(sample).endswith("no swap")


def test_human_line_summarises_many_cores() -> None:
    sample = dataclasses.replace(
        a_sample(),
        cpu=CpuSample(50.0, tuple(float(i) for i in range(64)), 3000.0, NOT_SUPPORTED, 1.0),
    )
    assert "[cores 0–63 %] 3000MHz load     ?" in watch_text.human_line(sample)


# --- sources: NVML missing, NVML present, --demo ----------------------------------------------


def test_sources_with_nvml_and_demo(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("hgx_h100_8gpu")
    sources = open_gpu_sources(demo=True, nvml=library.binding)
    assert sources.session is not None
    assert sources.real == [sources.session]
    assert sources.session.device_count == 8
    assert (sources.note, sources.hung) == ("", None)
    assert watch.source_notes(sources, for_scripts=False) == []
    (simulated,) = sources.inline
    assert simulated.device_count == 1
    reading = simulated.sample(0)
    assert reading.index == 8  # after the eight real GPUs
    assert reading.simulated
    sources.close(reads_hung=False)
    assert sources.session is None
    assert library.called("nvmlShutdown") == 0  # NVML stays open for the process's other readers


def test_sources_say_why_there_are_no_gpus(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("h200")
    library.fail_init("DriverNotLoaded")
    sources = open_gpu_sources(demo=True, nvml=library.binding)
    assert (sources.real, sources.session, sources.hung) == ([], None, None)
    assert sources.note == "the NVIDIA kernel driver is not loaded"
    assert watch.source_notes(sources, for_scripts=False) == [
        "NVIDIA GPUs: none (the NVIDIA kernel driver is not loaded)"
    ]
    assert watch.source_notes(sources, for_scripts=True) == []  # the usual CPU-only machine
    assert sources.inline[0].sample(0).index == 0


def test_a_driver_without_gpus_is_a_note_not_an_empty_session(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("h200")
    library.devices.clear()  # the driver loads and answers, but counts no GPU
    sources = open_gpu_sources(demo=False, nvml=library.binding)
    assert (sources.real, sources.inline, sources.session) == ([], [], None)
    assert sources.note == "NVML works but reports no NVIDIA GPUs"
    assert library.called("nvmlDeviceGetCount") >= 1
    assert library.called("nvmlInit") == 1


# --- the real command, in a subprocess --------------------------------------------------------


def test_watch_json_count_3_prints_three_valid_lines() -> None:
    process = gpu_tui("watch", "--json", "--count", "3", "--interval", "0.1")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    lines = out.splitlines()
    assert len(lines) == 3
    records = [json.loads(line) for line in lines]
    for record in records:
        assert record["schema_version"] == 2
        assert len(record["cpu"]["per_core_percent"]) == os.cpu_count()
        assert record["memory"]["total_bytes"] == psutil.virtual_memory().total
        assert isinstance(record["gpus"], list)
    stamps = [r["timestamp"] for r in records]
    assert stamps == sorted(stamps)
    assert len(set(stamps)) == 3


def test_watch_human_count_2() -> None:
    process = gpu_tui("watch", "--count", "2", "--interval", "0.1")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    lines = out.splitlines()
    assert len(lines) == 2
    assert all(" | cpu " in line and " | mem " in line for line in lines)


def watch_hgx(tmp_path: Path, **env: str) -> list[str]:
    """Two ticks of ``gpu-tui watch`` to a pipe, on a recorded 8-GPU H100 under the real
    binding, training (its GPM gives the tensor figure from the second tick)."""
    shim = tmp_path / "shim"
    simulated_binding.install_as_pynvml(shim)
    base = environment(tmp_path / "data", **env)
    done = subprocess.run(
        command("watch", "--count", "2", "--interval", "0.1"),
        env=simulated_binding.environment(
            shim, reading="hgx_h100_8gpu", add=("hgx_h100_8gpu_training",), base=base
        ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout.splitlines()


def test_watch_to_a_pipe_fits_columns_and_keeps_its_columns_from_the_first_tick(
    tmp_path: Path,
) -> None:
    lines = watch_hgx(tmp_path, COLUMNS="80")
    assert len(lines) == 2 * (1 + 8)  # each tick: the host's line, then one per GPU
    assert max(map(len, lines)) <= 80
    first, second = lines[1], lines[10]  # gpu0 on each tick
    assert "tensor   ? %" in first  # GPM compares two samples: the place is kept on the first
    assert "tensor  42 %" in second
    assert [first.index(word) for word in ("tensor", "GiB", "W")] == [
        second.index(word) for word in ("tensor", "GiB", "W")
    ]


def test_watch_to_a_pipe_without_columns_is_one_whole_line_per_tick(tmp_path: Path) -> None:
    first, second = watch_hgx(tmp_path)
    assert len(first) == len(second) > 80  # a script reads whole lines
    assert first.index(" | gpu7 ") == second.index(" | gpu7 ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--interval", "0"], "must be between 0.1 and 60 seconds"),
        (["--interval", "soon"], "must be between 0.1 and 60 seconds, got 'soon'"),
        (["--count", "0"], "--count must be a whole number of at least 1, got '0'"),
        (["--count", "2.5"], "--count must be a whole number of at least 1, got '2.5'"),
    ],
)
def test_bad_values_exit_2_with_one_line(args: list[str], message: str) -> None:
    process = gpu_tui("watch", *args)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert message in err


def test_ctrl_c_exits_130_without_a_traceback() -> None:
    process = gpu_tui("watch", "--json", "--interval", "0.1")
    assert process.stdout is not None
    first = process.stdout.readline()
    assert json.loads(first)["schema_version"] == 2
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in err
    assert err.strip() == "gpu-tui watch: interrupted"


def test_a_closed_pipe_ends_quietly() -> None:
    process = gpu_tui("watch", "--json", "--interval", "0.1")
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # like `| head -1`
    assert process.wait(timeout=60) == 0
    assert process.stderr.read() == ""
