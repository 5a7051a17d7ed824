"""A wheel built from the repo carries the styles, and the app finds them when installed."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_ships_styles_and_finds_them(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("gpu_tui-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {Path(name).name for name in names if name.startswith("gpu_tui/styles/")}
    assert {path.name for path in (ROOT / "styles").glob("*.tcss")} <= shipped
    # Unpack it like an install would and ask the package, run from there, where its styles are.
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "from gpu_tui.ui.styles_path import styles_dir; print(styles_dir())",
        ],
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(found) == site / "gpu_tui" / "styles"
