"""The worker never outlives gpu-tui: it dies with the process that started it, however that ends.

A worker left computing at 100 % of a core after someone's SSH session dropped is the worst thing
this tool could do, so two watches run, each enough on its own:

* On Linux the kernel kills the worker (``PR_SET_PDEATHSIG``) the moment its parent dies, even
  in the middle of a C call that holds the GIL. The kernel ties this to the parent *thread* that
  started the worker, which is why the runner starts it from a thread that lives exactly as long
  as the worker does.
* Everywhere, a daemon thread looks at the parent process id four times a second: once the parent
  is gone the worker is adopted by another process, and exits. A Python loop gives the thread
  its turn every few milliseconds; torch releases the GIL in its kernels.

The runner names itself in ``$GPU_TUI_PARENT_PID``; a worker started by hand (a plan piped in) has
no parent to watch.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PARENT_VARIABLE = "GPU_TUI_PARENT_PID"
POLL_SECONDS = 0.25
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
EXIT_ORPHANED = 5


def expected_parent() -> int | None:
    """The pid the runner said it has, or None when started by hand."""
    try:
        return int(os.environ[PARENT_VARIABLE])
    except (KeyError, ValueError):
        return None


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # no prctl (an unusual libc): the thread below still watches
        pass


def _orphaned() -> None:
    # Nobody reads our results any more; exit at once, without flushing to a dead pipe.
    os._exit(EXIT_ORPHANED)


def watch_parent() -> None:
    """Die with the parent named in the environment (no-op without one)."""
    parent = expected_parent()
    if parent is None:
        return
    _die_with_parent()
    if os.getppid() != parent:  # it died before the watch was set up
        _orphaned()

    def poll() -> None:
        while os.getppid() == parent:
            time.sleep(POLL_SECONDS)
        _orphaned()

    threading.Thread(target=poll, name="bench-parent-watch", daemon=True).start()
