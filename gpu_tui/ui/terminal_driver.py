"""The terminal driver gpu-tui runs on: Textual's own, with output that outlives the terminal.

Textual writes every frame from a thread of its own, through a queue that holds 30 writes.
When the terminal goes away (an SSH connection drops, a tmux session is killed), the next write
fails with EIO and that thread ends; the queue then fills, and the frame after blocks the event
loop for good, so the app never gets to stop its run, save what it measured and exit. Here a
write to a terminal that is gone is dropped instead, and the app ends as it should.
"""

from __future__ import annotations

from typing import TextIO

from textual.drivers.linux_driver import LinuxDriver


class TerminalOutput:
    """A text stream whose writes are dropped, not raised, once its terminal has gone."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.gone = False
        """True from the first write or flush that found the terminal gone."""

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                self._stream.write(text)
            except (OSError, ValueError):  # EIO from a hung-up terminal, or a closed stream
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self.gone = True

    def fileno(self) -> int:
        return self._stream.fileno()

    def isatty(self) -> bool:
        return True


class HangUpSafeDriver(LinuxDriver):
    """Textual's Linux driver, writing through :class:`TerminalOutput`."""

    def __init__(
        self, app: object, *, debug: bool = False, mouse: bool = True, size: object = None
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)  # type: ignore[arg-type]
        # The stream the driver hands its writer thread when the app starts.
        self._file = TerminalOutput(self._file)  # type: ignore[arg-type,assignment]
