"""Nothing in the code, scripts, styles, tests or README points at a document the repository lacks.

A rule is stated where it applies (the benchmark rules in ``gpu_tui/core/bench/__init__.py``'s
docstring) and cited by its name; a figure's source is a public address. A citation such as
"rule R7", or a path such as ``shared/reference/...`` or ``DESIGN.md``, would send a newcomer
looking for a file that is not here.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("gpu_tui", "scripts", "styles", "tests", ".ci", "README.md", "pyproject.toml")
SKIPPED_DIRS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}

OUTSIDE_DOCUMENT = re.compile(r"DESIGN\.md|STYLE\.md|shared/reference|\.\./shared")
# "R2", "rule R7", "(R16)"; not "DeepSeek-R1" or "V3/R1", which name models
RULE_NUMBER = re.compile(r"(?<![\w/-])(?:rule )?R\d{1,2}\b")


def scanned_files() -> Iterator[Path]:
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            yield path
        elif path.is_dir():
            for found in sorted(path.rglob("*")):
                if found.is_file() and not SKIPPED_DIRS.intersection(found.parts):
                    yield found


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None  # binary: an image, a compiled file


def is_python(path: Path, text: str) -> bool:
    return path.suffix == ".py" or (
        path.suffix == "" and text.startswith("#!") and "python" in text.split("\n", 1)[0]
    )


def prose_lines(text: str) -> set[int]:
    """Line numbers of a Python file's comments and docstrings (any string statement)."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            lines.add(token.start[0])
    for node in ast.walk(ast.parse(text)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def citations(path: Path, text: str) -> Iterator[str]:
    """``file:line: text`` for every pointer at a document outside the repository."""
    lines = text.splitlines()
    if is_python(path, text):
        rule_lines = prose_lines(text)
    elif path.suffix == ".svg":
        rule_lines = set()  # rendered screens: only a document path would be a finding there
    else:
        rule_lines = set(range(1, len(lines) + 1))  # markdown, shell, styles: all prose
    where = path.relative_to(ROOT)
    for number, line in enumerate(lines, start=1):
        if OUTSIDE_DOCUMENT.search(line) or (number in rule_lines and RULE_NUMBER.search(line)):
            yield f"{where}:{number}: {line.strip()[:120]}"


def test_rule_numbers_match_only_citations() -> None:
    hits = [RULE_NUMBER.search(text) is not None for text in ("rule R2", "(R16)", "R9 telemetry")]
    misses = [RULE_NUMBER.search(t) for t in ("DeepSeek-R1", "DeepSeek-V3/R1", "R2D2", "PR12")]
    assert all(hits)
    assert misses == [None] * 4


def test_nothing_cites_a_document_outside_the_repository() -> None:
    this = Path(__file__).resolve()
    found = []
    for path in scanned_files():
        text = read_text(path)
        if path.resolve() != this and text is not None:
            found.extend(citations(path, text))
    assert not found, (
        "state the rule where it applies (bench rules: gpu_tui/core/bench/__init__.py) and cite "
        "it by name; give a source as its public address:\n" + "\n".join(found)
    )
