"""A modelled copies run on an 8×H100 HGX node, as the worker would report it, and the run
document gpu-tui makes of it: ``tests/fixtures/bench/comm-copies-hgx-h100-8gpu.json``.

MODELLED, NOT MEASURED: no GPU ran this. The figures follow published measurements of HGX H100
8-GPU nodes (NVLink 4, 18 links per GPU through NVSwitch, PCIe Gen5 x16 to the host):

- P2P copies, 371-378 GB/s one direction per pair: the "Unidirectional P2P=Enabled Bandwidth
  (P2P Writes)" matrix of CUDA's p2pBandwidthLatencyTest on an HGX H100, posted in
  https://github.com/NVIDIA/nccl/issues/1264 (nvbandwidth's copy-engine figures are alike);
- without P2P, 36.3-38.1 GB/s: the "Unidirectional P2P=Disabled" matrix of the same post;
- host to and from a GPU, 52-55 GB/s: the range nvbandwidth reports for pinned copies over
  PCIe Gen5 x16 on H100 hosts (52.8 GB/s device to host in
  https://github.com/NVIDIA/nvbandwidth/issues/24), not one recorded run;
- latency of 4-byte copies (2.2-2.6 µs direct, 9-11 µs staged, about 2 µs to and from the
  host): illustrative, from no published run.

Each cell varies a little by pair (a fixed pseudo-random pattern), as a real run does. The
messages go through the comm runner's own handling, with nvidia-ml-py's own ``pynvml`` over the
simulated driver holding the recorded HGX node and its topology as NVML, so the document's % of
link peak and link names are gpu-tui's. Regenerate with ``python -m tests.fakes.copies_run``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.comm.copies import BANDWIDTH_BYTES, LATENCY_BYTES
from gpu_tui.core.comm.plan import Launch, build_comm_plan
from gpu_tui.core.comm.runner import CommRunner
from tests.fakes.simulated_driver import SimulatedLibrary, driver

FIXTURE = (
    Path(__file__).resolve().parent.parent / "fixtures" / "bench" / "comm-copies-hgx-h100-8gpu.json"
)
STARTED = "2026-11-20T14:02:11+0000"
FINISHED = "2026-11-20T14:03:02+0000"
GPUS = 8
NOTES = (
    "MODELLED, NOT MEASURED: an 8x H100 80GB HBM3 HGX copies run (gpu-tui bench --suite comm "
    "--only copies) made by tests/fakes/copies_run.py, whose docstring gives the published "
    "figures each cell is modelled on: P2P 371-378 GB/s and P2P disabled 36-38 GB/s from "
    "https://github.com/NVIDIA/nccl/issues/1264, host copies 52-55 GB/s as nvbandwidth reports "
    "for PCIe Gen5 x16 H100 hosts (https://github.com/NVIDIA/nvbandwidth/issues/24); latencies "
    "are illustrative."
)


HGX_READING = "hgx_h100_8gpu"
HGX_TOPOLOGY = ("hgx_h100_8gpu_topology",)
"""The recorded node, and the reading of its NVLink and PCIe topology merged over it: pass both
to ``simulated_nvml`` (``simulated_nvml(HGX_READING, add=HGX_TOPOLOGY)``)."""


@contextmanager
def hgx_nvml() -> Iterator[SimulatedLibrary]:
    """nvidia-ml-py's ``pynvml`` over a simulated driver of the recorded HGX node, for the block
    (tests use the ``simulated_nvml`` fixture with the readings above instead)."""
    with driver(HGX_READING, add=HGX_TOPOLOGY) as library:
        yield library


def _bus_id(devices: Sequence[Mapping[str, Any]], index: int) -> str:
    # as the worker writes it (sysinfo._pci_bus_id: lower-case hex), not as NVML does
    return str(devices[index]["pci_bus_id"]).lower()


def environment_message(devices: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The worker's environment message for the node whose recorded GPUs are ``devices`` (a
    simulated driver's ``library.devices``)."""
    cuda_devices = [
        {
            "device": f"cuda:{i}",
            "name": "NVIDIA H100 80GB HBM3",
            "vendor": "NVIDIA",
            "uuid": str(devices[i]["uuid"]).removeprefix("GPU-"),
            "pci_bus_id": _bus_id(devices, i),
            "compute_capability": "9.0",
            "sm_count": 132,
            "memory_total_bytes": 85520809984,
            "memory_free_bytes": 84630519808,
        }
        for i in range(GPUS)
    ]
    return {
        "type": "environment",
        "environment": {
            "python": "3.11.9",
            "torch_version": "2.13.0+cu130",
            "cuda_runtime_version": "13.0",
            "cuda_device_count": GPUS,
            "cpu_model": "Intel(R) Xeon(R) Platinum 8480C",
            "cpu_threads": 112,
            "devices": cuda_devices,
        },
    }


