"""Where a run is written (``--out FILE``, the Bench pane's export): the way every Unix tool writes.

* A regular file is written whole and atomically (a temp file in the same folder, then a rename),
  so a reader or a crash sees the old file or the new one, never half of one. A symlink is
  followed: its target is written and the link stays. An existing file keeps its permissions.
* Anything else that can be written — a FIFO, a pipe (``--out >(gzip > r.json.gz)`` is
  ``/dev/fd/63``), a device such as ``/dev/stdout`` — is opened once and written once, when the
  run ends. It is never replaced by a file.
* What can be known before a run is checked before it (:meth:`Destination.open` raises
  :class:`InputError`): a folder that does not exist or cannot be written, a directory given as
  the file. An hour of measuring is never lost to a typo.
* What goes wrong during a run (a full disk, a reader that went away) is returned as one line,
  never raised: the run goes on, and its results still reach every destination that works.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from gpu_tui.core.errors import InputError


def _umask() -> int:
    # Read once, at import (single-threaded then): os.umask can only be read by setting it.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


NEW_FILE_MODE = 0o666 & ~_umask()


def _why(error: OSError) -> str:
    return error.strerror or str(error)


def atomic_write(path: Path, text: str, *, mode: int | None = None) -> None:
    """Write ``path`` through a temp file in its folder, fsync, rename. Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = NEW_FILE_MODE
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), mode)
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _creatable_in(folder: Path) -> str | None:
    """None when a file can be created in ``folder`` (tried for real), else why not."""
    try:
        handle, probe = tempfile.mkstemp(prefix=".gpu-tui-probe-", dir=folder)
    except OSError as error:
        return _why(error)
    os.close(handle)
    Path(probe).unlink(missing_ok=True)
    return None


def _open_stream(path: Path, waiting: Callable[[str], None] | None) -> int:
    """Open a FIFO or device for writing. A FIFO with no reader yet is waited for, as a shell
    waits at ``cmd > fifo``."""
    flags = os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC
    try:
        descriptor = os.open(path, flags | os.O_NONBLOCK)
    except OSError as error:
        if error.errno != errno.ENXIO:  # ENXIO: a FIFO nobody reads yet
            raise InputError(f"cannot write {path}: {_why(error)}") from None
        if waiting is not None:
            waiting(f"waiting for a reader of {path} (a FIFO)")
        try:
            descriptor = os.open(path, flags)
        except OSError as late:
            raise InputError(f"cannot write {path}: {_why(late)}") from None
    os.set_blocking(descriptor, True)
    return descriptor


class Destination:
    """One file the user named. Open it with :meth:`open` before measuring anything."""

    def __init__(self, path: Path, target: Path, stream: int | None, in_place: bool) -> None:
        self.path = path
        """As the user gave it (shown in messages)."""
        self.target = target
        """With symlinks followed: what is written."""
        self._stream = stream
        self.is_stream = stream is not None
        """A FIFO, pipe or device: written once, at the end."""
        self._in_place = in_place

    @classmethod
    def open(cls, path: Path, *, waiting: Callable[[str], None] | None = None) -> Destination:
        """Check ``path`` can be written (and open it if it is not a regular file); one-line
        InputError otherwise."""
        try:
            status: os.stat_result | None = os.stat(path)  # follows symlinks
        except FileNotFoundError:
            status = None  # a new file, or a symlink to one still to be made
        except OSError as error:
            raise InputError(f"cannot write {path}: {_why(error)}") from None
        if status is not None and stat.S_ISDIR(status.st_mode):
            raise InputError(f"{path} is a directory; give a file name")
        if status is not None and not stat.S_ISREG(status.st_mode):
            return cls(path, path, _open_stream(path, waiting), in_place=False)
        target = Path(os.path.realpath(path))
        folder = target.parent
        if not folder.is_dir():
            raise InputError(f"cannot write {path}: the folder {folder} does not exist")
        refused = _creatable_in(folder)
        if refused is None:
            return cls(path, target, None, in_place=False)
        if status is not None and os.access(target, os.W_OK):
            # The folder is closed but the file is writable: rewrite it in place, like `>`.
            return cls(path, target, None, in_place=True)
        raise InputError(f"cannot write {path}: {refused} (in {folder})")

    def write(self, text: str, *, final: bool) -> str | None:
        """Write the whole document; a stream only when ``final``. Returns what went wrong,
        in one line, or None."""
        try:
            if self.is_stream:
                if final and self._stream is not None:
                    self._write_stream(text.encode("utf-8"))
            elif self._in_place:
                with open(self.target, "r+", encoding="utf-8") as out:
                    out.truncate(0)
                    out.write(text)
            else:
                atomic_write(self.target, text)
        except OSError as error:
            return f"cannot write {self.path}: {_why(error)}"
        return None

    def _write_stream(self, data: bytes) -> None:
        assert self._stream is not None
        descriptor, self._stream = self._stream, None
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view) :]
        finally:
            os.close(descriptor)

    def close(self) -> None:
        """Let go of a stream that was never written (a run that never started)."""
        if self._stream is not None:
            os.close(self._stream)
            self._stream = None
