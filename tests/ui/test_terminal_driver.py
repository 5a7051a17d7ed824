"""A terminal that hangs up does not stop the app from ending: Textual's writer thread keeps
taking frames (and drops them) once the terminal is gone, so its queue never fills."""

from __future__ import annotations

import contextlib
import os
import pty
import threading
from collections.abc import Iterator

import pytest
from textual.drivers._writer_thread import MAX_QUEUED_WRITES, WriterThread
from textual.drivers.linux_driver import LinuxDriver

from gpu_tui.ui.app import make_app
from gpu_tui.ui.terminal_driver import HangUpSafeDriver, TerminalOutput

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def hung_up_terminal() -> Iterator[object]:
    """The terminal side of a pseudo-terminal whose other side (the SSH connection) is gone."""
    master, slave = pty.openpty()
    stream = os.fdopen(slave, "w")
    os.close(master)
    yield stream
    with contextlib.suppress(OSError):  # its last flush fails too
        stream.close()


def test_a_hung_up_terminal_fails_writes(hung_up_terminal) -> None:
    hung_up_terminal.write("frame")
    with pytest.raises(OSError, match="Input/output error"):
        hung_up_terminal.flush()


def test_frames_to_a_hung_up_terminal_are_dropped_and_the_writer_stops(hung_up_terminal) -> None:
    output = TerminalOutput(hung_up_terminal)
    writer = WriterThread(output)  # type: ignore[arg-type]
    writer.start()
    for _ in range(MAX_QUEUED_WRITES * 4):  # more frames than the queue holds
        writer.write("\x1b[H frame")
    stopping = threading.Thread(target=writer.stop, daemon=True)
    stopping.start()
    stopping.join(timeout=10)
    assert not stopping.is_alive(), "the writer thread's queue filled: the app would block"
    assert output.gone


def test_a_live_terminal_gets_every_write() -> None:
    master, slave = pty.openpty()
    with os.fdopen(slave, "w") as stream:
        output = TerminalOutput(stream)
        output.write("hello")
        output.flush()
        assert os.read(master, 100) == b"hello"
        assert not output.gone
    os.close(master)


def test_the_app_runs_on_the_hang_up_safe_driver() -> None:
    driver = make_app().get_driver_class()
    assert driver is HangUpSafeDriver
    assert issubclass(driver, LinuxDriver)


def test_a_driver_named_in_textual_driver_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    from textual import constants

    monkeypatch.setattr(constants, "DRIVER", "textual.drivers.headless_driver:HeadlessDriver")
    assert make_app().get_driver_class().__name__ == "HeadlessDriver"
