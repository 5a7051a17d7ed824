"""GPU topology from NVML against the recorded 8-GPU HGX H100 node (and variations of it):
nvidia-ml-py's own ``pynvml`` over the simulated driver."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpu_tui.core.comm.topology_sheet import topology_section
from gpu_tui.core.devices import discover
from gpu_tui.core.devices import topology as topology_module
from gpu_tui.core.devices.inventory_json import inventory_json
from gpu_tui.core.devices.spec_sheet import spec_sheet
from gpu_tui.core.devices.topology import cpu_list, read_topology
from tests.conftest import SimulatedNvml
from tests.fakes.simulated_driver import SimulatedLibrary

RECORDED = [  # nvidia-smi topo -m of the node the topology fixture names (GPU rows)
    "GPU0\tX\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\t0-47,96-143\t0",
    "GPU1\tNV18\tX\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\t0-47,96-143\t0",
    "GPU2\tNV18\tNV18\tX\tNV18\tNV18\tNV18\tNV18\tNV18\t0-47,96-143\t0",
    "GPU3\tNV18\tNV18\tNV18\tX\tNV18\tNV18\tNV18\tNV18\t0-47,96-143\t0",
    "GPU4\tNV18\tNV18\tNV18\tNV18\tX\tNV18\tNV18\tNV18\t48-95,144-191\t1",
    "GPU5\tNV18\tNV18\tNV18\tNV18\tNV18\tX\tNV18\tNV18\t48-95,144-191\t1",
    "GPU6\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tX\tNV18\t48-95,144-191\t1",
    "GPU7\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tX\t48-95,144-191\t1",
]


def hgx(simulated_nvml: SimulatedNvml) -> SimulatedLibrary:
    """The recorded node with its NVLink and PCIe topology merged in."""
    return simulated_nvml("hgx_h100_8gpu", add=["hgx_h100_8gpu_topology"])


def topology_of(library: SimulatedLibrary):  # type: ignore[no-untyped-def]
    library.binding.nvmlInit()
    return read_topology(library.binding)


def test_the_hgx_node_reads_as_nvidia_smi_topo_m_printed_it(simulated_nvml: SimulatedNvml) -> None:
    topology = topology_of(hgx(simulated_nvml))
    assert topology is not None
    assert topology.matrix_text().splitlines()[1:] == RECORDED
    gpu = topology.gpus[0]
    assert (gpu.nvlink_active, gpu.nvlink_total, gpu.to_switch) == (18, 18, 18)
    assert gpu.nvlink_version == "4.0"
    assert gpu.pcie == "Gen5 x16"
    assert all(cell in ("X", "OK") for row in topology.p2p for cell in row)
    assert not topology.problems


def test_the_specs_sheet_gets_a_topology_section(simulated_nvml: SimulatedNvml) -> None:
    inventory = discover(nvml=hgx(simulated_nvml).binding)
    assert inventory.topology is not None
    sections = spec_sheet(inventory)
    [section] = [s for s in sections if s.label == "Topology"]
    rows = {r.label: r for r in section.rows}
    assert rows["GPU0 links"].value == (
        "18/18 NVLinks active (NVLink 4.0) through NVSwitch · PCIe Gen5 x16 · NUMA node 0 · "
        "CPUs 0-47,96-143"
    )
    assert rows["GPU7 to others"].value == "NV18 to every other GPU"
    assert "NV# = a bonded set of # NVLinks" in rows["GPU7 to others"].note
    assert rows["Peer reads (P2P)"].value == "OK between every pair"
    document = json.loads(json.dumps(inventory_json(inventory)))
    assert document["topology"]["relation"][0][:3] == ["X", "NV18", "NV18"]
    assert document["topology"]["gpus"][4]["cpu_affinity"] == "48-95,144-191"


def test_one_gpu_has_no_topology(simulated_nvml: SimulatedNvml) -> None:
    assert discover(nvml=simulated_nvml("h200").binding).topology is None
    assert topology_section(None) == ()


def test_direct_links_and_pcie_paths(simulated_nvml: SimulatedNvml) -> None:
    # synthetic: GPU0-GPU1 joined by 2 direct NVLinks, the rest over PCIe only
    library = hgx(simulated_nvml)
    for index, device in enumerate(library.devices):
        device["nvlink_active"] = [1, 1] + [0] * 16 if index < 2 else None
        device["nvlink_remote_type"] = [0] * 18
        peer = library.devices[1 - index]["pci_bus_id"] if index < 2 else None
        device["nvlink_remote_bus_id"] = [peer] * 18
    library.devices[2]["p2p_read_status"] = [5] * 8  # NVML_P2P_STATUS_NOT_SUPPORTED from GPU2
    topology = topology_of(library)
    assert topology is not None
    assert topology.relation[0][:4] == ("X", "NV2", "NODE", "NODE")
    assert topology.relation[2][:6] == ("NODE", "NODE", "X", "NODE", "SYS", "SYS")
    assert topology.gpus[2].nvlink_total is None
    [section] = topology_section(topology)
    rows = {r.label: r.value for r in section.rows}
    assert rows["GPU2 links"].startswith("no NVLink reported")
    assert rows["GPU0 to others"].startswith("GPU1 NV2 · GPU2 NODE")
    assert rows["Peer reads (P2P)"].startswith("GPU2→GPU0 NS")


def test_what_nvml_cannot_say_stays_unknown(
    simulated_nvml: SimulatedNvml, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(topology_module, "SYSFS_PCI", tmp_path)  # no sysfs to fall back on
    library = hgx(simulated_nvml)
    for name in ("nvmlDeviceGetTopologyCommonAncestor", "nvmlDeviceGetMemoryAffinity"):
        library.remove_function(name)
    for device in library.devices:
        device["nvlink_active"] = None
    library.lose(3, at_handle=True)
    topology = topology_of(library)
    assert topology is not None
    assert [g.index for g in topology.gpus] == [0, 1, 2, 4, 5, 6, 7]
    assert topology.matrix_text().splitlines()[0].split("\t")[3:6] == ["GPU2", "GPU4", "GPU5"]
    assert topology.problems == ("GPU3 did not answer: its row is left out",)
    assert {c for row in topology.relation for c in row} == {"X", "?"}
    assert topology.gpus[0].numa_node is None
    assert topology.gpus[0].cpu_affinity == "0-47,96-143"


def test_cpu_lists() -> None:
    assert cpu_list([0b1011]) == "0-1,3"
    assert cpu_list([0, 1]) == "64"
    assert cpu_list([]) == ""


def test_the_numa_node_is_the_nearest_cpu_memory_not_the_gpu_s_own_node(
    simulated_nvml: SimulatedNvml,
) -> None:
    """On a Grace system nvmlDeviceGetNumaNodeId is the GPU memory's own node; the NUMA
    affinity nvidia-smi topo -m prints is the CPU node nearest it, its memory affinity."""
    library = hgx(simulated_nvml)
    for index, device in enumerate(library.devices):
        device["gpu_memory_numa_node"] = 4 + index  # what a GH200 node would say
    topology = topology_of(library)
    assert topology is not None
    assert [g.numa_node for g in topology.gpus] == [0, 0, 0, 0, 1, 1, 1, 1]


def test_without_memory_affinity_the_numa_node_comes_from_sysfs(
    simulated_nvml: SimulatedNvml, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = hgx(simulated_nvml)
    library.remove_function("nvmlDeviceGetMemoryAffinity")
    for index, device in enumerate(library.devices):
        bus = device["pci_bus_id"].lower()[-12:]  # sysfs: a 4-digit domain
        (tmp_path / bus).mkdir()
        (tmp_path / bus / "numa_node").write_text("-1\n" if index == 7 else f"{index % 2}\n")
    monkeypatch.setattr(topology_module, "SYSFS_PCI", tmp_path)
    topology = topology_of(library)
    assert topology is not None
    assert [g.numa_node for g in topology.gpus] == [0, 1, 0, 1, 0, 1, 0, None]  # -1: no NUMA
