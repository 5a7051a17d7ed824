"""The README's commands are the ones CI runs, and its screenshots exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_ci_runs_exactly_the_readme_test_command() -> None:
    match = re.search(r"<!-- test-command -->\s*```(?:bash|sh)?\n(.+?)\n```", README)
    assert match, "README must mark its test command with <!-- test-command -->"
    command = match.group(1).strip()
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert command in ci_lines


def test_every_screenshot_the_readme_shows_exists() -> None:
    images = re.findall(r"\]\((screenshots/[^)]+)\)", README)
    assert images, "the README shows at least one screenshot"
    for image in images:
        assert (ROOT / image).is_file(), image
