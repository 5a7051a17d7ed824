"""Every test gets its own empty data directory, so none reads or writes the user's saved runs."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "gpu-tui-data"
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(data))
    return data
