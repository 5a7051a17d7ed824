"""The README's install block, run verbatim in a fresh virtual environment (a private HOME, so
``~/.venvs`` is the test's own), gives a ``gpu-tui`` that starts: ``--version``, ``info``, and
the terminal UI with ``--demo`` on a pseudo-terminal, quit with q."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.running_app import Terminal
from tests.polling import wait_for

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def block(marker: str) -> str:
    match = re.search(rf"<!-- {marker} -->\s*```bash\n(.+?)\n```", README, re.DOTALL)
    assert match, f"the README marks a block with <!-- {marker} -->"
    return match.group(1)


@pytest.mark.timeout(300)
def test_the_readme_install_block_gives_a_working_gpu_tui(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    ours = str(Path(sys.executable).parent)  # the system's python3, not the tests' venv
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != ours)
    # The developer's pip cache: the block downloads nothing it has already fetched.
    env.update(HOME=str(home), PIP_CACHE_DIR=str(Path.home() / ".cache" / "pip"))
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block("install")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(r"^gpu-tui \d+\.\d+\.\d+$", done.stdout, re.MULTILINE), done.stdout
    installed = home / ".venvs" / "gpu-tui" / "bin" / "gpu-tui"
    info = subprocess.run(
        [str(installed), "info"], env=env, capture_output=True, text=True, timeout=60
    )
    assert info.returncode == 0, info.stderr
    assert info.stdout.startswith("CPU · ")
    # The JSON Schemas are package data: the installed wheel must carry them.
    schema = subprocess.run(
        [str(installed), "schema", "info"], env=env, capture_output=True, text=True, timeout=60
    )
    assert schema.returncode == 0, schema.stderr
    assert json.loads(schema.stdout)["title"] == "gpu-tui info --json"
    # The terminal UI from the installed wheel: its stylesheets are inside the package.
    env.update(TERM="xterm-256color", GPU_TUI_DATA_DIR=str(tmp_path / "data"))
    terminal = Terminal(["--demo"], env, program=str(installed))
    try:
        wait_for(lambda: terminal.shows("SIMULATED"), "the first screen", timeout=60)
        terminal.press_until("q", lambda: terminal.process.poll() is not None, "quit")
        assert terminal.wait(10) == 0
    finally:
        terminal.close()
