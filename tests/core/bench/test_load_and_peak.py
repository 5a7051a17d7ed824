"""Foreign CPU load detection ("CPU best") and % of peak ("% of peak, checked")."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time

import pytest

from gpu_tui.core.bench.formulas import Figure
from gpu_tui.core.bench.peak import PeakTable
from gpu_tui.core.bench.worker.context import Context
from gpu_tui.core.bench.worker.protocol import Channel
from gpu_tui.core.bench.worker.sysinfo import LoadProbe, busy_seconds
from gpu_tui.core.bench.worker.timing import Timing

STAT = "cpu  100 5 50 1000 20 3 2 10 7 0\ncpu0 1 2 3 4\n"


def test_busy_seconds_counts_user_to_steal_but_not_idle() -> None:
    # user+nice+system+irq+softirq+steal = 100+5+50+3+2+10; idle and iowait excluded
    assert busy_seconds(STAT, 100) == pytest.approx(1.70)
    assert busy_seconds("intr 1 2", 100) is None
    assert busy_seconds(None, 100) is None


def test_a_busy_neighbour_shows_up_as_foreign_load() -> None:
    probe = LoadProbe()
    probe.start()
    spinner = subprocess.Popen(
        [sys.executable, "-c", "import time\nt=time.time()\nwhile time.time()-t<0.6: pass"]
    )
    spinner.wait()
    foreign = probe.foreign_vcpus()
    assert foreign is not None
    assert foreign > 0.2


def test_our_own_work_is_not_foreign() -> None:
    probe = LoadProbe()
    probe.start()
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pass
    foreign = probe.foreign_vcpus()
    assert foreign is not None  # what others did meanwhile; our own 0.3 s is subtracted


def sent(foreign: float | None, device: str = "cpu") -> dict[str, object]:
    out = io.StringIO()
    ctx = Context(torch=None, channel=Channel(out), budget=0.1)
    timing = Timing([0.01] * 9, 1, 0.02, 0.03, 3, "budget")
    ctx.result("gemm", "mm", device, "fp32", {"n": 8}, (timing, foreign))
    return dict(json.loads(out.getvalue()))


def test_foreign_load_above_a_tenth_of_a_cpu_is_warned_about() -> None:
    assert any("foreign CPU load 0.50" in w for w in sent(0.5)["warnings"])  # type: ignore[union-attr]
    assert sent(0.05)["warnings"] == []
    assert sent(None)["warnings"] == []


def test_percent_of_peak_and_its_flags() -> None:
    peaks = PeakTable({})
    peaks.set("cuda:0", "bf16", 1000.0)
    assert peaks.percent("cuda:0", Figure(800.0, "TFLOP/s", "bf16")) == (80.0, [])
    high, notes = peaks.percent("cuda:0", Figure(1200.0, "TFLOP/s", "bf16"))
    assert high == 120.0
    assert "above 100 %" in notes[0]
    low, notes = peaks.percent("cuda:0", Figure(50.0, "TFLOP/s", "bf16"))
    assert low == 5.0
    assert "small problem" in notes[0]
    assert peaks.percent("cuda:0", Figure(1.0, "TFLOP/s", "fp8")) == (None, [])
    assert peaks.percent("cpu", Figure(1.0, "us", None)) == (None, [])


def test_gpu_peaks_come_from_the_worker_device_record() -> None:
    h100 = {
        "device": "cuda:0",
        "name": "NVIDIA H100 80GB HBM3",
        "vendor": "NVIDIA",
        "compute_capability": "9.0",
        "sm_count": 132,
        "max_sm_clock_mhz": 1980.0,
        "max_memory_clock_mhz": 2619.0,
        "memory_bus_width_bits": 5120,
    }
    peaks = PeakTable({"devices": [h100]})
    bf16 = peaks.lookup("cuda:0", "bf16")
    memory = peaks.lookup("cuda:0", "memory")
    assert bf16 is not None, "the peak table has lost the H100"
    assert 900 < bf16 < 1100  # dense H100 SXM bf16 ≈ 989 TFLOP/s
    assert memory is not None
    assert 3000 < memory < 3700  # 5,120-bit HBM3 at 2,619 MHz: 3.35 TB/s
