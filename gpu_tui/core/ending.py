"""How gpu-tui ends on a signal: every way is a clean end.

Ctrl-C (SIGINT), SIGTERM (``kill``, a job scheduler) and SIGHUP (an SSH connection or a tmux
session that went away) all do the same: the work stops, everything already measured is kept,
and the process exits with 128 + the signal number (130, 143, 129), as a shell reports it.
SIGKILL cannot be handled; the benchmark worker watches for it instead (``bench/worker/parent``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import termios
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TextIO

ENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: raised where the program was, as Python raises
    KeyboardInterrupt for Ctrl-C (a BaseException, so ``except Exception`` does not stop it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal_name(signum))
        self.signum = signum


def exit_code(signum: int) -> int:
    """The exit status for a run ended by ``signum``: 128 + its number."""
    return 128 + signum


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signum)


def raise_on_termination() -> None:
    """From now on SIGTERM and SIGHUP raise :class:`Terminated` (call it in the main thread)."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _raise_terminated)


@contextlib.contextmanager
def handling(handler: Callable[[int], None]) -> Iterator[None]:
    """Inside the block each ending signal calls ``handler(signum)`` instead (e.g. to stop a
    run politely); the handlers from before come back after it."""
    previous = {signum: signal.getsignal(signum) for signum in ENDING_SIGNALS}
    for signum in ENDING_SIGNALS:
        signal.signal(signum, lambda number, frame: handler(number))
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def say(stream: TextIO, text: str) -> bool:
    """Write a line to a stream that may be gone (a terminal after SIGHUP, a closed pipe).
    False when it is: the caller stops writing there, and loses nothing else."""
    try:
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError):  # EIO from a hung-up terminal, EPIPE, or already closed
        return False
    return True


def silence(stream: TextIO) -> None:
    """Point a stream that is gone (a closed pipe, a hung-up terminal) at /dev/null, so the
    interpreter's last flush at exit does not print an error about it."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def terminal_gone(descriptor: int) -> bool:
    """True once the terminal on ``descriptor`` has hung up (its SSH connection or tmux pane
    closed) — for a process that did not get the SIGHUP, e.g. one started under a wrapper that
    ignores it. A live terminal answers ``tcgetattr``; a hung-up one fails with EIO."""
    try:
        termios.tcgetattr(descriptor)
    except termios.error as error:
        return bool(error.args) and error.args[0] in (5, 9)  # EIO, EBADF
    return False
