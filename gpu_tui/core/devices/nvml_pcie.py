"""PCIe traffic at its own cadence, off the tick's critical path.

``nvmlDeviceGetPcieThroughput`` counts bytes over a 20 ms window before it answers ("querying a
byte counter over a 20ms interval", NVML reference), and a GPU needs two (sent, received): at a
0.1 s refresh that would be 40 % of every tick, per GPU. A thread of the session's reads every
GPU's pair once a second (the first pass as the session opens); a tick takes the newest pair,
or says how long ago it was read when the driver stopped answering it."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from types import ModuleType

from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.devices.nvml_util import read
from gpu_tui.core.monitor.samples import NOT_READ

EVERY_SECONDS = 1.0
STALE_AFTER_SECONDS = 5.0

Pair = tuple[Maybe[float], Maybe[float]]

_RUNNING: weakref.WeakSet[PcieSampler] = weakref.WeakSet()
"""Every reader whose thread may still run."""


def stop_all(wait: float = 0.5) -> None:
    """Stop every PCIe reader of the process: NVML is being taken away (or the process ends)
    and a reader of a session nobody closed must not go on calling it."""
    for sampler in list(_RUNNING):
        sampler.close(wait)


class PcieSampler:
    """Received and sent bytes/s per GPU, read by a daemon thread of its own."""

    def __init__(
        self,
        nvml: ModuleType,
        handles: list[object | None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._nvml = nvml
        self._handles = handles
        self._clock = clock
        self._lock = threading.Lock()
        self._latest: dict[int, tuple[float, Pair]] = {}
        self._stop = threading.Event()
        self.read_all()  # the first reading is there for the first tick (~40 ms per GPU)
        self._thread = threading.Thread(target=self._run, name="gpu-tui-pcie", daemon=True)
        self._thread.start()
        _RUNNING.add(self)

    def latest(self, index: int) -> Pair:
        """This GPU's newest (received, sent) bytes/s."""
        with self._lock:
            found = self._latest.get(index)
        if found is None:
            return NOT_READ, NOT_READ
        stamp, pair = found
        age = self._clock() - stamp
        if age > STALE_AFTER_SECONDS:
            old = Unknown(f"the driver has not answered PCIe traffic for {age:.0f} s")
            return old, old
        return pair

    def read_all(self) -> None:
        """One pass over every GPU (the thread's loop; tests call it directly)."""
        nvml = self._nvml
        for index, handle in enumerate(self._handles):
            if handle is None or self._stop.is_set():
                continue

            def counter(kind: int, h: object = handle) -> float:
                # KB/s with KB = 1024 bytes (as nvitop converts it)
                return 1024.0 * float(nvml.nvmlDeviceGetPcieThroughput(h, kind))

            try:
                pair = (
                    read(lambda: counter(nvml.NVML_PCIE_UTIL_RX_BYTES)),
                    read(lambda: counter(nvml.NVML_PCIE_UTIL_TX_BYTES)),
                )
            except Exception as error:  # a lost GPU: the session's own reads say so
                pair = (Unknown(str(error)), Unknown(str(error)))
            with self._lock:
                self._latest[index] = (self._clock(), pair)

    def _run(self) -> None:
        while not self._stop.wait(EVERY_SECONDS):
            self.read_all()

    def close(self, wait: float = 0.5) -> None:
        """Stop the thread, waiting for it at most ``wait`` seconds (a call stuck in the
        driver keeps it: it is a daemon, and ends with the process)."""
        self._stop.set()
        _RUNNING.discard(self)
        if self._thread is not threading.current_thread():
            self._thread.join(wait)
