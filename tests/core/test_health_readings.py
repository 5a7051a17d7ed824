"""What a GPU says beyond GPU-Util, read by the live session over the real ``pynvml`` and the
simulated driver: GPM activity (Hopper and newer), NVLink traffic, HBM temperature, energy,
memory health (remapped rows, corrected ECC, PCIe replays) and XID errors."""

from __future__ import annotations

import time

import pytest

from gpu_tui.core.devices import nvml_pcie
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.devices.nvml_gpm import FIRST, NO_GPM, NOT_SUPPORTED
from gpu_tui.core.monitor.samples import Activity, RemappedRows
from tests.conftest import SimulatedNvml

TRAINING = ("hgx_h100_8gpu_training",)


def test_a_training_h100_shows_what_its_tensor_cores_and_links_really_do(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("hgx_h100_8gpu", add=TRAINING)
    session = NvmlSession.open(library.binding)
    first = session.sample(0)
    assert first.activity == Unknown(FIRST)  # GPM compares two samples
    assert isinstance(first.nvlink_tx_bytes_per_second, Unknown)
    time.sleep(0.05)
    second = session.sample(0)
    assert second.utilization_percent == 100.0
    assert isinstance(second.activity, Activity)
    assert second.activity.tensor_percent == pytest.approx(41.7)
    assert second.activity.sm_active_percent == pytest.approx(86.5)
    assert second.activity.dram_percent == pytest.approx(52.3)
    # 117,000,000 KiB/s recorded: the counters' growth over the time between two readings
    assert second.nvlink_tx_bytes_per_second == pytest.approx(117e6 * 1024, rel=0.15)
    assert second.nvlink_rx_bytes_per_second == pytest.approx(116.5e6 * 1024, rel=0.15)
    assert second.memory_temperature_c == 70.0
    assert second.energy_millijoules == 9_512_000_000
    assert second.remapped_rows == RemappedRows(0, 0, pending=False, failed=False)
    assert (second.ecc_errors_corrected, second.pcie_replay_count, second.last_xid) == (0, 0, 0)
    session.close()


def test_an_xid_is_kept_as_that_gpu_s_last_until_another_comes(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("hgx_h100_8gpu")
    session = NvmlSession.open(library.binding)
    assert [session.sample(i).last_xid for i in range(8)] == [0] * 8
    library.raise_xid(3, 79)  # fell off the bus
    library.raise_xid(5, 48)
    library.raise_xid(5, 94)
    assert [session.sample(i).last_xid for i in range(8)] == [0, 0, 0, 79, 0, 94, 0, 0]
    assert session.sample(3).last_xid == 79  # kept: dcgm-exporter shows the last one too
    session.close()
    assert "nvmlEventSetFree" in library.calls


def test_where_a_reading_does_not_exist_it_says_why(simulated_nvml: SimulatedNvml) -> None:
    """An A100 has no GPM; a GeForce has no HBM, no remapping and may refuse XID events; a
    driver from before GPM has none of its calls."""
    a100 = NvmlSession.open(simulated_nvml("a100_80gb_pcie_mig").binding)
    assert a100.sample(0).activity == Unknown(NOT_SUPPORTED)
    a100.close()
    library = simulated_nvml("geforce_rtx4090")
    library.devices[0]["xid_events"] = False
    geforce = NvmlSession.open(library.binding)
    reading = geforce.sample(0)
    assert isinstance(reading.memory_temperature_c, Unknown)
    assert isinstance(reading.remapped_rows, Unknown)
    assert isinstance(reading.last_xid, Unknown)
    assert reading.last_xid.reason.startswith("XID events: ")
    geforce.close()
    old = NvmlSession.open(simulated_nvml("hgx_h100_8gpu", "r470", add=TRAINING).binding)
    assert old.sample(0).activity == Unknown(NO_GPM)
    old.close()


def test_pcie_traffic_is_read_apart_so_a_stuck_pcie_call_holds_no_tick(
    simulated_nvml: SimulatedNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(nvml_pcie, "EVERY_SECONDS", 0.02)
    monkeypatch.setattr(nvml_pcie, "STALE_AFTER_SECONDS", 0.3)
    library = simulated_nvml("hgx_h100_8gpu", add=TRAINING)
    session = NvmlSession.open(library.binding)
    try:
        assert session.sample(0).pcie_rx_bytes_per_second == 2_400_000 * 1024
        asked = library.called("nvmlDeviceGetPcieThroughput")
        session.sample(0)
        assert library.called("nvmlDeviceGetPcieThroughput") - asked < 16  # not per reading
        library.hang("nvmlDeviceGetPcieThroughput")
        time.sleep(0.5)
        reading = session.sample(0)
        assert reading.utilization_percent == 100.0  # the rest of the tick is fresh
        assert isinstance(reading.pcie_rx_bytes_per_second, Unknown)
        assert "has not answered PCIe traffic" in reading.pcie_rx_bytes_per_second.reason
    finally:
        library.release()
        session.close()
