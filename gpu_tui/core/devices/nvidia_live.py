"""Live NVML readings for the sampler: one ``GpuSample`` per GPU per tick, failing per field."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable
from functools import partial
from types import ModuleType
from typing import Any, TypeVar

from gpu_tui.core.devices.doctor import NO_PERMISSION, NOT_IN_JOB, field_reason, nvml_error_code
from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.model import BackendStatus
from gpu_tui.core.devices.nvml_gpm import GpmReader
from gpu_tui.core.devices.nvml_guard import GATE, NotAnsweringError
from gpu_tui.core.devices.nvml_pcie import PcieSampler
from gpu_tui.core.devices.nvml_process import open_nvml
from gpu_tui.core.devices.nvml_util import (
    GpuLostError,
    failed_status,
    first_available,
    missing_function,
    read,
    throttle_words,
)
from gpu_tui.core.devices.nvml_xid import XidWatch
from gpu_tui.core.monitor.gpu_reader import unknown_gpu_sample
from gpu_tui.core.monitor.host_processes import (
    NOT_IN_NAMESPACE,
    OTHER_USER,
    HostProcess,
    HostProcesses,
)
from gpu_tui.core.monitor.samples import (
    NOT_READ,
    GpuProcess,
    GpuSample,
    MigSample,
    RemappedRows,
)

__all__ = ["NOT_IN_NAMESPACE", "OTHER_USER", "NvmlSession", "ProcessLookup"]

T = TypeVar("T")

NVML_NOT_FOUND = 6
"""``nvmlDeviceGetProcessUtilization`` says NOT_FOUND when no process ran since the time asked."""
ARGUMENT_VERSION_MISMATCH = 25
"""``NVML_ERROR_ARGUMENT_VERSION_MISMATCH``: the call is known, this struct version is not."""
HEALTH_EVERY_SECONDS = 5.0
"""How often the rarely changing health counters (ECC, PCIe replays, remapped rows) are read."""
PID_LIMIT = 2**31
"""PIDs are positive 32-bit ``pid_t`` values: PID 0, or an entry at or above this (4294967295 is
the "no MIG instance" word read as a PID), is one the binding misread, never a process."""

ProcessLookup = Callable[[int], "HostProcess | tuple[Maybe[str], Maybe[str]]"]
"""A process's host readings by PID; a pair is (user, command), the rest unread."""


def _host(found: HostProcess | tuple[Maybe[str], Maybe[str]]) -> HostProcess:
    if isinstance(found, HostProcess):
        return found
    user, command = found
    return HostProcess(user, command, NOT_READ, NOT_READ, NOT_READ)


