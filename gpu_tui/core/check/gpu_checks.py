"""The passive checks of one GPU: what its inventory and a live reading say, against what they
should be. No load is put on the GPU; each check is one ``Finding``."""

from __future__ import annotations

from collections.abc import Callable

from gpu_tui.core.check import xid as xids
from gpu_tui.core.check.findings import FAIL, OK, SKIP, WARN, Finding
from gpu_tui.core.check.nvml_health import DeviceHealth
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.model import Accelerator
from gpu_tui.core.monitor.samples import GpuSample, RemappedRows
from gpu_tui.core.units import format_temperature, format_temperature_difference

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
RETIRED_PAGES_FAIL = 60
RETIRED_PAGES_WARN = 15
"""DCGM's diagnostic fails a GPU from 60 retired pages and warns from 15
(DCGM_LIMIT_MAX_RETIRED_PAGES and its soft limit, dcgm_gpu_hardware_limits.h in
https://github.com/NVIDIA/DCGM)."""
NOT_READ = Unknown("not read: the driver did not answer in time")
UNREAD = DeviceHealth(NOT_READ, NOT_READ, NOT_READ)
"""A GPU whose health readings could not be taken: those checks say so instead of passing."""

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
        reading = f"{format_temperature(temp)} (no slowdown threshold reported)"
        return _finding("temperature", OK, reading)
    reading = f"{format_temperature(temp)}, slows down at {format_temperature(slowdown)}"
    if temp >= slowdown:
        verdict, why = FAIL, "at its slowdown temperature: the clocks are being cut"
    elif temp >= slowdown - HOT_MARGIN_C:
        margin = format_temperature_difference(HOT_MARGIN_C)
        verdict, why = WARN, f"within {margin} of slowing down"
    else:
        return _finding("temperature", OK, reading)
    return _finding(
        "temperature",
        verdict,
        reading,
        expected=f"below {format_temperature(slowdown - HOT_MARGIN_C)}",
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


def mig(gpu: Accelerator, health: DeviceHealth) -> Finding:
    enabled = gpu.mig_enabled
    if isinstance(enabled, Unknown):
        return _finding("mig", OK, "not available on this GPU")
    reading = f"on, {len(gpu.mig_devices)} instances" if enabled else "off"
    pending = health.mig_pending
    if isinstance(pending, bool) and pending != enabled:
        return _finding(
            "mig",
            WARN,
            f"{reading}; {'on' if pending else 'off'} after the next GPU reset",
            expected="no change waiting",
            why="a MIG mode change was asked for and waits for a reset: jobs see the old mode",
            fix=f"stop the GPU's processes and reset it (nvidia-smi -r -i {gpu.index}), or reboot",
        )
    return _finding("mig", OK, reading)


def fabric(gpu: Accelerator, health: DeviceHealth) -> Finding:
    """The NVSwitch fabric (HGX and DGX with NVSwitch): fabric manager registers each GPU."""
    state = health.fabric
    if state == NOT_READ:
        return _finding("fabric", SKIP, "not read", why=NOT_READ.reason)
    if isinstance(state, Unknown) or state.state == "not supported":
        return _finding("fabric", OK, "no NVSwitch fabric reported")
    if state.state == "completed" and state.status == "Success":
        return _finding("fabric", OK, "registered with the NVSwitch fabric")
    if state.state == "completed":
        return _finding(
            "fabric",
            FAIL,
            f"registration failed: {state.status}",
            expected="completed, Success",
            why="the GPU is not on the NVSwitch fabric: CUDA jobs fail or run without NVLink",
            fix="journalctl -u nvidia-fabricmanager for the cause; restart it, then reset the GPUs",
        )
    return _finding(
        "fabric",
        WARN if state.state == "in progress" else FAIL,
        state.state,
        expected="completed",
        why="fabric manager has not registered the GPU with the NVSwitch fabric: CUDA cannot "
        "use it until it has",
        fix="systemctl start nvidia-fabricmanager (its version must match the driver's)"
        if state.state == "not started"
        else "wait a minute; if it stays, restart nvidia-fabricmanager",
    )


def retired_pages(gpu: Accelerator, health: DeviceHealth) -> Finding:
    """Page retirement, on GPUs before the A100 (which remap rows instead)."""
    pages = health.retired_pages
    if pages == NOT_READ:
        return _finding("retired-pages", SKIP, "not read", why=NOT_READ.reason)
    if isinstance(pages, Unknown):
        return _finding(
            "retired-pages",
            OK,
            "not reported (the A100 and newer remap rows instead; GPUs without ECC do neither)",
        )
    total = pages.single_bit + pages.double_bit
    reading = f"{total} retired ({pages.double_bit} for double-bit errors)"
    if total >= RETIRED_PAGES_FAIL:
        return _finding(
            "retired-pages",
            FAIL,
            reading,
            expected=f"under {RETIRED_PAGES_FAIL}",
            why="the GPU is close to the most pages it can retire: its memory is failing",
            fix="drain the node and RMA the GPU",
        )
    if pages.pending is True:
        return _finding(
            "retired-pages",
            WARN,
            reading + "; one waits for a reset",
            expected="none waiting",
            why="a page with errors stays in use until the GPU is reset",
            fix=f"reset the GPU (nvidia-smi -r -i {gpu.index}) or reboot, between jobs",
        )
    if total >= RETIRED_PAGES_WARN:
        return _finding(
            "retired-pages",
            WARN,
            reading,
            expected=f"under {RETIRED_PAGES_WARN}",
            why="more retired pages than a healthy GPU gathers: its memory is wearing out",
            fix="watch the count; plan to replace the GPU if it keeps rising",
        )
    return _finding("retired-pages", OK, reading)


PASSIVE: tuple[Check, ...] = (
    pcie_link,
    nvlink,
    ecc,
    remapped_rows,
    clocks,
    temperature,
    power_limit,
    persistence,
)
HEALTH: tuple[Callable[[Accelerator, DeviceHealth], Finding], ...] = (fabric, retired_pages, mig)


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
    gpu: Accelerator,
    now: GpuSample,
    kernel: dict[str, list[int]] | str,
    health: DeviceHealth = UNREAD,
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
    found = [check(gpu, now) for check in PASSIVE]
    found += [check(gpu, health) for check in HEALTH]
    found.append(xid_finding(gpu, now, kernel))
    return [
        Finding(f.check, f.verdict, f.reading, f.expected, f.why, f.fix, gpu=gpu.index)
        for f in found
    ]
