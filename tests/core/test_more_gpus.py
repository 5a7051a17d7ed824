"""gpu-tui over the recorded T4, V100, L4, A10G, GH200 and B200 readings and an HGX H100 job that
was not given one of the node's GPUs: the inventory names each model as its nvidia-smi -q dump
does, and the live session reads what the dump shows (the real ``pynvml`` over the simulated
driver; sources in each reading's ``_source``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from gpu_tui.core.check.findings import OK
from gpu_tui.core.check.run import run_check
from gpu_tui.core.devices import discover
from gpu_tui.core.devices.doctor import NOT_IN_JOB
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.model import Accelerator, NvLink
from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.devices.topology import numa_node
from gpu_tui.core.monitor.host_processes import HostProcess
from gpu_tui.core.monitor.samples import GpuSample, RemappedRows
from tests.conftest import SimulatedNvml

MIB = 1 << 20
Sample = Callable[..., GpuSample]
"""``sample(reading, index=0, *add)``: one live reading of that GPU."""


def gpus(simulated_nvml: SimulatedNvml, reading: str, *add: str) -> tuple[Accelerator, ...]:
    inventory = discover(nvml=simulated_nvml(reading, add=add).binding)
    assert inventory.backends["nvml"].available
    return inventory.accelerators


def nobody(pid: int) -> HostProcess:
    """A host that says nothing of any process (the readings' PIDs are not on this machine)."""
    missing = Unknown("not on this host")
    return HostProcess(missing, missing, missing, missing, missing)


@pytest.fixture
def sample(simulated_nvml: SimulatedNvml) -> Iterator[Sample]:
    """``sample(reading, index, *add)``: one live reading of that GPU (sessions closed after)."""
    sessions: list[NvmlSession] = []

    def read(reading: str, index: int = 0, *add: str) -> GpuSample:
        session = NvmlSession.open(simulated_nvml(reading, add=add).binding, process_lookup=nobody)
        sessions.append(session)
        return session.sample(index)

    yield read
    for session in sessions:
        session.close()


def test_a_t4_is_a_turing_card_with_its_datasheet_peaks_and_its_mps_server(
    simulated_nvml: SimulatedNvml, sample: Sample
) -> None:
    (t4,) = gpus(simulated_nvml, "tesla_t4")
    assert (t4.name, t4.architecture, t4.compute_capability) == ("Tesla T4", "Turing", "7.5")
    assert (t4.sm_count, t4.memory_total_bytes, t4.memory_bus_width_bits) == (40, 15360 * MIB, 256)
    assert t4.compute_mode == "Exclusive process"
    assert t4.ecc_enabled is True
    assert t4.mig_enabled == Unknown("not supported on this GPU or driver")
    assert t4.datasheet is not None
    assert t4.datasheet.fp32_tflops == 8.1
    live = sample("tesla_t4")
    assert isinstance(live.processes, tuple)
    assert [(p.pid, p.used_memory_bytes) for p in live.processes] == [(25384, 26 * MIB)]


def test_an_idle_t4_at_pcie_gen1_passes_the_link_check(simulated_nvml: SimulatedNvml) -> None:
    library = simulated_nvml("tesla_t4")
    report = run_check(
        nvml=library.binding,
        nvidia_present=lambda: True,
        kernel_log=lambda: {},
        torch_build=lambda: Unknown("torch is not installed"),
    )
    verdicts = {f.check: f.verdict for f in report.findings if f.gpu == 0}
    assert verdicts["pcie-link"] == OK  # Gen1 x16 of Gen3 x16 at P8: the link saves power
    assert verdicts["ecc"] == OK


def test_an_8x_v100_sxm2_node_reads_eight_volta_boards(
    simulated_nvml: SimulatedNvml, sample: Sample
) -> None:
    found = gpus(simulated_nvml, "v100_sxm2_8gpu")
    assert len(found) == 8
    assert {g.name for g in found} == {"Tesla V100-SXM2-16GB"}
    assert {(g.architecture, g.sm_count, g.memory_total_bytes) for g in found} == {
        ("Volta", 80, 16384 * MIB)
    }
    assert [g.pci_bus_id for g in found][::7] == ["00000000:00:04.0", "00000000:00:0B.0"]
    assert found[0].temperature_slowdown_c == 87
    assert found[0].peaks.fp32_tflops == pytest.approx(15.7, abs=0.05)
    live = sample("v100_sxm2_8gpu", 4)
    assert (live.memory_temperature_c, live.ecc_errors_corrected) == (35.0, 0)
    assert isinstance(live.remapped_rows, Unknown)  # Volta retires pages: no row remapper


def test_an_l4_is_ada_with_58_sms_a_192_bit_bus_and_its_reserved_memory_apart(
    simulated_nvml: SimulatedNvml, sample: Sample
) -> None:
    (l4,) = gpus(simulated_nvml, "nvidia_l4")
    assert (l4.architecture, l4.compute_capability, l4.sm_count) == ("Ada Lovelace", "8.9", 58)
    assert (l4.memory_total_bytes, l4.memory_bus_width_bits) == (23034 * MIB, 192)
    assert l4.peaks.memory_bandwidth_gb_per_second == pytest.approx(300.0, abs=0.1)
    assert (l4.pcie_generation_current, l4.pcie_width_current) == (1, 8)
    live = sample("nvidia_l4")
    assert (live.memory_used_bytes, live.memory_reserved_bytes) == (1 * MIB, 556 * MIB)


def test_an_a10g_serving_a_model_shows_its_memory_and_process_and_no_guessed_peaks(
    simulated_nvml: SimulatedNvml, sample: Sample
) -> None:
    (a10g,) = gpus(simulated_nvml, "nvidia_a10g")
    assert (a10g.name, a10g.architecture, a10g.compute_capability) == (
        "NVIDIA A10G",
        "Ampere",
        "8.6",
    )
    assert a10g.memory_total_bytes == 23028 * MIB
    assert a10g.persistence_mode is False
    assert isinstance(a10g.cuda_cores, Unknown)  # not in the dump: no core count invented
    assert isinstance(a10g.peaks.fp32_tflops, Unknown)
    live = sample("nvidia_a10g")
    assert live.memory_used_bytes == 8722 * MIB
    assert live.throttle_reasons == ()  # P0 at its 1710 MHz maximum: running free
    assert isinstance(live.processes, tuple)
    assert [(p.pid, p.used_memory_bytes) for p in live.processes] == [(3402470, 8716 * MIB)]


def test_a_gh200_numa_node_is_the_grace_cpu_s_while_its_memory_is_a_node_of_its_own(
    simulated_nvml: SimulatedNvml, sample: Sample
) -> None:
    (gh200,) = gpus(simulated_nvml, "gh200")
    assert (gh200.name, gh200.architecture) == ("NVIDIA GH200 480GB", "Hopper")
    assert gh200.memory_total_bytes == 97871 * MIB  # the HBM3; the LPDDR5X is host memory
    assert (gh200.power_limit_watts, gh200.power_limit_default_watts) == (700.0, 900.0)
    assert (gh200.pcie_generation_current, gh200.pcie_width_current) == (4, 1)  # NVLink-C2C
    nvml = simulated_nvml("gh200").binding
    nvml.nvmlInit()
    try:
        handle = nvml.nvmlDeviceGetHandleByIndex(0)
        assert nvml.nvmlDeviceGetNumaNodeId(handle) == 1  # the GPU memory's own NUMA node
        assert numa_node(nvml, handle, "00000000:DD:00.0") == 0  # nearest CPU memory: Grace
    finally:
        nvml.nvmlShutdown()
    live = sample("gh200")
    assert live.memory_temperature_c == 39.0
    assert live.remapped_rows == RemappedRows(0, 1, pending=False, failed=False)


def test_an_hgx_b200_node_is_blackwell_on_nvlink_5_across_two_numa_nodes(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("hgx_b200_8gpu")
    inventory = discover(nvml=library.binding)
    found = inventory.accelerators
    assert len(found) == 8
    assert {(g.architecture, g.compute_capability, g.sm_count) for g in found} == {
        ("Blackwell", "10.0", 148)
    }
    assert found[0].memory_total_bytes == 183359 * MIB
    assert found[0].nvlink == NvLink(active_links=18, max_links=18)
    assert isinstance(found[0].uuid, Unknown)  # the summary table shows no UUID
    assert found[0].datasheet is not None
    assert found[0].datasheet.product == "NVIDIA B200 (HGX)"
    assert found[0].peaks.memory_bandwidth_gb_per_second == pytest.approx(7672, abs=1)
    assert inventory.topology is not None
    links = inventory.topology.gpus
    assert [g.numa_node for g in links] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert (links[0].nvlink_version, links[0].to_switch) == ("5.0", 18)
    assert links[7].cpu_affinity == "56-111,168-223"


def test_a_gpu_outside_the_job_s_cgroup_is_not_in_the_job_and_not_lost(
    simulated_nvml: SimulatedNvml, sample: Sample
) -> None:
    found = gpus(simulated_nvml, "hgx_h100_8gpu", "hgx_h100_8gpu_cgroup")
    assert len(found) == 8  # NVML counts every GPU of the node
    assert found[3].name == "GPU 3: not in this job"
    assert found[3].lost is False
    assert found[3].memory_total_bytes == Unknown(NOT_IN_JOB)
    assert [g.name for g in found if g.index != 3] == ["NVIDIA H100 80GB HBM3"] * 7
    outside = sample("hgx_h100_8gpu", 3, "hgx_h100_8gpu_cgroup")
    assert (outside.not_in_job, outside.lost) == (True, False)
    inside = sample("hgx_h100_8gpu", 4, "hgx_h100_8gpu_cgroup")
    assert (inside.not_in_job, inside.temperature_c) == (False, 28.0)
