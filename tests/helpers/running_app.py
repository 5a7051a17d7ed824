"""Running gpu-tui as a user does, for the fault tests and ``scripts/fault_matrix.py``: a headless
command, or the TUI on a real pseudo-terminal, and watching the processes it leaves (or must not
leave) behind."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

WORKER_SCRIPT = "worker/launch.py"


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "gpu_tui", *args]


def environment(data_dir: Path, **extra: str) -> dict[str, str]:
    """The user's environment with a private results store and no colour quirks."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPU_TUI_", "TEXTUAL"))}
    env.update(GPU_TUI_DATA_DIR=str(data_dir), TERM="xterm-256color", **extra)
    env.pop("NO_COLOR", None)
    return env


def workers_of(pid: int) -> list[psutil.Process]:
    """The bench worker processes started by ``pid``."""
    try:
        children = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    found = []
    for child in children:
        try:
            if any(WORKER_SCRIPT in part for part in child.cmdline()):
                found.append(child)
        except psutil.Error:
            continue
    return found


def gone(process: psutil.Process) -> bool:
    """Dead: exited (a zombie waiting for its reaper counts) or never there."""
    try:
        return process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def saved_runs(data_dir: Path) -> list[dict[str, Any]]:
    folder = data_dir / "results"
    if not folder.is_dir():
        return []
    runs = []
    for path in sorted(folder.glob("bench-*.json")):
        try:
            runs.append(json.loads(path.read_text()))
        except ValueError:  # being replaced right now: atomic, so the next look sees it whole
            continue
    return runs


def saved_results(data_dir: Path) -> int:
    return sum(len(run["results"]) for run in saved_runs(data_dir))


class Terminal:
    """gpu-tui's TUI on a pseudo-terminal of its own, as an SSH session gives it: the process is
    the session leader, so closing the terminal (:meth:`hang_up`) sends it SIGHUP."""

    def __init__(
        self,
        args: list[str],
        env: dict[str, str],
        size: tuple[int, int] = (80, 24),
        *,
        program: str | None = None,
    ):
        """``program``: an installed ``gpu-tui`` to run, instead of this interpreter's
        ``python -m gpu_tui``."""
        self.master, slave = os.openpty()
        columns, rows = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.process = subprocess.Popen(
            [program, *args] if program else command(*args),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
            # the new session's controlling terminal is this one (as sshd sets it up)
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.close(slave)
        self.output = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        # An undrained terminal fills up and blocks the app's writes: read until it closes.
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.output += chunk

    def shows(self, text: str) -> bool:
        return text.encode() in self.output

    def press(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def press_until(
        self, keys: str, happened: Callable[[], bool], what: str, *, tries: int = 20
    ) -> None:
        """Type ``keys`` until ``happened()``: keys typed while the app still sets up its
        terminal are lost, and nothing outside the app says when it starts reading them. Use
        keys that do nothing more when typed again."""
        for _ in range(tries):
            self.press(keys)
            deadline = time.monotonic() + 1.5
            while time.monotonic() < deadline:
                if happened():
                    return
                time.sleep(0.02)
        raise AssertionError(f"{keys!r} typed {tries} times, and still no {what}")

    def hang_up(self) -> None:
        """Close the terminal, as a dropped SSH connection or a killed tmux session does."""
        os.close(self.master)

    def signal(self, signum: int) -> None:
        os.kill(self.process.pid, signum)

    def wait(self, timeout: float) -> int:
        return self.process.wait(timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
        with contextlib.suppress(OSError):  # already closed by hang_up
            os.close(self.master)
