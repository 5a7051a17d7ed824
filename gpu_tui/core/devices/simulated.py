"""The ``--demo`` accelerator: a clearly labelled SIMULATED H100 SXM with a training-like load."""

from __future__ import annotations

import math

from gpu_tui.core.devices.catalog import match_datasheet
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.model import Accelerator, NvLink
from gpu_tui.core.devices.peaks import gpu_peaks
from gpu_tui.core.monitor.samples import Activity, GpuProcess, GpuSample, RemappedRows

# Modelled on a real H100 SXM (recorded in tests/fakes/nvml_readings/hgx_h100_8gpu.json):
# 132 SMs × 128 cores, 1980 MHz SM, 2619 MHz HBM3 on 5120 bits, 700 W.
MODEL_NAME = "NVIDIA H100 80GB HBM3"
SM_COUNT = 132
MAX_SM_MHZ = 1980
MAX_MEM_MHZ = 2619
BUS_BITS = 5120
POWER_LIMIT_W = 700.0
IDLE_W = 90.0
MEMORY_TOTAL = 81559 * 1024 * 1024
SLOWDOWN_C = 87.0
AVERAGE_W = 640.0
"""The demo load's mean draw over a training cycle (capped steps and pauses): its energy."""

# The synthetic workload (seconds): training steps with a periodic evaluation/checkpoint pause.
STEP_S = 2.0
CYCLE_S = 30.0
PAUSE_S = 3.0
WARMUP_S = 5.0
_NO_FAN = "SXM modules have no fan of their own; the chassis cools them"


def simulated_name(index: int) -> str:
    return f"{MODEL_NAME} (SIMULATED #{index})"


def simulated_accelerator(index: int = 0) -> Accelerator:
    """A SIMULATED H100 SXM; its peaks come from ``gpu_peaks`` like a real GPU's."""
    cc = "9.0"
    return Accelerator(
        index=index,
        name=simulated_name(index),
        vendor="NVIDIA",
        backend="simulated",
        simulated=True,
        uuid="GPU-00000000-0000-0000-0000-5130dea70000",
        pci_bus_id=Unknown("simulated device: no PCI bus"),
        architecture="Hopper",
        compute_capability=cc,
        sm_count=SM_COUNT,
        cuda_cores=SM_COUNT * 128,
        memory_total_bytes=MEMORY_TOTAL,
        memory_bus_width_bits=BUS_BITS,
        max_sm_clock_mhz=MAX_SM_MHZ,
        max_memory_clock_mhz=MAX_MEM_MHZ,
        power_limit_default_watts=POWER_LIMIT_W,
        power_limit_watts=POWER_LIMIT_W,
        pcie_generation_current=5,
        pcie_generation_max=5,
        pcie_width_current=16,
        pcie_width_max=16,
        ecc_enabled=True,
        mig_enabled=False,
        persistence_mode=True,
        compute_mode="Default",
        temperature_slowdown_c=int(SLOWDOWN_C),
        temperature_shutdown_c=95,
        temperature_max_operating_c=87,
        vbios_version="SIMULATED",
        nvlink=NvLink(active_links=18, max_links=18),
        peaks=gpu_peaks(
            vendor="NVIDIA",
            name=MODEL_NAME,
            compute_capability=cc,
            sm_count=SM_COUNT,
            max_sm_clock_mhz=MAX_SM_MHZ,
            max_memory_clock_mhz=MAX_MEM_MHZ,
            memory_bus_width_bits=BUS_BITS,
        ),
        datasheet=match_datasheet(MODEL_NAME),
    )


def utilization(t: float) -> float:
    """GPU busy % at time ``t``: warm-up ramp, training waves, then a pause every cycle."""
    if t < 0:
        return 0.0
    if t < WARMUP_S:
        return 95.0 * t / WARMUP_S
    if t % CYCLE_S >= CYCLE_S - PAUSE_S:
        return 8.0  # evaluation / checkpoint: the GPU waits on the host
    return 96.0 + 3.0 * math.sin(2 * math.pi * t / STEP_S)


def power_demand(t: float) -> float:
    """Watts the load would draw if nothing capped it (above the limit at full load)."""
    return IDLE_W + 7.0 * utilization(t)


