"""How the GPUs are connected, from NVML: each pair's ``nvidia-smi topo -m`` relation, NVLink
links (active, version, what each reaches), PCIe links, NUMA node and CPU affinity.

Read once, with the inventory, and only when NVML sees two GPUs or more. Every field fails soft:
a call the driver lacks or refuses leaves that field unknown (None, with the reason kept).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

T = TypeVar("T")

LEVELS = {0: "INT", 10: "PIX", 20: "PXB", 30: "PHB", 40: "NODE", 50: "SYS"}
"""nvmlGpuTopologyLevel_t → the label ``nvidia-smi topo -m`` prints for the PCIe path."""
LEGEND = {
    "X": "itself",
    "NV#": "a bonded set of # NVLinks (directly, or through NVSwitch)",
    "PIX": "at most one PCIe bridge",
    "PXB": "several PCIe bridges, no host bridge",
    "PHB": "PCIe and a PCIe host bridge (the CPU)",
    "NODE": "PCIe and the links between host bridges in one NUMA node",
    "SYS": "PCIe and the link between NUMA nodes (QPI/UPI, Infinity Fabric)",
    "INT": "the same board (an internal link)",
}
DEVICE_GPU, DEVICE_SWITCH = 0, 2  # nvmlIntNvLinkDeviceType_t
NVLINK_VERSIONS = {1: "1.0", 2: "2.0", 3: "2.2", 4: "3.0", 5: "3.1", 6: "4.0", 7: "5.0", 8: "6.0"}
"""nvmlNvlinkVersion_t (nvml.h); the generation named (NVLink 4 on Hopper, 5 on Blackwell)."""
MAX_LINKS = 18


@dataclass(frozen=True)
class GpuLinks:
    """One GPU's links to the others and to the host."""

    index: int
    bus_id: str | None
    nvlink_active: int | None
    nvlink_total: int | None
    nvlink_version: str | None
    to_switch: int = 0
    """Active links that end at an NVSwitch (every GPU on the switch fabric is reachable)."""
    to_gpu: dict[str, int] = field(default_factory=dict)
    """Active links that end at another GPU, by its PCI bus id."""
    pcie: str | None = None
    """``Gen5 x16`` now (``/ Gen5 x16`` max when the link runs below it)."""
    numa_node: int | None = None
    cpu_affinity: str | None = None
    """CPUs close to the GPU, as a list like ``0-47,96-143``."""


@dataclass(frozen=True)
class Topology:
    gpus: tuple[GpuLinks, ...]
    relation: tuple[tuple[str, ...], ...]
    """``relation[i][j]``: ``X``, ``NV18``, ``PIX`` … ``SYS``, or ``?`` when NVML did not say."""
    p2p: tuple[tuple[str, ...], ...]
    """``p2p[i][j]``: peer reads ``OK`` or why not (``nvidia-smi topo -p2p r``), ``X`` or ``?``."""
    problems: tuple[str, ...] = ()

    def matrix_text(self) -> str:
        """The relation matrix as ``nvidia-smi topo -m`` prints it, with NUMA and CPU columns."""
        heads = [f"GPU{g.index}" for g in self.gpus]
        lines = ["\t".join(["", *heads, "CPU Affinity", "NUMA Affinity"])]
        for gpu, row in zip(self.gpus, self.relation, strict=True):
            numa = "?" if gpu.numa_node is None else str(gpu.numa_node)
            cells = [f"GPU{gpu.index}", *row, gpu.cpu_affinity or "?", numa]
            lines.append("\t".join(cells))
        return "\n".join(lines)


def _int(nvml: ModuleType, name: str, *args: Any) -> int:
    return int(getattr(nvml, name)(*args))


def _try(call: Callable[[], T]) -> T | None:
    try:
        return call()
    except Exception:  # a field the driver lacks or refuses: unknown, never a crash
        return None


SYSFS_PCI = Path("/sys/bus/pci/devices")