class NvmlSession:
    """An open NVML session. ``open`` never raises; ``status`` says whether it worked.

    Opening and closing run on the NVML thread under the call limit (``nvml_guard``); the
    constructor itself calls NVML (device count, handles), so build one only inside such a job.
    ``sample`` calls NVML on the caller's thread: the sampler's per-GPU readers give it one.
    """

    def __init__(
        self, nvml: ModuleType | None, status: BackendStatus, lookup: ProcessLookup
    ) -> None:
        self.status = status
        self.hung: NotAnsweringError | None = None
        """Set by ``open`` when the driver did not answer in time (``status`` says it in words)."""
        self._nvml = nvml
        self._lookup = lookup
        self._handles: list[object | None] = []
        self._lost: dict[int, str] = {}
        self._not_in_job: set[int] = set()
        """GPUs NVML counts but this process may not open (``doctor.NOT_IN_JOB``)."""
        self._static: dict[int, dict[str, Maybe[float]]] = {}
        self._mig: dict[int, list[tuple[object, Maybe[str], Maybe[int]]]] = {}
        """Per GPU, its MIG instances (handle, name, GPU instance id), found once: instances
        cannot be made or destroyed while a process holds the GPU."""
        self._samples_since: dict[int, int] = {}
        """Per GPU, the newest process sample's driver timestamp (µs): the next ask's start."""
        self._nvlink_counted: dict[int, tuple[float, int, int]] = {}
        self._health_read: dict[int, tuple[float, dict[str, Any]]] = {}
        """Per GPU, its health counters and when they were read (``_health``)."""
        """Per GPU, the NVLink data counters (KiB) of the previous reading and when (µs)."""
        self._gpm = GpmReader()
        self._xids: XidWatch | None = None
        self._pcie: PcieSampler | None = None
        if nvml is None:
            return
        count = read(nvml.nvmlDeviceGetCount)
        for index in range(count if isinstance(count, int) else 0):
            try:
                self._handles.append(nvml.nvmlDeviceGetHandleByIndex(index))
            except Exception as error:  # GpuIsLost or worse: this GPU only
                self._handles.append(None)
                if nvml_error_code(error) == NO_PERMISSION:
                    self._not_in_job.add(index)
                else:
                    self._lost[index] = field_reason(error)
        self._xids = XidWatch(nvml, self._handles)
        self._pcie = PcieSampler(nvml, self._handles)

    @classmethod
    def open(
        cls, nvml: ModuleType | None = None, *, process_lookup: ProcessLookup | None = None
    ) -> NvmlSession:
        """Start NVML (``nvml`` swaps in a test double). Never raises; blocks for at most the
        NVML call limit per call, and not at all while an earlier call is still stuck."""
        lookup = process_lookup or HostProcesses()

        def start() -> NvmlSession:
            module, failure = open_nvml(nvml)
            return cls(module, failure or BackendStatus("nvml", True), lookup)

        try:
            return GATE.run(start)
        except NotAnsweringError as hung:
            session = cls(None, failed_status(hung), lookup)
            session.hung = hung
            return session

    @property
    def device_count(self) -> int:
        return len(self._handles)

    def close(self, limit: float | None = None) -> None:
        """End this session (once): its PCIe reader, XID event set and GPM buffers are freed,
        later samples report it as closed. NVML itself stays open for the process's other
        readers (``nvml_process``). Waits at most ``limit`` seconds (default: the NVML call
        limit) for a driver that does not answer."""
        nvml, self._nvml = self._nvml, None
        if nvml is not None:

            def shut_down() -> None:
                if self._pcie is not None:
                    self._pcie.close()
                if self._xids is not None:
                    self._xids.close()
                self._gpm.close(nvml)

            with contextlib.suppress(Exception):  # nothing useful to do: we are leaving
                GATE.run(shut_down, limit=limit)

    def sample(self, index: int) -> GpuSample:
        """This GPU's readings now. A lost GPU gives ``GpuSample(lost=True)``; never raises."""
        nvml, handle = self._nvml, self._handles[index] if index < len(self._handles) else None
        if index in self._lost:
            return _lost_sample(index, self._lost[index])
        if index in self._not_in_job:
            return dataclasses.replace(_lost_sample(index, NOT_IN_JOB, lost=False), not_in_job=True)
        if nvml is None or handle is None:
            return _lost_sample(index, "NVML session is closed", lost=False)
        try:
            return self._read(nvml, handle, index)
        except GpuLostError as lost:
            self._lost[index] = str(lost)  # a lost GPU does not come back without a reset
            return _lost_sample(index, str(lost))

    def _limits(self, nvml: ModuleType, handle: object, index: int) -> dict[str, Maybe[float]]:
        """Per-device values that do not change while we watch; read once, then cached."""
        if index not in self._static:
            self._static[index] = {
                "slowdown": read(
                    lambda: float(
                        nvml.nvmlDeviceGetTemperatureThreshold(
                            handle, nvml.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
                        )
                    )
                ),
                "sm_max": read(
                    lambda: float(nvml.nvmlDeviceGetMaxClockInfo(handle, nvml.NVML_CLOCK_SM))
                ),
                "mem_max": read(
                    lambda: float(nvml.nvmlDeviceGetMaxClockInfo(handle, nvml.NVML_CLOCK_MEM))
                ),
            }
        return self._static[index]

    def _read(self, nvml: ModuleType, handle: object, index: int) -> GpuSample:
        limits = self._limits(nvml, handle, index)
        util = read(lambda: nvml.nvmlDeviceGetUtilizationRates(handle))
        memory = read(lambda: _memory_info(nvml, handle))
        busy, busy_memory = _pair(util, "gpu", "memory", float)
        used, total = _pair(memory, "used", "total", int)
        nvlink_tx, nvlink_rx = self._nvlink_rates(nvml, handle, index)
        pcie_rx, pcie_tx = self._pcie.latest(index) if self._pcie is not None else (NOT_READ,) * 2
        reserved: Maybe[int] = (
            memory
            if isinstance(memory, Unknown)
            else read(lambda: int(memory.reserved))
            if hasattr(memory, "reserved")
            else Unknown(RESERVED_IN_USED)
        )
        return GpuSample(
            index=index,
            utilization_percent=busy,
            memory_utilization_percent=busy_memory,
            memory_used_bytes=used,
            memory_total_bytes=total,
            memory_reserved_bytes=reserved,
            temperature_c=read(
                lambda: float(nvml.nvmlDeviceGetTemperature(handle, nvml.NVML_TEMPERATURE_GPU))
            ),
            temperature_slowdown_c=limits["slowdown"],
            power_watts=read(lambda: nvml.nvmlDeviceGetPowerUsage(handle) / 1000),
            power_limit_watts=read(lambda: nvml.nvmlDeviceGetEnforcedPowerLimit(handle) / 1000),
            sm_clock_mhz=read(
                lambda: float(nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_SM))
            ),
            max_sm_clock_mhz=limits["sm_max"],
            memory_clock_mhz=read(
                lambda: float(nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_MEM))
            ),
            max_memory_clock_mhz=limits["mem_max"],
            fan_percent=read(lambda: float(nvml.nvmlDeviceGetFanSpeed(handle))),
            pcie_rx_bytes_per_second=pcie_rx,
            pcie_tx_bytes_per_second=pcie_tx,
            encoder_percent=read(lambda: float(nvml.nvmlDeviceGetEncoderUtilization(handle)[0])),
            decoder_percent=read(lambda: float(nvml.nvmlDeviceGetDecoderUtilization(handle)[0])),
            ecc_errors_uncorrected=read(
                lambda: int(
                    nvml.nvmlDeviceGetTotalEccErrors(
                        handle, nvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nvml.NVML_VOLATILE_ECC
                    )
                )
            ),
            throttle_reasons=read(lambda: throttle_words(self._reasons(nvml, handle))),
            processes=self._processes(nvml, handle, index),
            mig_instances=tuple(
                self._mig_sample(nvml, *instance) for instance in self._mig_of(nvml, handle, index)
            ),
            memory_temperature_c=read(partial(_memory_temperature, nvml, handle)),
            energy_millijoules=read(lambda: int(nvml.nvmlDeviceGetTotalEnergyConsumption(handle))),
            **self._health(nvml, handle, index),
            last_xid=self._xids.last(index) if self._xids is not None else NOT_READ,
            nvlink_tx_bytes_per_second=nvlink_tx,
            nvlink_rx_bytes_per_second=nvlink_rx,
            activity=self._gpm.activity(nvml, handle, index),
        )

    def _health(self, nvml: ModuleType, handle: object, index: int) -> dict[str, Any]:
        """Memory and link health counters: they change rarely, so they are read every
        ``HEALTH_EVERY_SECONDS`` and the readings in between repeat the last ones."""
        now = time.monotonic()
        kept = self._health_read.get(index)
        if kept is None or now - kept[0] >= HEALTH_EVERY_SECONDS:
            values: dict[str, Any] = {
                "ecc_errors_corrected": read(
                    lambda: int(
                        nvml.nvmlDeviceGetTotalEccErrors(
                            handle, nvml.NVML_MEMORY_ERROR_TYPE_CORRECTED, nvml.NVML_VOLATILE_ECC
                        )
                    )
                ),
                "pcie_replay_count": read(lambda: int(nvml.nvmlDeviceGetPcieReplayCounter(handle))),
                "remapped_rows": read(partial(_remapped_rows, nvml, handle)),
            }
            kept = self._health_read[index] = (now, values)
        return kept[1]

    def _nvlink_rates(
        self, nvml: ModuleType, handle: object, index: int
    ) -> tuple[Maybe[float], Maybe[float]]:
        """NVLink data sent and received over every link since the previous reading, in
        bytes/s, from the driver's KiB counters (the first reading has no previous one)."""
        counters = read(lambda: _nvlink_counters(nvml, handle))
        if isinstance(counters, Unknown):
            return counters, counters
        stamp, tx, rx = counters
        before = self._nvlink_counted.get(index)
        self._nvlink_counted[index] = counters
        if before is None or stamp <= before[0]:
            first = Unknown("NVLink traffic shows from the second reading")
            return first, first
        seconds = (stamp - before[0]) / 1e6
        return max(0, tx - before[1]) * 1024 / seconds, max(0, rx - before[2]) * 1024 / seconds

    def _mig_of(
        self, nvml: ModuleType, handle: object, index: int
    ) -> list[tuple[object, Maybe[str], Maybe[int]]]:
        if index not in self._mig:
            found: list[tuple[object, Maybe[str], Maybe[int]]] = []
            mode = read(lambda: nvml.nvmlDeviceGetMigMode(handle))
            if not isinstance(mode, Unknown) and int(mode[0]) == 1:  # (current, pending)
                slots = read(lambda: int(nvml.nvmlDeviceGetMaxMigDeviceCount(handle)))
                for slot in range(slots if isinstance(slots, int) else 0):
                    mig = read(partial(nvml.nvmlDeviceGetMigDeviceHandleByIndex, handle, slot))
                    if isinstance(mig, Unknown):
                        continue  # an empty slot
                    name = read(partial(_text, nvml.nvmlDeviceGetName, mig))
                    instance = read(partial(_whole, nvml.nvmlDeviceGetGpuInstanceId, mig))
                    found.append((mig, name, instance))
            self._mig[index] = found
        return self._mig[index]

    def _mig_sample(
        self, nvml: ModuleType, mig: object, name: Maybe[str], instance: Maybe[int]
    ) -> MigSample:
        used, total = _pair(read(lambda: _memory_info(nvml, mig)), "used", "total", int)
        return MigSample(
            name=name,
            gpu_instance_id=instance,
            memory_used_bytes=used,
            memory_total_bytes=total,
            processes=self._processes(nvml, mig, None),
        )

    @staticmethod
    def _reasons(nvml: ModuleType, handle: object) -> int:
        # "ClocksEvent" is the current name; "ClocksThrottle" the deprecated alias that older
        # nvidia-ml-py releases (before 12.535) and older drivers only have.
        names = (
            "nvmlDeviceGetCurrentClocksEventReasons",
            "nvmlDeviceGetCurrentClocksThrottleReasons",
        )
        return int(first_available(nvml, names, handle))

    def _processes(
        self, nvml: ModuleType, handle: object, index: int | None
    ) -> Maybe[tuple[GpuProcess, ...]]:
        """The processes on a GPU (``index``) or a MIG instance (``None``: NVML gives no SM
        shares per instance)."""
        # ``_v2`` first: its entry point writes the 24-byte entries the binding reads on every
        # driver that has it. The unversioned names go through ``_v3``, which R535 drivers write
        # 32 bytes wide, so the binding misreads every entry after the first.
        found: dict[int, GpuProcess] = {}
        reasons: list[str] = []
        for kind in ("compute", "graphics"):
            base = f"nvmlDeviceGet{kind.capitalize()}RunningProcesses"
            listed = read(partial(first_available, nvml, (f"{base}_v2", base), handle))
            if isinstance(listed, Unknown):
                reasons.append(listed.reason)
                continue
            for entry in listed:
                pid = int(entry.pid)
                if not 0 < pid < PID_LIMIT:
                    continue  # an entry the binding misread: no process has this PID
                if pid in found:
                    found[pid] = dataclasses.replace(found[pid], kind="compute+graphics")
                    continue
                used = getattr(entry, "usedGpuMemory", None)
                host = _host(self._lookup(pid))
                found[pid] = GpuProcess(
                    pid=pid,
                    kind=kind,
                    used_memory_bytes=int(used)
                    if used is not None
                    else Unknown("not reported by the driver (WDDM or MIG)"),
                    sm_percent=NOT_READ,
                    user=host.user,
                    command=host.command,
                    cpu_percent=host.cpu_percent,
                    host_memory_bytes=host.memory_bytes,
                    started=host.started,
                    parents=host.parents,
                )
        if len(reasons) == 2:
            return Unknown(reasons[0])
        if not found:
            return ()
        shares = (
            self._sm_shares(nvml, handle, index)
            if index is not None
            else Unknown("NVML gives no SM share per MIG instance")
        )
        return tuple(
            dataclasses.replace(
                process,
                sm_percent=shares if isinstance(shares, Unknown) else shares.get(pid, 0.0),
            )
            for pid, process in found.items()
        )

    def _sm_shares(self, nvml: ModuleType, handle: object, index: int) -> Maybe[dict[int, float]]:
        """Each process's share of the SMs' time in its newest sample since the last ask; a
        listed process with no sample ran no kernel meanwhile (0, as nvitop and nvtop show)."""
        since = self._samples_since.get(index, 0)

        def ask() -> list[Any]:
            try:
                return list(nvml.nvmlDeviceGetProcessUtilization(handle, since))
            except Exception as error:
                if nvml_error_code(error) == NVML_NOT_FOUND:
                    return []  # no samples since then: nothing ran
                raise

        samples = read(ask)
        if isinstance(samples, Unknown):
            return samples
        newest: dict[int, tuple[int, float]] = {}
        for sample in samples:
            pid, stamp, share = int(sample.pid), int(sample.timeStamp), float(sample.smUtil)
            if stamp <= since or share > 100 or (pid in newest and newest[pid][0] >= stamp):
                continue  # a share over 100 % is a driver glitch (nvtop drops them too)
            newest[pid] = (stamp, share)
        # The next ask starts from the newest sample seen (as nvtop does): the driver keeps an
        # idle process's last sample, and asking from the oldest would return it for good.
        if newest:
            self._samples_since[index] = max(stamp for stamp, _ in newest.values())
        return {pid: share for pid, (_, share) in newest.items()}


