"""The page ``gpu-tui export`` serves, read over HTTP from its server while the real sampler reads
the simulated driver under the real ``pynvml``: dcgm-exporter's fields, names and types, MIG
instance series, the exporter's own health, and ``promtool check metrics`` on it."""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gpu_tui.commands.check import report_json
from gpu_tui.core.check import last_check
from gpu_tui.core.check.run import run_check
from gpu_tui.core.devices import discover
from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.fleet.exporter import (
    TEXT_FORMAT,
    ExporterHealth,
    MetricsPage,
    MetricsServer,
    check_families,
    render,
)
from gpu_tui.core.fleet.exposition import identities
from gpu_tui.core.monitor.sampler import Sampler
from tests import needs
from tests.conftest import SimulatedNvml
from tests.fakes.simulated_driver import SimulatedLibrary

SAMPLE_LINE = re.compile(r"^(\w+)(?:\{(.*)\})? (\S+)$")
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
INHERITED_LINT = (
    "label names should be written in 'snake_case' not 'camelCase'",  # dcgm-exporter's modelName
    'counter metrics should have "_total" suffix',  # DCGM's counter names
    "metric name should not include type 'counter'",  # DCGM_FI_DEV_PCIE_REPLAY_COUNTER
)


@contextmanager
def served(library: SimulatedLibrary, ticks: int = 2) -> Iterator[str]:
    """``gpu-tui export``'s parts over ``library``: the page at the URL given, ``ticks``
    readings in (GPM and NVLink rates need two)."""
    inventory = discover(nvml=library.binding)
    session = NvmlSession.open(library.binding)
    sampler = Sampler(gpu_sources=[session], interval=0.1)
    health = ExporterHealth("gpu-node-7")
    sampler.on_tick = health.record
    for _ in range(ticks):
        sampler.tick()
    page = MetricsPage(lambda: sampler.latest, identities(inventory), "gpu-node-7", health)
    server = MetricsServer(page.render, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.port}/metrics"
    finally:
        server.close()
        sampler.stop()
        session.close()


def fetch(url: str, *, gzipped: bool = False) -> str:
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gzipped else {})
    with urllib.request.urlopen(request, timeout=5) as answer:
        assert answer.headers["Content-Type"] == TEXT_FORMAT
        body = answer.read()
        if gzipped:
            assert answer.headers["Content-Encoding"] == "gzip"
            body = gzip.decompress(body)
    return str(body.decode())


