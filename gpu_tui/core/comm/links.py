"""What a link between two GPUs (or a GPU and the host) can carry in one direction: the peak a
measured copy is read against as "% of link peak".

NVLink: the links joining the pair (``NV18`` in ``nvidia-smi topo -m``) × one link's rate for the
NVLink version NVML reports. PCIe: the lanes × one lane's rate for the generation, from the
GPU's maximum link (links train down at idle, as ``core.bench.peak.pcie_peaks`` has it). A pair
joined by PCIe alone is bound by the slower of its two GPUs' links, and so is a copy staged
through host memory (both hops cross PCIe; pipelined, the slower one sets the pace). Anything
the topology does not say (``?``, no PCIe reading, an NVLink version without a figure below)
leaves the peak unknown: the matrix shows ``-`` rather than a guess.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpu_tui.core.devices.topology import Topology


@dataclass(frozen=True)
class Rate:
    """One NVLink's, or one PCIe lane's, bandwidth in one direction, and where it is stated."""

    gbps: float
    basis: str
    source: str


NVLINK_PAGE = "https://www.nvidia.com/en-us/data-center/nvlink/"
PASCAL_WHITEPAPER = (
    "https://images.nvidia.com/content/pdf/tesla/whitepaper/pascal-architecture-whitepaper.pdf"
)
NVLINK: dict[str, Rate] = {
    "1.0": Rate(20.0, "P100: 4 links, 160 GB/s both directions together", PASCAL_WHITEPAPER),
    "2.0": Rate(25.0, "V100: 6 links, 300 GB/s both directions together", NVLINK_PAGE),
    "3.0": Rate(25.0, "A100: 12 links, 600 GB/s both directions together", NVLINK_PAGE),
    "4.0": Rate(25.0, "H100: 18 links, 900 GB/s both directions together", NVLINK_PAGE),
    "5.0": Rate(50.0, "B200: 18 links, 1.8 TB/s both directions together", NVLINK_PAGE),
}
"""Per link, one direction, by the version NVML names (``devices.topology.NVLINK_VERSIONS``):
the per-GPU totals NVIDIA publishes, halved and divided by the links. NVML's 2.2 and 3.1 have
no figure here (unknown, not guessed). GeForce/RTX A-series boards (GA102) use narrower NVLink
3 links (14.0625 GB/s each way, GA102 whitepaper): on those the 3.0 figure overstates the peak."""

PCI_SIG = "https://pcisig.com/specifications"
PCIE: dict[int, Rate] = {
    1: Rate(2.5 * 8 / 10 / 8, "2.5 GT/s per lane, 8b/10b encoding", PCI_SIG),
    2: Rate(5.0 * 8 / 10 / 8, "5 GT/s per lane, 8b/10b encoding", PCI_SIG),
    3: Rate(8.0 * 128 / 130 / 8, "8 GT/s per lane, 128b/130b encoding", PCI_SIG),
    4: Rate(16.0 * 128 / 130 / 8, "16 GT/s per lane, 128b/130b encoding", PCI_SIG),
    5: Rate(32.0 * 128 / 130 / 8, "32 GT/s per lane, 128b/130b encoding", PCI_SIG),
    6: Rate(
        64.0 * 128 / 130 / 8,
        "64 GT/s per lane, counted like Gen3-5 (as core.bench.formulas.pcie_gbps does)",
        "https://pcisig.com/pci-express-6.0-specification",
    ),
}
"""Per lane, one direction: GT/s × the encoding's share / 8 bits (PCI Express Base
Specifications). The same figures as ``core.bench.formulas.pcie_gbps`` for Gen3 to Gen6."""

PCIE_LEVELS = frozenset({"INT", "PIX", "PXB", "PHB", "NODE", "SYS"})
"""``nvidia-smi topo -m`` relations that mean "PCIe only" between two GPUs."""

_PCIE = re.compile(r"Gen(\d+) x(\d+)")
_NV = re.compile(r"NV(\d+)")


@dataclass(frozen=True)
class LinkPeak:
    """The peak of one copy's link, one direction, and how it was found."""

    gbps: float
    text: str
    """E.g. ``NV18: 18 × 25 GB/s (NVLink 4.0)`` or ``PCIe Gen5 x16``."""
    source: str


def nvlink_peak(links: int, version: str | None) -> LinkPeak | None:
    rate = NVLINK.get(version or "")
    if rate is None or links < 1:
        return None
    text = f"NV{links}: {links} × {rate.gbps:g} GB/s (NVLink {version})"
    return LinkPeak(links * rate.gbps, text, rate.source)


def pcie_peak(link: str | None) -> LinkPeak | None:
    """From a GPU's PCIe link as the topology writes it (``Gen5 x16``, or ``Gen4 x16 (max Gen5
    x16)`` when it runs below its maximum): the maximum link's peak."""
    found = _PCIE.findall(link or "")
    if not found:
        return None
    generation, lanes = (int(v) for v in found[-1])  # the last one is the maximum when given
    rate = PCIE.get(generation)
    if rate is None or lanes < 1:
        return None
    return LinkPeak(lanes * rate.gbps, f"PCIe Gen{generation} x{lanes}", rate.source)


def _slower(a: LinkPeak | None, b: LinkPeak | None) -> LinkPeak | None:
    if a is None or b is None:
        return None
    return a if a.gbps <= b.gbps else b


def pair_peak(topology: Topology, src: int | None, dst: int | None, path: str) -> LinkPeak | None:
    """The peak of a copy along ``path`` (``p2p``, ``staged``, ``h2d``, ``d2h``) from topology row
    ``src`` to row ``dst`` (None for the host side of ``h2d``/``d2h``)."""
    gpus = topology.gpus
    if path == "h2d":
        return None if dst is None else pcie_peak(gpus[dst].pcie)
    if path == "d2h":
        return None if src is None else pcie_peak(gpus[src].pcie)
    if src is None or dst is None or src == dst:
        return None
    both = _slower(pcie_peak(gpus[src].pcie), pcie_peak(gpus[dst].pcie))
    if path == "staged":
        return both
    relation = topology.relation[src][dst]
    bonded = _NV.fullmatch(relation)
    if bonded:
        version = gpus[src].nvlink_version or gpus[dst].nvlink_version
        return nvlink_peak(int(bonded.group(1)), version)
    return both if relation in PCIE_LEVELS else None


def bus_key(text: object) -> tuple[int, int, int, int] | None:
    """A PCI bus id (``00000000:18:00.0``, ``0000:18:00.0``, any case) as numbers, so that
    torch's spelling and NVML's compare equal."""
    found = re.fullmatch(
        r"\s*(?:([0-9a-fA-F]+):)?([0-9a-fA-F]+):([0-9a-fA-F]+)\.([0-9a-fA-F]+)\s*", str(text)
    )
    if not found:
        return None
    domain, bus, device, function = found.groups()
    return int(domain or "0", 16), int(bus, 16), int(device, 16), int(function, 16)


def topology_rows(topology: Topology, environment: Mapping[str, Any] | None) -> dict[str, int]:
    """Which topology row each of the worker's devices is (``cuda:3`` → 5), matched by PCI bus
    id: torch numbers GPUs in its own order, and CUDA_VISIBLE_DEVICES may renumber them."""
    rows = {bus_key(g.bus_id): i for i, g in enumerate(topology.gpus) if bus_key(g.bus_id)}
    found: dict[str, int] = {}
    for record in (environment or {}).get("devices") or []:
        if not isinstance(record, Mapping):
            continue
        key = bus_key(record.get("pci_bus_id"))
        if key is not None and key in rows:
            found[str(record.get("device"))] = rows[key]
    return found
