"""A fixed fleet for the pane's tests and snapshots: no Prometheus, no clock."""

from __future__ import annotations

from gpu_tui.core.fleet.model import FleetGpu, FleetNode, FleetSnapshot, IdleGpu

AT = 1_800_000_000.0
GIB = 1024**3


def h100(node: str, index: int, util: float, **changes: object) -> FleetGpu:
    gpu = FleetGpu(
        node=node,
        gpu=str(index),
        model="NVIDIA H100 80GB HBM3",
        job="dcgm-exporter",
        utilization_percent=util,
        memory_used_bytes=int((10 + util * 0.6) * GIB),
        memory_total_bytes=80 * GIB,
        temperature_c=40 + util * 0.35,
        temperature_slowdown_c=87.0,
        power_watts=90 + util * 6,
        power_limit_watts=700.0,
        clock_event_reasons=0,
        xid_last=0,
        sample_time=AT - 2,
    )
    for name, value in changes.items():
        setattr(gpu, name, value)
    return gpu


def fleet_snapshot() -> FleetSnapshot:
    """Four DGX nodes of eight GPUs and one node that is down; one hot GPU with an XID, one
    power-capped, two idle while allocated."""
    nodes = []
    for n, utils in enumerate(
        (
            [97, 98, 96, 99, 97, 95, 98, 96],
            [0, 0, 64, 71, 58, 66, 0, 12],
            [100, 100, 100, 100, 100, 100, 100, 100],
            [3, 2, 0, 1, 0, 0, 0, 4],
        )
    ):
        name = f"dgx-h{n + 1:02d}"
        gpus = [h100(name, i, float(u)) for i, u in enumerate(utils)]
        nodes.append(FleetNode(name, [f"10.0.0.{n + 1}:9400"], True, AT - 1.5, gpus))
    nodes[1].gpus[0].pod, nodes[1].gpus[0].namespace = "jupyter-alice", "alice"
    nodes[2].gpus[5].temperature_c = 86.0
    nodes[2].gpus[5].xid_last = 79
    nodes[2].gpus[3].clock_event_reasons = 0x4
    nodes.append(FleetNode("dgx-h05", ["10.0.0.5:9400"], False, AT - 0.5, []))
    idle = [
        IdleGpu("dgx-h02", "0", 0.0, "dcgm-exporter", "alice", "jupyter-alice", "notebook"),
        IdleGpu("dgx-h02", "1", 0.0, "dcgm-exporter"),
    ]
    return FleetSnapshot(
        prometheus="http://prometheus.example:9090",
        time=AT,
        selector="",
        idle_window="900s",
        nodes=nodes,
        idle_while_allocated=idle,
        query_seconds=0.042,
    )
