"""Runs the bench worker process: start it, iterate its messages, cancel it; faults become errors.

Usage (the CLI and the panes alike, each from a thread of its own)::

    runner = BenchRunner(build_plan("quick", devices=["cpu"]))
    finished = drive(runner, deliver)  # start, hand each message to deliver; never raises
    runner.cancel()                    # from any thread or a signal handler: "stop", kill after 1 s
    runner.end_now()                   # the app is closing: kill now, save what was measured

The worker never outlives this process (it watches its parent: ``worker/parent.py``), and
everything measured is saved after each result, so a crash, a hang, a signal or a full disk
loses at most the measurement in flight.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import IO, Any, Protocol

from gpu_tui.core.bench import messages as bench_messages
from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.gpu_watch import GpuWatch
from gpu_tui.core.bench.interpreter import check_python
from gpu_tui.core.bench.outputs import atomic_write
from gpu_tui.core.bench.peak import PeakTable, nvml_facts, pcie_peaks
from gpu_tui.core.bench.results import from_worker
from gpu_tui.core.bench.schema import printable
from gpu_tui.core.bench.store import RunOutput, auto_path
from gpu_tui.core.bench.worker.parent import PARENT_VARIABLE
from gpu_tui.core.errors import UsageError

WORKER = Path(__file__).resolve().parent / "worker" / "launch.py"
CANCEL_GRACE_SECONDS = 1.0
MIN_STALL_SECONDS = 30.0  # a single call (Linear(10000,10000) on a busy 2-core VM) may take ~10 s
STARTUP_SECONDS = 120.0
_EOF = object()


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+0000")


class BenchRunner:
    """One benchmark run in a worker process. The document is saved (atomically) after every
    result, skip and error, so a crash, a hang or Ctrl-C keeps what was measured."""

    def __init__(
        self,
        plan: dict[str, Any],
        *,
        python: str | None = None,
        stall_seconds: float | None = None,
        save: bool = True,
        outputs: Sequence[RunOutput] = (),
        nvml: ModuleType | None = None,
        telemetry: bool = True,
    ) -> None:
        self.plan = plan
        self.python = python
        budget = float(plan.get("budget_seconds", 1.0))
        self.stall_seconds = stall_seconds or max(MIN_STALL_SECONDS, 10 * budget)
        self.document = RunDocument(plan.get("suite", "custom"), budget, _now(), plan=plan)
        self.saved_path: Path | None = auto_path(self.document) if save else None
        self.stored = False
        """Whether the run is in the results store (at ``saved_path``)."""
        self.outputs = list(outputs)
        self._peaks = PeakTable({})
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        self._process: subprocess.Popen[str] | None = None
        self._plan_sent = False
        self._cancel_at: float | None = None
        self._killed_for: str | None = None
        self._done = False
        self._current: tuple[str | None, str | None] = (None, None)
        self._finished: bench_messages.Finished | None = None
        self._save_lock = threading.Lock()
        self._save_problems: queue.SimpleQueue[bench_messages.SaveFailed] = queue.SimpleQueue()
        self._reported: set[str] = set()
        self.failed_outputs: dict[Path, str] = {}
        """``--out`` files whose latest write failed, and why (empty when all are written)."""
        self.store_problem: str | None = None
        """Why the results store could not be written, when it could not."""
        self.watch = GpuWatch(nvml, enabled=telemetry)  # "GPU telemetry while timed"

    # --- control ---------------------------------------------------------------------------
    def worker_arguments(self) -> list[str]:
        """The worker's script and arguments (the comm suite starts torchrun's launcher)."""
        return [str(WORKER)]

    def start(self) -> None:
        """Start the worker and send it the plan; UsageError for a bad ``--bench-python``."""
        python = check_python(self.python) if self.python else sys.executable
        self._process = _spawn(
            [python, "-u", *self.worker_arguments()],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
            # own session: the terminal's Ctrl-C reaches us only; we stop the worker politely
            start_new_session=True,
            env={**os.environ, PARENT_VARIABLE: str(os.getpid())},
        )
        assert self._process.stdin is not None
        assert self._process.stdout is not None
        assert self._process.stderr is not None
        self._pump(self._process.stdout, self._lines.put, end=True)
        self._pump(self._process.stderr, self._stderr.append, end=False)
        self._last_activity = time.monotonic()
        try:
            self._process.stdin.write(json.dumps(self.plan) + "\n")
            self._process.stdin.flush()
        except OSError:
            pass  # it died at once: the reader sees EOF and reports the crash
        # "stop" may only follow the plan (the worker would read it as the plan): a cancel
        # that came while the plan was on its way is carried out now.
        self._plan_sent = True
        if self.document.interrupted:
            self.cancel()

    def cancel(self) -> None:
        """Ask the worker to stop (thread- and signal-safe); it is killed if still there in 1 s.
        Before the worker has its plan it marks the run stopped, and start stops it then."""
        self.document.interrupted = True
        if self._cancel_at is not None or not self._plan_sent:
            return
        assert self._process is not None
        self._cancel_at = time.monotonic()
        try:
            assert self._process.stdin is not None
            self._process.stdin.write("stop\n")
            self._process.stdin.flush()
        except (OSError, ValueError, AssertionError):
            pass
        timer = threading.Timer(CANCEL_GRACE_SECONDS, self.kill, kwargs={"why": "cancel"})
        timer.daemon = True
        timer.start()

    def kill(self, why: str = "cancel") -> None:
        process = self._process
        if process is not None and process.poll() is None:
            self._killed_for = self._killed_for or why
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                process.kill()

    def end_now(self) -> None:
        """The app is closing: kill the worker now and save what was measured, marked
        interrupted. Safe to call from any thread, more than once, or before a start."""
        self.document.interrupted = True
        self.kill(why="cancel")
        self._save()

    def fail(self, kind: str, message: str) -> bench_messages.Finished:
        """End the run as failed without the worker (it could not start, or following it
        failed): the error is recorded and saved, the worker killed if there is one."""
        self.kill(why="crash")
        self._error(kind, message, fatal=True)
        self.document.finished_at = _now()
        self._save(final=True)
        self._finished = bench_messages.Finished("failed", self.document)
        return self._finished

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    # --- messages --------------------------------------------------------------------------
    def messages(self, stop: Callable[[], bool] | None = None) -> Iterator[bench_messages.Message]:
        """Every message until (and including) :class:`Finished`; :meth:`cancel` as soon as
        ``stop()`` is true (checked ten times a second). Safe to call again after an
        interruption: it resumes where the last call stopped."""
        if self._process is None:
            raise RuntimeError("call start() first")
        while self._finished is None:
            if stop is not None and self._cancel_at is None and stop():
                self.cancel()
            live = self.watch.live()
            if live:
                yield bench_messages.Telemetry(live)
            yield from self._problems()
            try:
                item = self._lines.get(timeout=0.1)
            except queue.Empty:
                if time.monotonic() - self._last_activity > self._stall_limit() and self.running:
                    self.kill(why="hang")
                continue
            self._last_activity = time.monotonic()
            if item is _EOF:
                yield from self._finish()
                return
            try:
                yield from self._handle(str(item))
            except (ValueError, KeyError, TypeError, AttributeError) as error:
                # a line that parses but does not make sense: one error, the run goes on
                yield self._error(
                    "protocol",
                    f"the worker sent a message gpu-tui could not read "
                    f"({type(error).__name__}: {error}): {str(item)[:80]!r}",
                )
            yield from self._problems()

    def _problems(self) -> Iterator[bench_messages.SaveFailed]:
        while not self._save_problems.empty():
            yield self._save_problems.get()

    def _stall_limit(self) -> float:
        # importing torch (and CUDA start-up) can take tens of seconds on a busy machine
        started = self.document.environment is not None
        return self.stall_seconds if started else max(self.stall_seconds, STARTUP_SECONDS)

    def _handle(self, line: str) -> Iterator[bench_messages.Message]:
        try:
            data = json.loads(line)
            kind = data["type"]
        except (ValueError, KeyError, TypeError):
            yield self._error(
                "protocol", f"the worker wrote a line that is not protocol: {line[:80]!r}"
            )
            return
        if kind == "status":
            yield bench_messages.Status(str(data.get("message", "")))
        elif kind == "environment":
            environment = data["environment"]
            self.document.environment = environment
            facts = nvml_facts(environment)
            if facts:
                environment["nvml"] = facts
            self._peaks = PeakTable(environment, pcie=pcie_peaks(facts))
            self.watch.open(environment)
            self._save()
            yield bench_messages.EnvironmentReady(environment)
        elif kind == "progress":
            self._current = (data.get("benchmark"), data.get("device"))
            yield bench_messages.Progress(
                int(data["index"]), int(data["total"]), data["benchmark"], data["device"]
            )
        elif kind == "warning":
            yield bench_messages.RunWarning(
                str(data.get("message", "")), str(data.get("detail", ""))
            )
        elif kind == "heartbeat":
            yield bench_messages.Heartbeat(
                str(data.get("label", "")), float(data.get("fraction") or 0.0)
            )
        elif kind == "result":
            result = from_worker(data, self._peaks)
            self.watch.attach(result, data)
            self.document.results.append(result)
            self._save()
            yield bench_messages.ResultReady(result)
        elif kind == "skip":
            skip = {k: data.get(k) for k in ("benchmark", "device", "reason", "params")}
            self.document.skipped.append(skip)
            self._save()
            yield bench_messages.Skipped(
                str(skip["benchmark"]),
                str(skip["device"]),
                str(skip["reason"]),
                dict(data.get("params") or {}),
            )
        elif kind in ("error", "fatal"):
            yield self._error(
                str(data.get("kind", "exception")),
                str(data.get("message", "")),
                benchmark=data.get("benchmark"),
                device=data.get("device"),
                fatal=kind == "fatal",
            )
        elif kind == "done":
            self._done = True
            self.document.interrupted = self.document.interrupted or bool(data.get("cancelled"))

    def _error(
        self,
        kind: str,
        message: str,
        *,
        benchmark: str | None = None,
        device: str | None = None,
        fatal: bool = False,
    ) -> bench_messages.BenchError:
        error = bench_messages.BenchError(kind, message, benchmark, device, fatal)
        self.document.errors.append(
            {
                "kind": kind,
                "message": message,
                "benchmark": benchmark,
                "device": device,
                "fatal": fatal,
            }
        )
        self._save()
        return error

    def _finish(self) -> Iterator[bench_messages.Message]:
        assert self._process is not None
        try:
            code = self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill(why="crash")
            code = self._process.wait()
        benchmark, device = self._current
        fatal = any(e.get("fatal") for e in self.document.errors)
        if self._killed_for == "hang":
            yield self._error(
                "hang",
                f"the worker sent nothing for {self._stall_limit():.0f} s during "
                f"{benchmark or 'start-up'} on {device or '?'} and was stopped; completed results "
                "are kept",
                benchmark=benchmark,
                device=device,
                fatal=True,
            )
            fatal = True
        elif not self._done and not fatal and self._cancel_at is None:
            how = f"signal {-code}" if code < 0 else f"exit code {code}"
            # the worker's last words may hold colour codes: never sent raw to a terminal
            tail = f": {printable(self._stderr[-1].strip())}" if self._stderr else ""
            yield self._error(
                "crash",
                f"the worker died ({how}) during {benchmark or 'start-up'} on "
                f"{device or '?'}{tail}; completed results are kept",
                benchmark=benchmark,
                device=device,
                fatal=True,
            )
            fatal = True
        self.watch.close(self.document.environment)
        status = "cancelled" if self.document.interrupted else "failed" if fatal else "completed"
        self.document.finished = status == "completed"
        self.document.finished_at = _now()
        self._save(final=True)
        yield from self._problems()
        self._finished = bench_messages.Finished(status, self.document)
        yield self._finished

    def _save(self, *, final: bool = False) -> None:
        """Write the document everywhere it goes. A place that cannot be written (a full disk,
        a read-only store) is reported once, as a message, and never stops the run. A run that
        never started has nothing to keep; nor, in the results store, does one with nothing in
        it (refused as impossible, all skipped, or stopped before its first result): it would stand
        as the last run in front of the real one. A failure is kept: it is worth reading."""
        if self._process is None:
            return
        with self._save_lock:
            if self.saved_path is not None and self._worth_keeping():
                try:
                    atomic_write(self.saved_path, self.document.to_json())
                    self.stored = True
                    self.store_problem = None
                except OSError as error:
                    self.store_problem = (
                        f"cannot save to the results store {self.saved_path.parent}: "
                        f"{error.strerror or error}"
                    )
                    self._report(self.store_problem, store=True)
            for output in self.outputs:
                problem = output.save(self.document, final=final)
                if problem is None:
                    self.failed_outputs.pop(output.path, None)
                else:
                    self.failed_outputs[output.path] = problem
                    self._report(problem, store=False)

    def _worth_keeping(self) -> bool:
        """A result, or a failure worth reading (skips alone measured nothing)."""
        document = self.document
        failed = any(e.get("kind") not in bench_messages.REFUSED_KINDS for e in document.errors)
        return bool(document.results or failed)

    def _report(self, problem: str, *, store: bool) -> None:
        if problem not in self._reported:
            self._reported.add(problem)
            self._save_problems.put(bench_messages.SaveFailed(problem, store))

    @staticmethod
    def _pump(stream: IO[str], put: Callable[[Any], None], *, end: bool) -> None:
        """Read lines on a thread (a full pipe would block the worker); ``end`` adds EOF."""

        def run() -> None:
            for line in stream:
                put(line.rstrip("\n"))
            if end:
                put(_EOF)

        threading.Thread(target=run, name="bench-reader", daemon=True).start()


def _spawn(command: list[str], **options: Any) -> subprocess.Popen[str]:
    """Start the worker from a thread that lives exactly as long as the worker does: on Linux
    the worker's parent-death signal fires when the *thread* that started it ends, and a
    Textual thread worker or a pool thread may end long before the run does."""
    handed: queue.SimpleQueue[subprocess.Popen[str] | BaseException] = queue.SimpleQueue()

    def run() -> None:
        try:
            process = subprocess.Popen(command, **options)
        except BaseException as error:  # handed to the caller, who raises it
            handed.put(error)
            return
        handed.put(process)
        process.wait()

    threading.Thread(target=run, name="bench-worker-parent", daemon=True).start()
    started = handed.get()
    if isinstance(started, BaseException):
        raise started
    return started


class RunControl(Protocol):
    """What :func:`drive` needs of a run (:class:`BenchRunner`; tests pass recorded runs)."""

    def start(self) -> None: ...
    def messages(
        self, stop: Callable[[], bool] | None = None
    ) -> Iterator[bench_messages.Message]: ...
    def cancel(self) -> None: ...
    def kill(self, why: str = "cancel") -> None: ...
    def fail(self, kind: str, message: str) -> bench_messages.Finished: ...


def drive(
    runner: RunControl,
    deliver: Callable[[bench_messages.Message], object],
    *,
    stop: Callable[[], bool] | None = None,
) -> bench_messages.Finished:
    """Start ``runner`` and hand every message to ``deliver``, ending with the Finished it
    returns; ``stop()`` true stops the run. The one loop behind ``gpu-tui bench``, the Bench
    pane and the Kitchen's measurement, so they fail the same way: never by raising. A worker
    that cannot start, or a failure in gpu-tui itself while following the run, ends it as
    ``failed`` with a :class:`~messages.BenchError` saying why (kind ``start`` or ``internal``)."""
    try:
        runner.start()
    except (UsageError, OSError) as error:
        finished = runner.fail("start", str(error))
        deliver(bench_messages.BenchError("start", str(error), fatal=True))
        deliver(finished)
        return finished
    try:
        for message in runner.messages(stop):
            deliver(message)
            if isinstance(message, bench_messages.Finished):
                return message
        raise RuntimeError("the run ended without a Finished message")
    except Exception as error:
        text = (
            f"gpu-tui failed while following the run ({type(error).__name__}: {error}); "
            "completed results are kept"
        )
        finished = runner.fail("internal", text)
        deliver(bench_messages.BenchError("internal", text, fatal=True))
        deliver(finished)
        return finished
