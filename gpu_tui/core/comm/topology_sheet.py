"""The GPUs' topology as a spec-sheet section: links per GPU, each pair's relation, peer access."""

from __future__ import annotations

from gpu_tui.core.devices.spec_rows import SpecRow, SpecSection
from gpu_tui.core.devices.topology import LEGEND, GpuLinks, Topology

KEY = "topology"


def _links(gpu: GpuLinks) -> str:
    parts = []
    if gpu.nvlink_active:
        reach = " through NVSwitch" if gpu.to_switch else ""
        version = f" (NVLink {gpu.nvlink_version})" if gpu.nvlink_version else ""
        parts.append(f"{gpu.nvlink_active}/{gpu.nvlink_total} NVLinks active{version}{reach}")
    elif gpu.nvlink_total is None:
        parts.append("no NVLink reported")
    else:
        parts.append(f"0/{gpu.nvlink_total} NVLinks active")
    parts.append(f"PCIe {gpu.pcie}" if gpu.pcie else "PCIe link unknown")
    if gpu.numa_node is not None:
        parts.append(f"NUMA node {gpu.numa_node}")
    if gpu.cpu_affinity:
        parts.append(f"CPUs {gpu.cpu_affinity}")
    return " · ".join(parts)


def _pairs(topology: Topology, row: int) -> str:
    cells = topology.relation[row]
    names = [f"GPU{g.index}" for g in topology.gpus]
    same = {c for i, c in enumerate(cells) if i != row}
    if same == {"?"}:
        return "unknown: NVML gave neither NVLink peers nor the PCIe path"
    if len(same) == 1:
        return f"{same.pop()} to every other GPU"
    return " · ".join(f"{names[i]} {c}" for i, c in enumerate(cells) if i != row)


def _p2p(topology: Topology) -> str:
    names = [f"GPU{g.index}" for g in topology.gpus]
    bad = [
        f"{names[i]}→{names[j]} {status}"
        for i, row in enumerate(topology.p2p)
        for j, status in enumerate(row)
        if status not in ("X", "OK")
    ]
    return "OK between every pair" if not bad else " · ".join(bad)


def topology_section(topology: Topology | None) -> tuple[SpecSection, ...]:
    """One section for two GPUs or more (none otherwise)."""
    if topology is None or len(topology.gpus) < 2:
        return ()
    used = sorted({c[:2] if c.startswith("NV") else c for row in topology.relation for c in row})
    legend = " · ".join(
        f"{'NV#' if c == 'NV' else c} = {LEGEND['NV#' if c == 'NV' else c]}"
        for c in used
        if ("NV#" if c == "NV" else c) in LEGEND and c != "X"
    )
    rows: list[SpecRow] = []
    for index, gpu in enumerate(topology.gpus):
        name = f"GPU{gpu.index}"
        rows.append(SpecRow(f"{KEY}.links", f"{name} links", _links(gpu)))
        pairs = _pairs(topology, index)
        unknown = pairs.startswith("unknown")
        rows.append(SpecRow(f"{KEY}.pairs", f"{name} to others", pairs, legend, unknown=unknown))
    rows.append(SpecRow(f"{KEY}.p2p", "Peer reads (P2P)", _p2p(topology)))
    rows.extend(SpecRow(f"{KEY}.problem", "Problem", p, unknown=True) for p in topology.problems)
    title = f"Topology: {len(topology.gpus)} GPUs (nvidia-smi topo -m, from NVML)"
    return (SpecSection(title, tuple(rows), label="Topology"),)
