"""The passive checks of one GPU: what its inventory and a live reading say, against what they
should be. No load is put on the GPU; each check is one ``Finding``."""

from __future__ import annotations

from collections.abc import Callable

from gpu_tui.core.check import xid as xids
from gpu_tui.core.check.findings import FAIL, OK, SKIP, WARN, Finding
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.model import Accelerator
from gpu_tui.core.monitor.samples import GpuSample, RemappedRows

BUSY_PERCENT = 10.0
"""Above this utilisation a PCIe link should be at its top generation (it drops at idle)."""
HOT_MARGIN_C = 5.0
"""Within this of the slowdown temperature is a warning."""
LOWERED_POWER = 0.95
"""An enforced power limit under this share of the default one has been lowered."""
SLOWING = {
    "software thermal slowdown",
    "hardware thermal slowdown",
    "hardware slowdown",
    "hardware power brake",
}
"""Clock-event reasons that mean the GPU is being slowed by heat or its board, not by choice."""
LIMITING = {"board limit", "reliability limit"}

Check = Callable[[Accelerator, GpuSample], Finding]


def _finding(
    check: str, verdict: str, reading: str, *, expected: str = "", why: str = "", fix: str = ""
) -> Finding:
    return Finding(check, verdict, reading, expected, why, fix)


def pcie_link(gpu: Accelerator, now: GpuSample) -> Finding:
    gen, gen_max = gpu.pcie_generation_current, gpu.pcie_generation_max
    width, width_max = gpu.pcie_width_current, gpu.pcie_width_max
    if any(isinstance(v, Unknown) for v in (gen, gen_max, width, width_max)):
        return _finding("pcie-link", SKIP, "not reported", why="the driver gives no link state")
    reading, expected = f"Gen{gen} x{width}", f"Gen{gen_max} x{width_max}"
    busy = now.utilization_percent
    loaded = isinstance(busy, float) and busy > BUSY_PERCENT
    if width < width_max:  # type: ignore[operator]
        lanes = f"on {width} of its {width_max} lanes: host↔GPU copies are that much slower"
        if not loaded:  # some boards narrow an idle link too (ASPM); only a busy one is a fault
            return _finding(
                "pcie-link",
                WARN,
                reading + " at idle",
                expected=expected,
                why=lanes + " if it stays so under load",
                fix="check again while the GPU is busy (gpu-tui check --quick does)",
            )
        return _finding(
            "pcie-link",
            FAIL,
            reading,
            expected=expected,
            why=lanes,
            fix="reseat the GPU or its riser, check the slot's BIOS lane setting (on a cloud "
            "instance: report it to the provider)",
        )
    if gen < gen_max and loaded:  # type: ignore[operator]
        return _finding(
            "pcie-link",
            FAIL,
            reading,
            expected=expected,
            why="below its top generation while busy",
            fix="check the slot and riser; set the slot's PCIe generation to Auto in the BIOS",
        )
    if gen < gen_max:  # type: ignore[operator]
        reading += f" at idle (links drop generation to save power; Gen{gen_max} under load)"
    return _finding("pcie-link", OK, reading, expected=expected)


def nvlink(gpu: Accelerator, now: GpuSample) -> Finding:
    links = gpu.nvlink
    if isinstance(links, Unknown):  # no NVLink, or a driver that does not say: not the same
        return _finding("nvlink", SKIP, "not reported", why=links.reason)
    reading = f"{links.active_links} of {links.max_links} links up"
    if links.active_links < links.max_links:
        return _finding(
            "nvlink",
            FAIL,
            reading,
            expected=f"{links.max_links} of {links.max_links}",
            why="a link trained down: GPU-to-GPU traffic is slower and may fall back to PCIe",
            fix="reset the GPU; check the NVLink bridge or baseboard and the fabric manager",
        )
    return _finding("nvlink", OK, reading)


