"""Where gpu-tui keeps what it saves (benchmark runs, the last health check)."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """``$GPU_TUI_DATA_DIR``, else ``$XDG_DATA_HOME/gpu-tui``, else ``~/.local/share/gpu-tui``."""
    override = os.environ.get("GPU_TUI_DATA_DIR")
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "gpu-tui"
