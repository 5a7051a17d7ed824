"""Lint, format and strict type checks as tests: the README's one test command runs them.

They cover ``scripts/`` as they cover the package: every script is a ``snake_case.py`` file (the
shell one ``gpu_check.sh``), so ruff and mypy find them all; a script without ``.py`` would be
skipped silently, and a test below refuses one.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_check_is_clean() -> None:
    result = run("ruff", "check", "gpu_tui", "tests", "scripts")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = run("ruff", "format", "--check", "gpu_tui", "tests", "scripts")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean() -> None:
    result = run("mypy")  # configured in pyproject.toml: strict, files = gpu_tui and scripts
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_script_is_a_file_the_checks_see() -> None:
    """A Python script named without ``.py`` would pass ruff and mypy unread."""
    named = re.compile(r"[a-z][a-z0-9_]*\.(py|sh)|README\.md")
    unseen = [
        path.name
        for path in sorted((ROOT / "scripts").iterdir())
        if path.is_file() and not named.fullmatch(path.name)
    ]
    assert not unseen, f"name these snake_case.py (or .sh for a shell script): {unseen}"