def ecc(gpu: Accelerator, now: GpuSample) -> Finding:
    enabled, uncorrected = gpu.ecc_enabled, now.ecc_errors_uncorrected
    corrected = now.ecc_errors_corrected
    if isinstance(enabled, Unknown):
        return _finding("ecc", OK, "this GPU has no ECC (GeForce and workstation boards)")
    if not enabled and gpu.name.startswith("NVIDIA GeForce"):
        return _finding("ecc", OK, "off (as GeForce cards ship; their memory is not ECC-checked)")
    if not enabled:
        return _finding(
            "ecc",
            WARN,
            "off",
            expected="on",
            why="memory errors go unnoticed",
            fix="nvidia-smi -e 1 (as root), then reboot",
        )
    counts = f"{uncorrected} uncorrected" if isinstance(uncorrected, int) else "uncorrected unknown"
    if isinstance(corrected, int):
        counts += f", {corrected} corrected"
    if isinstance(uncorrected, int) and uncorrected > 0:
        return _finding(
            "ecc",
            FAIL,
            f"on, {counts} since the driver loaded",
            expected="0 uncorrected",
            why="memory returned wrong data to a program",
            fix="reset the GPU (nvidia-smi -r); RMA if it comes back",
        )
    return _finding("ecc", OK, f"on, {counts} since the driver loaded")


def remapped_rows(gpu: Accelerator, now: GpuSample) -> Finding:
    rows = now.remapped_rows
    if not isinstance(rows, RemappedRows):
        return _finding("remapped-rows", SKIP, "not reported", why=str(rows.reason))
    reading = (
        f"rows remapped: {rows.correctable} for correctable, "
        f"{rows.uncorrectable} for uncorrectable errors"
    )
    if rows.failed:
        return _finding(
            "remapped-rows",
            FAIL,
            reading + "; remapping FAILED",
            why="the GPU ran out of spare memory rows",
            fix="the GPU needs repair: return it to the vendor (RMA)",
        )
    if rows.pending:
        return _finding(
            "remapped-rows",
            FAIL,
            reading + "; a remap is pending",
            expected="none pending",
            why="a bad memory row is replaced only at the next GPU reset; until then it is used",
            fix="stop new jobs on this node (drain it), then reset the GPU (nvidia-smi -r) or "
            "reboot",
        )
    return _finding("remapped-rows", OK, reading + "; none pending")


def clocks(gpu: Accelerator, now: GpuSample) -> Finding:
    reasons = now.throttle_reasons
    if isinstance(reasons, Unknown):
        return _finding("clocks", SKIP, "reasons not reported", why=reasons.reason)
    slowed = sorted(SLOWING & set(reasons))
    if slowed:
        return _finding(
            "clocks",
            FAIL,
            "held back: " + ", ".join(slowed),
            expected="running free, or held at the power cap",
            why="heat or the board is slowing the GPU: it delivers less than it should",
            fix="check the cooling (fans, airflow, inlet temperature) and the power supply",
        )
    limited = sorted(LIMITING & set(reasons))
    if limited:
        return _finding(
            "clocks",
            WARN,
            "held back: " + ", ".join(limited),
            why="the board limits the clocks",
            fix="check the board's power and firmware",
        )
    return _finding(
        "clocks", OK, ", ".join(reasons) or "running free (nothing holds the clocks back)"
    )


def temperature(gpu: Accelerator, now: GpuSample) -> Finding:
    temp, slowdown = now.temperature_c, now.temperature_slowdown_c
    if isinstance(temp, Unknown):
        return _finding("temperature", SKIP, "not reported", why=temp.reason)
    if isinstance(slowdown, Unknown):
        return _finding("temperature", OK, f"{temp:.0f} °C (no slowdown threshold reported)")
    reading = f"{temp:.0f} °C, slows down at {slowdown:.0f} °C"
    if temp >= slowdown:
        verdict, why = FAIL, "at its slowdown temperature: the clocks are being cut"
    elif temp >= slowdown - HOT_MARGIN_C:
        verdict, why = WARN, f"within {HOT_MARGIN_C:.0f} °C of slowing down"
    else:
        return _finding("temperature", OK, reading)
    return _finding(
        "temperature",
        verdict,
        reading,
        expected=f"below {slowdown - HOT_MARGIN_C:.0f} °C",
        why=why,
        fix="check the cooling (fans, airflow, inlet temperature)",
    )


