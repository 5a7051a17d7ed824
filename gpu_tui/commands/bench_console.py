"""What the bench commands (the suites in ``bench``, the comm suite in ``bench_comm``) share on
the console: exit codes, the progress line on stderr, what a signal does during a run, and the
GPU count NVML sees."""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence
from typing import TextIO

from gpu_tui.commands.error_lines import error_line, warning_line, who
from gpu_tui.core import ending
from gpu_tui.core.bench import messages
from gpu_tui.core.bench.run_log import RunHooks, RunLog
from gpu_tui.core.bench.runner import BenchRunner, drive
from gpu_tui.core.bench.store import RunOutput
from gpu_tui.core.errors import InputError, UsageError

EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130
COMMAND = "bench"
"""The command whose lines these are (the comm suite is ``bench --suite comm``)."""
# A run refused as impossible (messages.REFUSED_KINDS) is bad usage: exit 2, one line.


def visible_gpus() -> int | None:
    """GPUs NVML sees (for the duration estimate); None when NVML cannot say."""
    try:
        from gpu_tui.core.devices import discover

        inventory = discover()
    except Exception:  # an estimate only: never fail the run for it
        return None
    nvml = inventory.backends.get("nvml")
    return len(inventory.accelerators) if nvml is not None and nvml.available else None


class Stopper:
    """What a signal does during a run: the first (Ctrl-C, SIGTERM or SIGHUP) asks the worker
    to stop and keeps what is measured; a second Ctrl-C kills the worker at once."""

    def __init__(self, runner: BenchRunner, progress: Progress) -> None:
        self.runner = runner
        self.progress = progress
        self.signum: int | None = None
        """The first signal that stopped the run."""

    def on_signal(self, signum: int) -> None:
        if self.signum is not None:
            if signum == signal.SIGINT:
                self.runner.kill()
            return
        self.signum = signum
        how = "Ctrl-C again to kill" if signum == signal.SIGINT else ending.signal_name(signum)
        self.progress.say(f"stopping ({how})...")
        self.runner.cancel()


class Progress(RunHooks):
    """Progress on stderr: a redrawn line on a terminal, plain lines otherwise. A stream that
    has gone away (a terminal after SIGHUP) is written no more; the run goes on."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.start = time.monotonic()
        self.gone = False
        self.log = RunLog(self)
        self.show = self.log.apply

    def say(self, text: str) -> None:
        self._line(f"{who(COMMAND)}: {text}")

    def warn(self, text: str) -> None:
        self._line(warning_line(text, COMMAND))

    def fail(self, text: str) -> None:
        self._line(error_line(text, COMMAND))

    def _line(self, line: str) -> None:
        self._write(("\r\x1b[K" if self.tty else "") + line + "\n")

    def _write(self, text: str) -> None:
        if self.gone:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.gone = True

    def got_step(self, step: messages.Progress) -> None:
        if not self.tty:
            self.say(f"[{step.index + 1}/{step.total}] {step.benchmark} on {step.device}")

    def got_heartbeat(self, beat: messages.Heartbeat) -> None:
        if not self.tty:
            return
        step, telemetry = self.log.step, self.log.telemetry
        done, total = (step.index, step.total) if step else (0, 1)
        fraction = (done + beat.fraction) / max(total, 1)
        bar = "#" * int(fraction * 20)
        elapsed = time.monotonic() - self.start
        shown = telemetry.line() if telemetry else None
        gpu = f"{shown[0]} | " if shown else ""
        line = f"\r\x1b[K[{bar:<20}] {elapsed:4.0f}s {gpu}{beat.label}"
        self._write(line[: 100 + len("\r\x1b[K")])

    def got_status(self, status: messages.Status) -> None:
        self.say(status.message)

    def got_warning(self, warning: messages.RunWarning) -> None:
        self.warn(warning.text)

    def got_save_failed(self, failed: messages.SaveFailed) -> None:
        self.warn(f"{failed.message}; the run goes on")

    def got_error(self, error: messages.BenchError) -> None:
        if error.kind not in messages.REFUSED_KINDS:  # said once, as the command's error line
            self.fail(error.message)

    def got_finished(self, finished: messages.Finished) -> None:
        if self.tty:
            self._write("\r\x1b[K")
        if finished.status == "cancelled":
            self.say(f"interrupted: kept {len(finished.document.results)} completed results")


def run_to_the_end(
    runner: BenchRunner, progress: Progress, outputs: Sequence[RunOutput]
) -> tuple[messages.Finished, Stopper]:
    """Drive ``runner`` until its run ends, a signal stopping it as :class:`Stopper` says. A
    run the command line made impossible (a device that is not there, a plan the worker
    refused) closes ``outputs`` and is a :class:`UsageError`: one line, exit 2."""
    stopper = Stopper(runner, progress)
    with ending.handling(stopper.on_signal):
        finished = drive(runner, progress.show)
    document = finished.document
    fatal = next((e for e in document.errors if e.get("fatal")), None)
    if fatal and fatal["kind"] in messages.REFUSED_KINDS:
        for output in outputs:
            output.close()
        # A port in use at the start is fixed outside gpu-tui; a device or plan, with a flag.
        problem = InputError if fatal["kind"] == "start" else UsageError
        raise problem(fatal["message"])
    return finished, stopper


def exit_status(
    runner: BenchRunner, progress: Progress, stopper: Stopper, finished: messages.Finished
) -> int:
    """Say where the run was saved and which outputs failed, and the exit code: 128 + the
    signal that stopped it, 130 when cancelled, 1 when anything failed, else 0."""
    if runner.stored and runner.store_problem is None:
        progress.say(f"saved: {runner.saved_path}")
    for problem in runner.failed_outputs.values():
        progress.fail(problem)
    if stopper.signum is not None:
        return ending.exit_code(stopper.signum)
    if finished.status == "cancelled":
        return EXIT_INTERRUPTED
    return EXIT_FAILED if finished.document.errors or runner.failed_outputs else 0