def _timing(seconds: float, spread: float) -> dict[str, Any]:
    return {
        "median_seconds": seconds,
        "p20_seconds": seconds * (1 - spread),
        "p80_seconds": seconds * (1 + spread),
        "best_seconds": seconds * (1 - 2 * spread),
        "iqr_over_median": 3 * spread,
        "repeats": 12,
        "calls_per_repeat": max(1, round(0.01 / seconds)),
        "cold_start_seconds": seconds * 1.8,
        "warmup_seconds": 0.025,
        "warmup_calls": max(2, round(0.025 / seconds)),
        "stop_reason": "budget",
        "timed_wall_seconds": 0.1,
        "method": "cuda-events-on-source-stream",
    }


def _result(path: str, src: str, dst: str, role: str, seconds: float) -> dict[str, Any]:
    size = BANDWIDTH_BYTES if role == "bandwidth" else LATENCY_BYTES
    return {
        "type": "result",
        "benchmark": "copies",
        "variant": path,
        "device": dst if src == "host" else src,
        "dtype": None,
        "params": {"src": src, "dst": dst, "bytes": size, "role": role},
        "timing": _timing(seconds, 0.004 if role == "bandwidth" else 0.02),
        "checks": {"ok": True, "wrong_bytes": 0, "bytes_checked": size},
        "warnings": [],
        "scope": "transfer",
        "ended_seconds_ago": 0.001,
    }


def result_messages() -> list[dict[str, Any]]:
    """Every copy, in the worker's order (copy_matrix.plan_points)."""
    draw = random.Random(20261120)
    names = [f"cuda:{i}" for i in range(GPUS)]
    pairs = [(s, d) for s in names for d in names if s != d]
    found = []
    for role in ("bandwidth", "latency"):

        def seconds(low: float, high: float, role: str = role) -> float:
            value = draw.uniform(low, high)
            if role == "bandwidth":  # GB/s → seconds per 256 MiB copy
                return BANDWIDTH_BYTES / (value * 1e9)
            return value * 1e-6  # µs

        if role == "bandwidth":
            p2p, staged, h2d, d2h = (371.0, 378.0), (36.3, 38.1), (53.6, 55.1), (52.2, 53.4)
        else:
            p2p, staged, h2d, d2h = (2.2, 2.6), (9.0, 11.0), (1.9, 2.1), (2.1, 2.4)
        found += [_result("p2p", s, d, role, seconds(*p2p)) for s, d in pairs]
        found += [_result("staged", s, d, role, seconds(*staged)) for s, d in pairs]
        for name in names:
            found.append(_result("h2d", "host", name, role, seconds(*h2d)))
            found.append(_result("d2h", name, "host", role, seconds(*d2h)))
    return found


def modelled_document() -> RunDocument:
    """The run document gpu-tui makes of the modelled messages (no process, no GPU)."""
    plan = build_comm_plan(Launch(nproc=GPUS), device="cuda", operations=["copies"])
    with hgx_nvml() as library:
        runner = CommRunner(plan, save=False, nvml=library.binding, telemetry=False)
        runner.document.started_at = STARTED
        for message in [environment_message(library.devices), *result_messages()]:
            for _ in runner._handle(json.dumps(message)):
                pass
    runner.document.finished = True
    runner.document.finished_at = FINISHED
    return runner.document


def main() -> None:
    data = modelled_document().to_dict()
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps({"_notes": NOTES, **data}, indent=1) + "\n")
    print(f"wrote {FIXTURE}")


if __name__ == "__main__":
    main()
