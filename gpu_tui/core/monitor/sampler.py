"""The sampler: a background thread that reads host and GPUs each tick into bounded history."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from gpu_tui.core.devices.nvml_guard import NotAnsweringError
from gpu_tui.core.monitor.gpu_reader import (
    DeviceReader,
    FunctionSource,
    GpuSource,
    unknown_gpu_sample,
)
from gpu_tui.core.monitor.history import DEFAULT_CAPACITY, History
from gpu_tui.core.monitor.host_reader import HostReader, LiveHostReader
from gpu_tui.core.monitor.samples import GpuSample, Sample

__all__ = [
    "INTERVAL_STEPS",
    "MAX_INTERVAL_SECONDS",
    "MIN_INTERVAL_SECONDS",
    "FunctionSource",
    "GpuSource",
    "Sampler",
    "step_interval",
    "unknown_gpu_sample",
]

MIN_INTERVAL_SECONDS = 0.1
MAX_INTERVAL_SECONDS = 60.0
FIRST_TICK_SECONDS = 0.2
"""The first tick waits this long (or one interval if shorter): CPU percentages are a difference
of two readings of /proc/stat, which advances in 10 ms steps, so an instant first tick is noise."""
DEFAULT_GPU_DEADLINE_SECONDS = 0.25
"""How long a tick waits for a GPU before showing its last reading as stale, unless the sampler
is given its own deadline (and at most half the interval, so a hung GPU never delays the next
tick). Real NVML answers a full reading in milliseconds; only a hung call gets near this."""


INTERVAL_STEPS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
"""What ``+``/``-`` step through in the Monitor pane."""


def step_interval(current: float, faster: bool) -> float:
    """The next interval from ``INTERVAL_STEPS`` (shorter when ``faster``), clamped at the ends."""
    if faster:
        return max((s for s in INTERVAL_STEPS if s < current), default=INTERVAL_STEPS[0])
    return min((s for s in INTERVAL_STEPS if s > current), default=INTERVAL_STEPS[-1])


def check_interval(seconds: float) -> float:
    """``seconds`` if it is a valid refresh interval, else ValueError."""
    if not MIN_INTERVAL_SECONDS <= seconds <= MAX_INTERVAL_SECONDS:
        raise ValueError(
            f"refresh interval must be between {MIN_INTERVAL_SECONDS} and "
            f"{MAX_INTERVAL_SECONDS:g} seconds, got {seconds:g}"
        )
    return seconds


class Sampler:
    """Reads the host and every GPU once per interval, records history, reports each tick.

    ``on_tick(sample)`` is called once per tick on the sampler thread (the UI wraps it in
    ``post_message``); ``on_error(exception)`` gets anything a tick or a callback raised, and the
    sampler keeps going. ``clock`` (monotonic seconds) and ``sleep`` drive the schedule and can be
    replaced in tests; ``wall_clock`` stamps samples. Deadlines for GPU reads use real time.

    Sources listed in ``inline_sources`` cannot block (the simulated GPU) and are read on the
    sampler thread; every other GPU gets its own worker thread and a deadline. GPU sources may
    also be added later (:meth:`add_gpu_sources`): the Monitor reads the CPU from the first tick
    while NVML is still opening, or failing to.
    """

    def __init__(
        self,
        *,
        gpu_sources: Sequence[GpuSource] = (),
        inline_sources: Sequence[GpuSource] = (),
        host: HostReader | None = None,
        interval: float = 1.0,
        capacity: int = DEFAULT_CAPACITY,
        on_tick: Callable[[Sample], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        gpu_deadline: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        sleep: Callable[[float], object] | None = None,
    ) -> None:
        self._interval = check_interval(interval)
        self._host = host if host is not None else LiveHostReader()
        self.on_tick = on_tick
        self.on_error = on_error
        self.gpu_deadline = gpu_deadline
        """How long one tick waits for the GPUs' readings (None: the default, capped at half the
        interval); a late one is shown as stale."""
        self._clock = clock
        self._wall_clock = wall_clock
        self._wakeup = threading.Event()
        self._sleep = sleep if sleep is not None else self._wakeup.wait
        self._stopping = False
        self._paused = False
        self._thread: threading.Thread | None = None
        self._readers: list[tuple[DeviceReader, bool]] = []
        self.add_gpu_sources(gpu_sources, inline_sources)
        # GPU slots are added to the history as samples bring them (sources may come later).
        self.history = History(capacity)
        self.latest: Sample | None = None
        """The newest sample, or None before the first tick."""
        self.ticks = 0

    def add_gpu_sources(
        self, gpu_sources: Sequence[GpuSource], inline_sources: Sequence[GpuSource] = ()
    ) -> None:
        """Read these GPUs too from the next tick on, in slots after the ones read already
        (real GPUs, then inline ones). Safe to call from another thread while ticking."""
        readers = list(self._readers)
        for source in (*gpu_sources, *inline_sources):
            inline = any(source is s for s in inline_sources)
            for index in range(source.device_count):
                name = f"gpu-tui-gpu{len(readers)}"
                readers.append((DeviceReader(source, index, name), inline))
        if self._stopping:
            for reader, _ in readers[len(self._readers) :]:
                reader.close()
            return
        self._readers = readers  # one assignment: a tick sees the old list or the new one

    @property
    def gpu_count(self) -> int:
        """GPU slots in every sample, in a fixed order (real GPUs first, then inline ones)."""
        return len(self._readers)

    @property
    def hung_devices(self) -> int:
        """GPUs whose driver call is still in flight (between ticks: calls that hang)."""
        return sum(1 for reader, _ in self._readers if reader.busy)

    @property
    def not_answering(self) -> tuple[NotAnsweringError, ...]:
        """The NVML calls GPUs are stuck in past the call limit (each call named once)."""
        stuck = (reader.not_answering for reader, _ in self._readers)
        return tuple({hung.reason: hung for hung in stuck if hung is not None}.values())

    @property
    def interval(self) -> float:
        return self._interval

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def set_interval(self, seconds: float) -> None:
        """Change the refresh interval now (0.1 to 60 s); the next tick follows the new one."""
        self._interval = check_interval(seconds)
        self._wakeup.set()

    def pause(self) -> None:
        """Stop ticking (history and the latest sample stay) until ``resume``."""
        self._paused = True
        self._wakeup.set()

    def resume(self) -> None:
        self._paused = False
        self._wakeup.set()

    def start(self) -> None:
        """Tick on a daemon thread until ``stop``."""
        if self._thread is not None:
            raise RuntimeError("the sampler was already started")
        self._thread = threading.Thread(target=self.run, name="gpu-tui-sampler", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop ticking and let the GPU workers go; a worker stuck in the driver is abandoned."""
        self._stopping = True
        self._wakeup.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        for reader, _ in self._readers:
            reader.close()

    def run(self, max_ticks: int | None = None) -> None:
        """Tick on the calling thread until ``stop`` or ``max_ticks`` ticks (``watch`` uses it)."""
        # ``last`` is when the previous tick was due; the next is due one interval later, so an
        # interval changed mid-sleep takes effect at once.
        last = self._clock() + min(self._interval, FIRST_TICK_SECONDS) - self._interval
        done = 0
        while not self._stopping and (max_ticks is None or done < max_ticks):
            self._wakeup.clear()  # before reading the state, so no wake-up is lost
            if self._paused:
                self._sleep(self._interval)
                last = self._clock() - self._interval  # tick as soon as resumed
                continue
            due = last + self._interval
            now = self._clock()
            if now < due:
                self._sleep(due - now)
                continue
            self._safely(self.tick)
            done += 1
            # Fixed rate; after a stall of a whole interval, skip ahead instead of bursting.
            after = self._clock()
            last = due if after - due < self._interval else after

    def tick(self) -> Sample:
        """Read everything once, record it and report it (synchronously, on this thread)."""
        cpu, memory = self._host.read()
        sample = Sample(
            timestamp=self._wall_clock(), cpu=cpu, memory=memory, gpus=self._read_gpus()
        )
        self.history.append(sample, self._interval)
        self.latest = sample
        self.ticks += 1
        callback = self.on_tick
        if callback is not None:
            self._safely(lambda: callback(sample))
        return sample

    def _read_gpus(self) -> tuple[GpuSample, ...]:
        readers = self._readers  # this tick's list, whatever ``add_gpu_sources`` does meanwhile
        if not readers:
            return ()
        # Ask every device first, then wait: devices answer in parallel, one deadline in all.
        asked = [reader.begin() if not inline else False for reader, inline in readers]
        inline_results = {
            slot: reader.read_now() for slot, (reader, inline) in enumerate(readers) if inline
        }
        wait = self.gpu_deadline
        if wait is None:
            wait = min(DEFAULT_GPU_DEADLINE_SECONDS, self._interval / 2)
        deadline = time.monotonic() + wait
        results: list[GpuSample] = []
        for slot, (reader, inline) in enumerate(readers):
            if inline:
                results.append(inline_results[slot])
            else:
                remaining = deadline - time.monotonic()
                results.append(reader.finish(remaining, wait=asked[slot]))
        return tuple(results)

    def _safely(self, call: Callable[[], object]) -> None:
        try:
            call()
        except Exception as error:  # a tick or callback failing must not end the sampler
            if self.on_error is not None:
                self.on_error(error)
