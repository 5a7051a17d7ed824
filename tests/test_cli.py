"""The command line as a user runs it: `python -m gpu_tui ...` in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gpu_tui.commands import COMMAND_NAMES, error_lines


def gpu_tui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpu_tui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def test_info_json_on_this_machine_without_a_gpu() -> None:
    result = gpu_tui("info", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["schema_version"] == 2
    assert document["cpu"]["logical_cores"] == os.cpu_count()
    assert document["accelerators"] == []
    nvml = document["backends"]["nvml"]
    assert nvml["available"] is False
    assert nvml["reason"]  # says why, e.g. the library is not found


@pytest.mark.parametrize("argv", [("--demo", "info", "--json"), ("info", "--demo", "--json")])
def test_demo_adds_one_simulated_accelerator(argv: tuple[str, ...]) -> None:
    result = gpu_tui(*argv)
    assert result.returncode == 0, result.stderr
    (gpu,) = json.loads(result.stdout)["accelerators"]
    assert gpu["simulated"] is True
    assert "SIMULATED" in gpu["name"]
    assert gpu["peaks"]["bf16_tflops"] > 0


def test_info_for_humans_names_the_cpu() -> None:
    result = gpu_tui("info")
    assert result.returncode == 0, result.stderr
    assert "CPU ·" in result.stdout
    assert "FP32 peak" in result.stdout
    assert "NVIDIA driver (NVML)" in result.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ("--bogus",),
        ("info", "--bogus"),
        ("--pane", "nowhere"),
        ("--refresh", "0"),
        ("--refresh", "fast"),
        ("nonsense-command",),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(argv: tuple[str, ...]) -> None:
    result = gpu_tui(*argv)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("gpu-tui")


@pytest.mark.parametrize(
    ("argv", "refused"),
    [
        (("guide", "--cost", "--gpu", "H900"), "--gpu"),  # not --gpus-per-node
        (("guide", "--cost", "--price", "-3"), "--price"),  # not --price-date
        (("--pan", "monitor"), "--pan"),
    ],
)
def test_a_flag_counts_only_as_spelled(argv: tuple[str, ...], refused: str) -> None:
    """No prefix matching: a shortened flag is refused by its own name, not read as another."""
    result = gpu_tui(*argv)
    assert result.returncode == 2
    assert f"unrecognized arguments: {refused}" in result.stderr


def test_the_tui_without_a_terminal_says_so() -> None:
    result = gpu_tui()
    assert result.returncode == 2
    assert "needs a terminal" in result.stderr


def test_help_documents_every_subcommand() -> None:
    result = gpu_tui("--help")
    assert result.returncode == 0
    for word in ("info", "--demo", "--pane", "--refresh"):
        assert word in result.stdout


def test_an_unknown_command_is_named_as_one_with_the_commands_there_are() -> None:
    result = gpu_tui("nosuchcmd")
    assert result.returncode == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "unknown command 'nosuchcmd'" in line
    assert "info, watch" in line


@pytest.mark.parametrize(
    ("argv", "form"),
    [
        (
            ("--refresh", "0"),
            "gpu-tui: error: --refresh must be between 0.1 and 60 seconds, got '0'",
        ),
        (("nosuchcmd",), "gpu-tui: error: unknown command 'nosuchcmd'"),
        (("info", "--bogus"), "gpu-tui info: error: unrecognized arguments: --bogus (try "),
        (("watch", "--count", "0"), "gpu-tui watch: error: --count must be a whole number of at"),
        (("watch", "--interval", "0"), "gpu-tui watch: error: --interval must be between 0.1 and"),
        (("check", "--bogus"), "gpu-tui check: error: unrecognized arguments: --bogus"),
        (("guide", "--cost", "--price", "-3"), "gpu-tui guide: error: unrecognized arguments"),
        (("kitchen", "--set", "cooks=0"), "gpu-tui kitchen: error: "),
        (("bench", "--baseline", "/nonexistent/old.json"), "gpu-tui bench: error: /nonexistent"),
        (("export", "--interval", "0"), "gpu-tui export: error: --interval must be between "),
        (("fleet",), "gpu-tui fleet: error: no Prometheus server: "),
        (("schema", "infos"), "gpu-tui schema: error: no schema named 'infos'"),
        (("kitchen", "--scenario", "nope"), "gpu-tui kitchen: error: unknown scenario 'nope'"),
        (("guide", "--cost", "--pue", "0"), "gpu-tui guide: error: --pue must be between 1 and 5,"),
        (("guide", "--fit", "8B", "--pue", "2"), "gpu-tui guide: error: --pue does not apply to"),
        (("fleet", "--prometheus", "ftp://x"), "gpu-tui fleet: error: --prometheus: not an http"),
        (("fleet", "--timeout", "0"), "gpu-tui fleet: error: --timeout must be between 0.1 and"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else "",
)
def test_every_command_refuses_bad_input_in_one_form(
    argv: tuple[str, ...],
    form: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``gpu-tui COMMAND: error: …``, one line, exit 2: whether argparse refused it or the
    command did (a log of several commands then says which one complained)."""
    from gpu_tui.cli import main

    monkeypatch.delenv("GPU_TUI_PROMETHEUS", raising=False)
    with pytest.raises(SystemExit) as refused:  # argparse's own exit, or main's code
        raise SystemExit(main(list(argv)))
    out, err = capsys.readouterr()
    assert (refused.value.code, out) == (2, "")
    (line,) = err.splitlines()
    assert line.startswith(form)
    # Where to read the usage, whoever refused it: argparse or the command; not for a file
    # that cannot be read, which no flag fixes.
    command = argv[0] if argv[0] in COMMAND_NAMES else None
    pointer = f" (try '{error_lines.who(command)} --help')"
    assert line.endswith(pointer) != ("/nonexistent" in line)
    assert "argument --" not in line  # the flag as typed leads: "--pue must be …"
    assert "must be" not in line or "between" in line or "at least" in line


@pytest.mark.parametrize(
    ("argv", "got"),
    [
        (("guide", "--cost", "--cloud-price", "-1"), "got '-1'"),
        (("bench", "--budget", "0"), "got '0'"),
        (("watch", "--count", "x"), "got 'x'"),
    ],
)
def test_the_value_given_is_quoted_one_way(
    argv: tuple[str, ...], got: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpu_tui.cli import main

    with pytest.raises(SystemExit) as refused:
        raise SystemExit(main(list(argv)))
    assert refused.value.code == 2
    assert f", {got} (try " in capsys.readouterr().err


def test_a_run_that_fails_says_so_in_the_same_form_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from gpu_tui.cli import main

    code = main(["fleet", "--prometheus", "http://127.0.0.1:9", "--timeout", "2"])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    (line,) = err.splitlines()
    assert line.startswith("gpu-tui fleet: error: cannot reach"), line
