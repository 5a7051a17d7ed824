"""Checking ``--bench-python PATH`` before the worker is started with it."""

from __future__ import annotations

import os
import subprocess

from gpu_tui.core.errors import UsageError


def check_python(path: str) -> str:
    """``--bench-python PATH`` must run; UsageError (exit 2) with one line otherwise."""
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UsageError(f"--bench-python {path}: no executable file there")
    try:
        probe = subprocess.run(
            [path, "-c", "import sys; print(sys.version_info[0] * 100 + sys.version_info[1])"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        version = int(probe.stdout.strip())
    except (OSError, ValueError, subprocess.TimeoutExpired) as error:
        raise UsageError(
            f"--bench-python {path}: not a working Python interpreter ({error})"
        ) from None
    if probe.returncode != 0 or version < 309:
        raise UsageError(f"--bench-python {path}: needs Python 3.9 or newer that runs")
    return os.path.abspath(path)
