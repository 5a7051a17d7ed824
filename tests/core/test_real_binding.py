"""gpu-tui's readings through the real nvidia-ml-py binding over the simulated driver: what a GPU
server gives, on each driver branch."""

from __future__ import annotations

import json

import pynvml
import pytest

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.model import BackendStatus
from gpu_tui.core.devices.nvidia import discover_nvidia
from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.devices.topology import read_topology
from gpu_tui.core.monitor.host_processes import HostProcesses
from tests.fakes import simulated_driver
from tests.fakes.simulated_driver import BRANCHES, SimulatedLibrary


def two_gpus(p2p: list[list[int]]) -> SimulatedLibrary:
    reading = json.loads((simulated_driver.READINGS / "h200.json").read_text())
    second = dict(reading["devices"][0], uuid="GPU-2", pci_bus_id="00000000:04:00.0")
    reading["devices"] = [reading["devices"][0], second]
    reading["p2p_status"] = p2p
    return SimulatedLibrary(reading, BRANCHES["r550"])


@pytest.mark.parametrize(("status", "word"), [(0, "OK"), (4, "DR"), (5, "NS"), (6, "U")])
def test_peer_reads_reach_the_driver_and_say_its_word(status: int, word: str) -> None:
    library = two_gpus([[0, status], [status, 0]])
    simulated_driver.install(pynvml, library)
    try:
        pynvml.nvmlInit()
        topology = read_topology(pynvml)
    finally:
        simulated_driver.uninstall(pynvml)
    assert topology is not None
    assert topology.p2p == (("X", word), (word, "X"))
    assert library.calls.count("nvmlDeviceGetP2PStatus") == 2


def processes_on(branch: str, pids: list[int]) -> list[int]:
    """The PIDs the Monitor lists on GPU 0 when the driver of ``branch`` runs ``pids``."""
    library = SimulatedLibrary(simulated_driver.load_reading("h200"), BRANCHES[branch])
    listed = [{"pid": pid, "used_bytes": 2**30} for pid in pids]
    library.devices[0]["processes"] = {"compute": listed, "graphics": []}
    simulated_driver.install(pynvml, library)
    try:
        pynvml.nvmlInit()
        session = NvmlSession(pynvml, BackendStatus("nvml", True), HostProcesses())
        found = session.sample(0).processes
    finally:
        simulated_driver.uninstall(pynvml)
    assert isinstance(found, tuple), found
    return [process.pid for process in found]


@pytest.mark.parametrize("branch", ["r470", "r535", "r535.98", "r550", "r570"])
def test_every_process_and_no_phantom_on_every_branch(branch: str) -> None:
    assert processes_on(branch, [1111, 2222, 3333]) == [1111, 2222, 3333]


def test_a_process_that_stops_launching_kernels_drops_to_zero_sm() -> None:
    """The driver keeps an idle process's last sample: asking from the newest sample seen, not
    the oldest, lets that sample age out instead of showing 90 % for good."""
    library = SimulatedLibrary(simulated_driver.load_reading("h200"), BRANCHES["r550"])
    listed = [{"pid": pid, "used_bytes": 2**30} for pid in (100, 200)]
    library.devices[0]["processes"] = {"compute": listed, "graphics": []}
    simulated_driver.install(pynvml, library)
    shares: list[dict[int, object]] = []
    try:
        pynvml.nvmlInit()
        session = NvmlSession(pynvml, BackendStatus("nvml", True), HostProcesses())
        for second in range(1, 11):
            now = second * 1_000_000
            kept = library.process_samples.setdefault(0, {})
            if second <= 5:
                kept[100] = (now, 90)  # kernels until t = 5 s, then idle (still listed)
            kept[200] = (now, 40)
            processes = session.sample(0).processes
            assert isinstance(processes, tuple)
            shares.append({p.pid: p.sm_percent for p in processes})
    finally:
        simulated_driver.uninstall(pynvml)
    assert shares[4] == {100: 90.0, 200: 40.0}
    assert shares[5:] == [{100: 0.0, 200: 40.0}] * 5


def memory_on(branch: str) -> tuple[object, object]:
    """Used and reserved memory of an idle H200 (1 MiB used, 531 MiB reserved) on ``branch``."""
    library = SimulatedLibrary(simulated_driver.load_reading("h200"), BRANCHES[branch])
    library.devices[0]["memory_reserved_bytes"] = 531 * 2**20
    simulated_driver.install(pynvml, library)
    try:
        pynvml.nvmlInit()
        sample = NvmlSession(pynvml, BackendStatus("nvml", True), HostProcesses()).sample(0)
    finally:
        simulated_driver.uninstall(pynvml)
    return sample.memory_used_bytes, sample.memory_reserved_bytes


@pytest.mark.parametrize("branch", ["r535", "r550", "r570"])
def test_used_memory_is_what_nvidia_smi_shows_and_reserved_is_apart(branch: str) -> None:
    assert memory_on(branch) == (2**20, 531 * 2**20)


def test_a_driver_without_v2_memory_says_its_used_includes_reserved() -> None:
    used, reserved = memory_on("r470")
    assert used == 532 * 2**20
    assert isinstance(reserved, Unknown)
    assert "counted as used" in reserved.reason


def test_a_gpu_outside_the_job_s_cgroup_is_named_so_not_lost() -> None:
    library = two_gpus([[0, 0], [0, 0]])
    library.no_permission.add(1)
    simulated_driver.install(pynvml, library)
    try:
        pynvml.nvmlInit()
        session = NvmlSession(pynvml, BackendStatus("nvml", True), HostProcesses())
        ours, theirs = session.sample(0), session.sample(1)
        found, status = discover_nvidia(pynvml)
    finally:
        simulated_driver.uninstall(pynvml)
    assert not ours.lost
    assert not ours.not_in_job
    assert ours.memory_total_bytes == library.devices[0]["memory_total_bytes"]
    assert theirs.not_in_job
    assert not theirs.lost
    assert isinstance(theirs.utilization_percent, Unknown)
    assert theirs.utilization_percent.reason.startswith("not in this job")
    assert status.available
    assert [gpu.name for gpu in found] == ["NVIDIA H200", "GPU 1: not in this job"]
    assert not found[1].lost


def test_every_nvlink_version_the_binding_names_has_a_name_here() -> None:
    from gpu_tui.core.devices.topology import NVLINK_VERSIONS

    codes = {
        getattr(pynvml, name)
        for name in dir(pynvml)
        if name.startswith("NVML_NVLINK_VERSION_") and name != "NVML_NVLINK_VERSION_INVALID"
    }
    assert codes, "the binding names NVLink versions"
    assert codes <= set(NVLINK_VERSIONS)