_LAG_WEIGHTS = tuple(math.exp(-k / 20.0) for k in range(60))
"""How much the power of each past second counts in the temperature (a ~20 s lag)."""


def temperature(t: float) -> float:
    """GPU °C: follows power with a ~20 s lag (an exponentially weighted past, computed afresh)."""
    past = [min(power_demand(t - k), POWER_LIMIT_W) for k in range(len(_LAG_WEIGHTS))]
    smoothed = sum(w * p for w, p in zip(_LAG_WEIGHTS, past, strict=True)) / sum(_LAG_WEIGHTS)
    return 32.0 + 45.0 * (smoothed - IDLE_W) / (POWER_LIMIT_W - IDLE_W)


def simulated_sample(index: int, t: float) -> GpuSample:
    """Synthetic readings at ``t`` seconds into the demo; the same ``t`` gives the same sample."""
    util = utilization(t)
    demand = power_demand(t)
    capped = demand > POWER_LIMIT_W
    # Under the power cap the clock drops roughly in proportion to the excess dynamic power.
    sm_clock = MAX_SM_MHZ * (POWER_LIMIT_W - IDLE_W) / (demand - IDLE_W) if capped else MAX_SM_MHZ
    if util < 20:
        sm_clock = 345.0 if util < 1 else 1410.0
    step_phase = (t % STEP_S) / STEP_S
    loading = util > 20 and step_phase < 0.1  # input batch copied at the start of each step
    memory_used = int(MEMORY_TOTAL * (0.05 if t < 0 else min(0.78, 0.05 + 0.146 * max(t, 0))))
    reasons: tuple[str, ...] = ("power cap",) if capped else ()
    if util < 1:
        reasons = ("idle",)
    return GpuSample(
        index=index,
        utilization_percent=round(util, 1),
        memory_utilization_percent=round(util * 0.42, 1),
        memory_used_bytes=memory_used,
        memory_total_bytes=MEMORY_TOTAL,
        temperature_c=round(temperature(t), 1),
        temperature_slowdown_c=SLOWDOWN_C,
        power_watts=round(min(demand, POWER_LIMIT_W), 1),
        power_limit_watts=POWER_LIMIT_W,
        sm_clock_mhz=round(sm_clock),
        max_sm_clock_mhz=float(MAX_SM_MHZ),
        memory_clock_mhz=float(MAX_MEM_MHZ),
        max_memory_clock_mhz=float(MAX_MEM_MHZ),
        fan_percent=Unknown(_NO_FAN),
        pcie_rx_bytes_per_second=24e9 if loading else 0.3e9,
        pcie_tx_bytes_per_second=0.2e9,
        encoder_percent=0.0,
        decoder_percent=0.0,
        ecc_errors_uncorrected=0,
        throttle_reasons=reasons,
        processes=(
            GpuProcess(
                pid=4242,
                kind="compute",
                used_memory_bytes=memory_used - 512 * 1024 * 1024 if t > 1 else 0,
                sm_percent=round(util, 1),
                user="demo",
                command="python train.py --model llama-3.1-8b (SIMULATED)",
            ),
        ),
        simulated=True,
        memory_temperature_c=round(temperature(t) + 6.0, 1),
        energy_millijoules=int(1000 * AVERAGE_W * max(t, 0.0)),
        ecc_errors_corrected=0,
        pcie_replay_count=0,
        remapped_rows=RemappedRows(0, 0, pending=False, failed=False),
        last_xid=0,
        nvlink_rx_bytes_per_second=118e9 * util / 100 if not loading else 2e9,
        nvlink_tx_bytes_per_second=117e9 * util / 100 if not loading else 2e9,
        activity=simulated_activity(util),
    )


def simulated_activity(util: float) -> Activity:
    """GPM's view of the demo's training step: busy SMs, tensor cores under half the time."""
    return Activity(
        graphics_engine_percent=round(util, 1),
        sm_active_percent=round(util * 0.87, 1),
        sm_occupancy_percent=round(util * 0.33, 1),
        tensor_percent=round(util * 0.42, 1),
        dram_percent=round(util * 0.55, 1),
        fp64_percent=0.0,
        fp32_percent=round(util * 0.09, 1),
        fp16_percent=round(util * 0.03, 1),
    )