RESERVED_IN_USED = (
    "this driver has no nvmlDeviceGetMemoryInfo_v2: the memory it reserves is counted as used"
)


def _memory_info(nvml: ModuleType, handle: object) -> Any:
    """Memory as nvidia-smi counts it: ``nvmlDeviceGetMemoryInfo_v2`` keeps the driver's reserved
    memory out of *used* (hundreds of MiB on an idle data-centre GPU) and reports it apart; the
    v1 call, all a driver before R510 has, counts it as used."""
    version = getattr(nvml, "nvmlMemory_v2", None)
    if version is not None:
        try:
            return nvml.nvmlDeviceGetMemoryInfo(handle, version=version)
        except Exception as error:
            if not missing_function(error) and nvml_error_code(error) != ARGUMENT_VERSION_MISMATCH:
                raise
    return nvml.nvmlDeviceGetMemoryInfo(handle)


def _memory_temperature(nvml: ModuleType, handle: object) -> float:
    """HBM temperature: a field value (no call of its own), NOT_SUPPORTED on GDDR boards."""
    (value,) = nvml.nvmlDeviceGetFieldValues(handle, [nvml.NVML_FI_DEV_MEMORY_TEMP])
    if value.nvmlReturn:
        raise nvml.NVMLError(value.nvmlReturn)
    return float(value.value.ullVal)


