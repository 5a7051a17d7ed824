"""Text output fitted to an 80-column terminal: wrapped at spaces, later lines under the last
column, nothing changed for a pipe, and the real commands within the width."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from rich.cells import cell_len

from gpu_tui.commands.terminal_text import fit_line, fit_to_terminal


def test_a_table_row_wraps_under_its_last_column() -> None:
    row = "  speed-up      0.207×  chef (1 CPU core) ÷ brigade (1 GPU): " + "the chef wins " * 4
    lines = fit_line(row, 60).split("\n")
    assert len(lines) > 1
    assert all(len(line) <= 60 for line in lines)
    note = row.index("chef (1")
    assert all(line.startswith(" " * note) and line[note] != " " for line in lines[1:])
    assert " ".join(lines).split() == row.split()  # no word lost


def test_a_paragraph_wraps_under_its_own_indent_and_a_long_url_folds_after_a_slash() -> None:
    url = "https://example.com/" + "a" * 20 + "/" + "b" * 60
    text = fit_to_terminal(f"  See {url} for the whole story of it", 50)
    lines = text.split("\n")
    assert lines[0] == "  See"
    assert all(len(line) <= 50 for line in lines)  # every line inside the width
    assert lines[1] == "  https://example.com/" + "a" * 20 + "/"  # moved out, cut after a /
    assert "".join(line.strip() for line in lines[1:4]) == url  # every character kept
    assert all(line.startswith("  ") and line[2] != " " for line in lines[1:])
    assert fit_line("short", 50) == "short"
    url = "https://example.com/" + "c" * 20  # one that fits a line of its own stays whole
    lines = fit_line(f"  See {url} for the whole story of it", 44).split("\n")
    assert f"  {url}" in lines


def test_a_line_can_hang_where_its_caller_says() -> None:
    line = "WARN driver: " + "the text after the status word goes on " * 3
    lines = fit_line(line, 50, hang=5).split("\n")
    assert len(lines) > 1
    assert all(len(each) <= 50 for each in lines)
    assert all(each.startswith("     ") and each[5] != " " for each in lines[1:])
    assert fit_line(line, 50, hang=40).split("\n")[1][0] != " "  # no room there: its indent


def test_a_pipe_gets_every_line_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    long = "word " * 40
    assert fit_to_terminal(long) == long  # stdout under pytest is not a terminal


@pytest.mark.parametrize(
    "args",
    [
        ("kitchen", "--list"),
        ("kitchen", "--scenario", "complex-recipe"),
        ("guide", "--fit", "llama-3.1-8b"),
        ("guide", "--cost"),
        ("guide", "--cost", "--cloud-price", "3", "--utilisation", "60%"),
        ("guide", "--cost", "--measured-tflops", "700", "--measured-source", "a bench run"),
        ("check", "--demo"),
        ("--demo", "watch", "--count", "2", "--interval", "0.1"),
    ],
    ids=lambda a: " ".join(a),
)
def test_text_commands_fit_80_columns(args: tuple[str, ...]) -> None:
    env = {**os.environ, "COLUMNS": "80"}
    result = subprocess.run(
        [sys.executable, "-m", "gpu_tui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode in (0, 1), result.stderr  # check exits 1 on a failed check
    lines = result.stdout.splitlines()
    assert len(lines) > 3
    too_wide = [line for line in lines if cell_len(line) > 80]
    assert too_wide == []  # a URL too: it folds onto the next line