def numa_node(nvml: ModuleType, handle: Any, bus_id: str | None) -> int | None:
    """The NUMA node of the CPU memory nearest the GPU, the "NUMA Affinity" of
    ``nvidia-smi topo -m``: from the GPU's memory affinity (node scope), else from sysfs.
    Not ``nvmlDeviceGetNumaNodeId``: that is the GPU's own memory node on a Grace system
    (GH200, GB200), and not supported on x86."""
    scope = getattr(nvml, "NVML_AFFINITY_SCOPE_NODE", 0)
    words = _try(lambda: list(nvml.nvmlDeviceGetMemoryAffinity(handle, 1, scope)))
    if words and int(words[0]):
        mask = int(words[0])
        return (mask & -mask).bit_length() - 1  # the lowest node in the set
    if bus_id is None:
        return None
    # sysfs names a device with a 4-digit PCI domain, NVML with 8: 0000:18:00.0
    text = _try(lambda: (SYSFS_PCI / bus_id.lower()[-12:] / "numa_node").read_text())
    node = _try(lambda: int(str(text)))
    return node if node is not None and node >= 0 else None  # -1: the platform has no NUMA


def _bus_id(nvml: ModuleType, handle: Any) -> str | None:
    info = _try(lambda: nvml.nvmlDeviceGetPciInfo(handle))
    bus = getattr(info, "busId", None)
    if isinstance(bus, bytes):
        bus = bus.decode()
    return str(bus).upper() if bus else None


def _remote_bus(nvml: ModuleType, handle: Any, link: int) -> str | None:
    for name in ("nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo"):
        function = getattr(nvml, name, None)
        if function is None:
            continue
        info = _try(partial(function, handle, link))
        bus = getattr(info, "busId", None)
        if isinstance(bus, bytes):
            bus = bus.decode()
        if bus:
            return str(bus).upper()
    return None


def cpu_list(masks: list[int], bits: int = 64) -> str:
    """CPU affinity words (``nvmlDeviceGetCpuAffinity``) as ranges: ``0-47,96-143``."""
    cpus = [w * bits + b for w, mask in enumerate(masks) for b in range(bits) if mask >> b & 1]
    ranges: list[str] = []
    start = previous = None
    for cpu in [*cpus, None]:
        if cpu is not None and previous is not None and cpu == previous + 1:
            previous = cpu
            continue
        if start is not None:
            ranges.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = cpu
    return ",".join(ranges)