def power_limit(gpu: Accelerator, now: GpuSample) -> Finding:
    limit, default = gpu.power_limit_watts, gpu.power_limit_default_watts
    if isinstance(limit, Unknown) or isinstance(default, Unknown):
        return _finding("power-limit", SKIP, "not reported", why="the driver gives no limit")
    reading = f"{limit:.0f} W"
    if limit < default * LOWERED_POWER:
        return _finding(
            "power-limit",
            WARN,
            reading + f" of its {default:.0f} W default",
            expected=f"{default:.0f} W",
            why="under full load it runs slower (lowered by hand, or held by the board's "
            "power budget, as on Grace Hopper where CPU and GPU share one)",
            fix=f"if it was lowered by hand: nvidia-smi -pl {default:.0f} (as root)",
        )
    return _finding("power-limit", OK, reading)


def persistence(gpu: Accelerator, now: GpuSample) -> Finding:
    mode = gpu.persistence_mode
    if isinstance(mode, Unknown):
        return _finding("persistence", OK, "not applicable here")
    if not mode:
        return _finding(
            "persistence",
            WARN,
            "off",
            expected="on",
            why="the driver unloads between jobs: each job's first call is slower",
            fix="run nvidia-persistenced (or nvidia-smi -pm 1)",
        )
    return _finding("persistence", OK, "on")


def mig(gpu: Accelerator, now: GpuSample) -> Finding:
    enabled = gpu.mig_enabled
    if isinstance(enabled, Unknown):
        return _finding("mig", OK, "not available on this GPU")
    if enabled:
        return _finding("mig", OK, f"on, {len(gpu.mig_devices)} instances")
    return _finding("mig", OK, "off")


PASSIVE: tuple[Check, ...] = (
    pcie_link,
    nvlink,
    ecc,
    remapped_rows,
    clocks,
    temperature,
    power_limit,
    persistence,
    mig,
)


def xid_finding(gpu: Accelerator, now: GpuSample, kernel: dict[str, list[int]] | str) -> Finding:
    """The XIDs of this GPU: seen while checking (NVML events) and in the kernel log."""
    seen: list[int] = []
    if isinstance(now.last_xid, int) and now.last_xid:
        seen.append(now.last_xid)
    where = "kernel log: " + kernel if isinstance(kernel, str) else "none in the kernel log"
    if isinstance(kernel, dict) and isinstance(gpu.pci_bus_id, str):
        logged = kernel.get(gpu.pci_bus_id[-12:-2].lower(), [])
        seen += logged
        if logged:
            where = f"in the kernel log: {', '.join(map(str, logged))}"
    if not seen:
        return _finding("xid", OK, f"none while checking; {where}")
    worst = max(seen, key=lambda code: xids.meaning(code)[0] == FAIL)
    verdict, means, fix = xids.meaning(worst)
    return _finding(
        "xid",
        verdict,
        f"XID {worst}: {means}" + ("" if len(set(seen)) == 1 else f"; seen: {sorted(set(seen))}"),
        expected="none",
        why="the driver reported a GPU fault",
        fix=fix,
    )


def gpu_findings(
    gpu: Accelerator, now: GpuSample, kernel: dict[str, list[int]] | str
) -> list[Finding]:
    """Every passive check of one GPU, in the order they are printed."""
    if now.lost:
        reason = now.utilization_percent
        return [
            Finding(
                "openable",
                FAIL,
                "not answering the driver",
                expected="answering",
                why="it fell off the bus or hung"
                + (f" (the driver says: {reason.reason})" if isinstance(reason, Unknown) else ""),
                fix="power-cycle the node; reseat or RMA the GPU if it stays lost",
                gpu=gpu.index,
            )
        ]
    if now.not_in_job:
        return [
            Finding(
                "openable",
                SKIP,
                "outside this job's GPUs",
                why="the job scheduler gave this job other GPUs (its cgroup), so it was not "
                "checked",
                gpu=gpu.index,
            )
        ]
    found = [check(gpu, now) for check in PASSIVE] + [xid_finding(gpu, now, kernel)]
    return [
        Finding(f.check, f.verdict, f.reading, f.expected, f.why, f.fix, gpu=gpu.index)
        for f in found
    ]