def _nvlink_counters(nvml: ModuleType, handle: object) -> tuple[float, int, int]:
    """(driver timestamp µs, KiB sent, KiB received) over every NVLink of the GPU."""
    tx, rx = nvml.nvmlDeviceGetFieldValues(
        handle,
        [nvml.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, nvml.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX],
    )
    for value in (tx, rx):
        if value.nvmlReturn:
            raise nvml.NVMLError(value.nvmlReturn)
    return float(tx.timestamp), int(tx.value.ullVal), int(rx.value.ullVal)


def _remapped_rows(nvml: ModuleType, handle: object) -> RemappedRows:
    correctable, uncorrectable, pending, failed = nvml.nvmlDeviceGetRemappedRows(handle)
    return RemappedRows(int(correctable), int(uncorrectable), bool(pending), bool(failed))


def _pair(
    struct: Maybe[Any], first: str, second: str, kind: Callable[[Any], T]
) -> tuple[Maybe[T], Maybe[T]]:
    """Two fields of one NVML struct, both unknown with its reason when the call failed."""
    if isinstance(struct, Unknown):
        return struct, struct
    return read(partial(kind, getattr(struct, first))), read(partial(kind, getattr(struct, second)))


def _text(call: Callable[[object], Any], handle: object) -> str:
    return str(call(handle))


def _whole(call: Callable[[object], Any], handle: object) -> int:
    return int(call(handle))


def _lost_sample(index: int, reason: str, *, lost: bool = True) -> GpuSample:
    return dataclasses.replace(unknown_gpu_sample(index, reason), lost=lost)