def series(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Every sample by metric name, read as Prometheus reads the text format (no renaming)."""
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        match = SAMPLE_LINE.match(line)
        assert match, line
        name, labels, value = match.groups()
        out.setdefault(name, []).append((dict(LABEL.findall(labels or "")), float(value)))
    return out


def types(text: str) -> dict[str, str]:
    return dict(re.findall(r"^# TYPE (\w+) (\w+)$", text, flags=re.MULTILINE))


def test_a_training_h100_node_serves_dcgm_exporter_s_fields_by_its_names_and_types(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("hgx_h100_8gpu", add=("hgx_h100_8gpu_training",))
    library.raise_xid(6, 79)
    with served(library) as url:
        text = fetch(url, gzipped=True)
    got, typed = series(text), types(text)
    assert len(got["DCGM_FI_DEV_GPU_UTIL"]) == 8
    labels, tensor = got["DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"][0]
    assert tensor == pytest.approx(0.417)  # a ratio, as DCGM's profiling fields are
    assert labels["Hostname"] == "gpu-node-7"
    assert labels["modelName"] == "NVIDIA H100 80GB HBM3"
    assert got["DCGM_FI_PROF_GR_ENGINE_ACTIVE"][0][1] == pytest.approx(0.992)
    assert got["DCGM_FI_PROF_DRAM_ACTIVE"][0][1] == pytest.approx(0.523)
    assert [v for _, v in got["DCGM_FI_DEV_XID_ERRORS"]] == [0, 0, 0, 0, 0, 0, 79, 0]
    assert got["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"][0][1] == 9_512_000_000
    assert got["DCGM_FI_DEV_MEMORY_TEMP"][0][1] == 70
    assert got["DCGM_FI_DEV_FB_RESERVED"][0][1] == 531
    assert got["DCGM_FI_PROF_NVLINK_TX_BYTES"][0][1] == pytest.approx(117e6 * 1024, rel=0.2)
    assert got["DCGM_FI_PROF_PCIE_RX_BYTES"][0][1] == 2_400_000 * 1024
    for name in ("CORRECTABLE_REMAPPED_ROWS", "UNCORRECTABLE_REMAPPED_ROWS", "ROW_REMAP_FAILURE"):
        assert [v for _, v in got[f"DCGM_FI_DEV_{name}"]] == [0] * 8
    assert typed["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"] == "counter"  # no _total: DCGM's name
    assert typed["DCGM_FI_DEV_PCIE_REPLAY_COUNTER"] == "counter"
    assert typed["DCGM_FI_DEV_XID_ERRORS"] == "gauge"
    assert got["gpu_tui_build_info"][0][0]["version"]
    assert got["gpu_tui_exporter_read_errors_total"] == [({"Hostname": "gpu-node-7"}, 0.0)]
    assert got["gpu_tui_exporter_last_reading_timestamp_seconds"][0][1] > 1.7e9
    assert not [name for name in got if name.startswith("gpu_tui_") and "clock" in name]


def test_each_mig_instance_is_its_own_series_with_dcgm_exporter_s_labels(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("a100_80gb_pcie_mig")
    with served(library, ticks=1) as url:
        got = series(fetch(url))
    instances = [labels for labels, _ in got["DCGM_FI_DEV_FB_USED"] if "GPU_I_ID" in labels]
    recorded = library.devices[0]["mig_devices"]
    assert len(instances) == len(recorded) > 1
    assert {labels["GPU_I_PROFILE"] for labels in instances} == {
        mig["name"].rsplit(" ", 1)[-1] for mig in recorded
    }
    used = {
        labels["GPU_I_ID"]: mib
        for labels, mib in got["DCGM_FI_DEV_FB_USED"]
        if "GPU_I_ID" in labels
    }
    free = {
        labels["GPU_I_ID"]: mib
        for labels, mib in got["DCGM_FI_DEV_FB_FREE"]
        if "GPU_I_ID" in labels
    }
    for mig in recorded:
        key = str(mig["gpu_instance_id"])
        assert used[key] == round(mig["memory_used_bytes"] / 2**20)
        assert used[key] + free[key] == round(mig["memory_total_bytes"] / 2**20)
    assert "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE" not in got  # an A100 has no GPM: no series at all


def test_promtool_finds_nothing_wrong_but_what_dcgm_exporter_s_names_bring(
    simulated_nvml: SimulatedNvml,
) -> None:
    promtool = shutil.which("promtool") or (
        "/usr/bin/promtool" if shutil.which("/usr/bin/promtool") else None
    )
    if promtool is None:
        needs.missing("promtool is not installed (Debian/Ubuntu: apt-get install prometheus)")
    library = simulated_nvml("hgx_h100_8gpu", add=("hgx_h100_8gpu_training",))
    with served(library) as url:
        text = fetch(url)
    checked = subprocess.run(
        [promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=30
    )
    findings = (checked.stdout + checked.stderr).splitlines()
    assert checked.returncode in (0, 3), findings  # 3: lint findings only, no parse error
    assert findings  # the inherited camelCase label is always there
    unexpected = [line for line in findings if not line.endswith(INHERITED_LINT)]
    assert unexpected == []
    ours = [line for line in findings if line.startswith("gpu_tui_")]
    assert all(line.endswith(INHERITED_LINT[0]) for line in ours)  # our counters end in _total


def test_the_last_health_check_is_served_per_gpu_and_a_corrupt_one_is_not(
    simulated_nvml: SimulatedNvml, tmp_path: Path
) -> None:
    library = simulated_nvml(
        "hgx_h100_8gpu",
        add=("hgx_h100_8gpu_topology", "hgx_h100_8gpu_training", "hgx_h100_8gpu_check_thermal"),
    )
    report = run_check(nvml=library.binding, kernel_log=dict, torch_build=lambda: None)
    saved = tmp_path / "last.json"
    assert last_check.save(report_json(report, 1_800_000_000.0), saved) is None
    gpus = identities(discover(nvml=library.binding))
    got = series(render(check_families(last_check.load(saved), gpus, "gpu-node-7")).decode())
    assert got["gpu_tui_check_status"] == [({"Hostname": "gpu-node-7"}, 1.0)]
    assert got["gpu_tui_check_timestamp_seconds"][0][1] == 1_800_000_000.0
    per_gpu = {labels.get("gpu"): value for labels, value in got["gpu_tui_check_failures"]}
    assert per_gpu == {**{str(i): 0.0 for i in range(8)}, "1": 2.0, None: 0.0}  # clocks, temp
    for hostile in (b"{", b'{"schema_version": 9}', b"[" * 100_000, b"x" * (2 << 20)):
        saved.write_bytes(hostile)
        refused = last_check.load(saved)
        assert isinstance(refused, str)
        assert check_families(refused, gpus, "n") == []
    assert last_check.load(tmp_path / "none.json") == (
        "no check has run on this machine (gpu-tui check)"
    )
