"""Every test gets its own empty data directory, so none reads or writes the user's saved runs;
and no app animates (a Pilot key press waits for every animation to end, and the tab underline's
slide alone made each pane switch cost 0.3 s)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import textual.constants

os.environ["TEXTUAL_ANIMATIONS"] = "none"  # apps this suite starts in a terminal of their own
textual.constants.TEXTUAL_ANIMATIONS = "none"  # type: ignore[misc]  # apps started in-process


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "gpu-tui-data"
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(data))
    return data