def _links(nvml: ModuleType, handle: Any, index: int) -> GpuLinks:
    bus = _bus_id(nvml, handle)
    active = total = 0
    to_switch, version = 0, None
    to_gpu: dict[str, int] = {}
    for link in range(int(getattr(nvml, "NVML_NVLINK_MAX_LINKS", MAX_LINKS))):
        state = _try(partial(_int, nvml, "nvmlDeviceGetNvLinkState", handle, link))
        if state is None:
            break  # past the last link (or no NVLink at all)
        total += 1
        if state != 1:
            continue
        active += 1
        code = _try(partial(_int, nvml, "nvmlDeviceGetNvLinkVersion", handle, link))
        version = version or (NVLINK_VERSIONS.get(code) if code is not None else None)
        kind = _try(partial(_int, nvml, "nvmlDeviceGetNvLinkRemoteDeviceType", handle, link))
        if kind == DEVICE_SWITCH:
            to_switch += 1
            continue
        remote = _remote_bus(nvml, handle, link)
        if remote is not None and kind in (None, DEVICE_GPU):
            to_gpu[remote] = to_gpu.get(remote, 0) + 1
    now = (
        _try(lambda: nvml.nvmlDeviceGetCurrPcieLinkGeneration(handle)),
        _try(lambda: nvml.nvmlDeviceGetCurrPcieLinkWidth(handle)),
    )
    top = (
        _try(lambda: nvml.nvmlDeviceGetMaxPcieLinkGeneration(handle)),
        _try(lambda: nvml.nvmlDeviceGetMaxPcieLinkWidth(handle)),
    )
    pcie = None
    if None not in now:
        pcie = f"Gen{now[0]} x{now[1]}"
        if None not in top and top != now:
            pcie += f" (max Gen{top[0]} x{top[1]})"
    numa = numa_node(nvml, handle, bus)
    words = max(1, (1024 + 63) // 64)
    masks = _try(lambda: list(nvml.nvmlDeviceGetCpuAffinity(handle, words)))
    return GpuLinks(
        index=index,
        bus_id=bus,
        nvlink_active=active if total else None,
        nvlink_total=total or None,
        nvlink_version=version,
        to_switch=to_switch,
        to_gpu=to_gpu,
        pcie=pcie,
        numa_node=numa,
        cpu_affinity=cpu_list([int(m) for m in masks]) if masks else None,
    )


def _relation(nvml: ModuleType, handles: list[Any], gpus: list[GpuLinks], i: int, j: int) -> str:
    if i == j:
        return "X"
    a, b = gpus[i], gpus[j]
    direct = a.to_gpu.get(b.bus_id or "", 0)
    if direct:
        return f"NV{direct}"
    if a.to_switch and b.to_switch:
        return f"NV{min(a.to_switch, b.to_switch)}"
    level = _try(lambda: int(nvml.nvmlDeviceGetTopologyCommonAncestor(handles[i], handles[j])))
    return LEVELS.get(level, "?") if level is not None else "?"


P2P_WORDS = {0: "OK", 1: "CNS", 2: "GNS", 3: "TNS", 4: "DR", 5: "NS", 6: "U"}
"""``nvmlGpuP2PStatus_t`` as nvidia-smi ``topo -p2p r`` abbreviates it: chipset, GPU or IOH
topology not supported, disabled by registry key, not supported, unknown."""


def caps_index(nvml: ModuleType, name: str) -> int:
    """A ``NVML_P2P_CAPS_INDEX_*`` constant as the C call takes it. nvidia-ml-py defines
    ``NVML_P2P_CAPS_INDEX_READ`` as the tuple ``(0,)`` (a stray comma), which ctypes refuses to
    convert: every pair would read as unknown without ever reaching the driver."""
    value = getattr(nvml, name, 0)
    return int(value[0] if isinstance(value, tuple) else value)


def _p2p(nvml: ModuleType, handles: list[Any], i: int, j: int) -> str:
    if i == j:
        return "X"
    index = caps_index(nvml, "NVML_P2P_CAPS_INDEX_READ")
    status = _try(lambda: int(nvml.nvmlDeviceGetP2PStatus(handles[i], handles[j], index)))
    return "?" if status is None else P2P_WORDS.get(status, "U")


def read_topology(nvml: ModuleType) -> Topology | None:
    """The topology of every GPU NVML sees (NVML initialised by the caller); None for fewer
    than two GPUs, or when even the device list cannot be read."""
    count = _try(lambda: int(nvml.nvmlDeviceGetCount()))
    if count is None or count < 2:
        return None
    handles: list[Any] = []
    indices: list[int] = []
    problems: list[str] = []
    for index in range(count):
        handle = _try(partial(nvml.nvmlDeviceGetHandleByIndex, index))
        if handle is None:
            problems.append(f"GPU{index} did not answer: its row is left out")
            continue
        handles.append(handle)
        indices.append(index)
    if len(handles) < 2:
        return None
    gpus = [_links(nvml, h, i) for i, h in zip(indices, handles, strict=True)]
    size = range(len(handles))
    relation = tuple(tuple(_relation(nvml, handles, gpus, i, j) for j in size) for i in size)
    p2p = tuple(tuple(_p2p(nvml, handles, i, j) for j in size) for i in size)
    return Topology(tuple(gpus), relation, p2p, tuple(problems))
