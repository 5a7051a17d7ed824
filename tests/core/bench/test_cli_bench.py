"""``gpu-tui bench`` as users meet it: usage errors in one line, Ctrl-C that keeps results."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpu_tui.cli import main


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_list_names_every_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("gemm", "bandwidth", "transfer", "launch", "reduction", "linear", "crossover"):
        assert f"\n{name} " in f"\n{out}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--only", "nope"], "no benchmark named 'nope'"),
        (["--device", "tpu"], "unknown device 'tpu'"),
        (["--budget", "0"], "--budget must be between"),
        (["--bench-python", "/no/such/python"], "--bench-python /no/such/python: no executable"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert message in err


def test_only_given_twice_runs_both_as_one_list_does() -> None:
    from gpu_tui.cli import build_parser

    parser = build_parser()
    twice = parser.parse_args(["bench", "--only", "gemm", "--only", "launch", "bandwidth"])
    assert twice.only == ["gemm", "launch", "bandwidth"]
    assert parser.parse_args(["bench"]).only is None  # no --only: every benchmark


def test_quick_and_full_name_the_suite_as_gpu_tui_check_takes_them() -> None:
    from gpu_tui.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["bench"]).suite == "quick"
    assert parser.parse_args(["bench", "--full"]).suite == "full"
    assert parser.parse_args(["bench", "--quick"]).suite == "quick"
    assert parser.parse_args(["bench", "--suite", "comm"]).suite == "comm"


def test_a_device_the_worker_cannot_see_is_refused_and_no_empty_run_is_kept(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The worker refuses it before measuring anything: a run file then would stand in the
    Bench pane as the last run, with nothing in it, in front of the real one."""
    assert main(["bench", "--device", "cuda:7", "--only", "launch", "--budget", "0.02"]) == 2
    assert "device cuda:7 is not visible to the worker" in capsys.readouterr().err
    assert not list(data_dir.rglob("*.json"))


def test_a_corrupt_baseline_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = tmp_path / "old.json"
    baseline.write_text('{"schema_version": 1, "results": "oops"}')
    assert main(["bench", "--baseline", str(baseline)]) == 2
    err = capsys.readouterr().err
    assert err == (
        # the file is what to fix, not a flag: no pointer to --help
        f"gpu-tui bench: error: {baseline}: results: expected a list, got text\n"
    )


def test_ctrl_c_mid_run_keeps_completed_results_and_exits_130(
    tmp_path: Path, data_dir: Path
) -> None:
    out = tmp_path / "run.json"
    command = [
        sys.executable,
        "-m",
        "gpu_tui",
        "bench",
        "--device",
        "cpu",
        "--only",
        "launch",
        "linear",
        "--budget",
        "0.05",
        "--json",
        "--out",
        str(out),
    ]
    env = {**os.environ, "GPU_TUI_DATA_DIR": str(data_dir)}
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert process.stderr is not None
    for line in process.stderr:  # the Linear(10000, 10000) step takes seconds per call here
        if "linear on cpu" in line:
            break
    time.sleep(0.3)
    interrupted_at = time.monotonic()
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    print(f"SIGINT to exit: {time.monotonic() - interrupted_at:.2f} s")
    assert process.returncode == 130, stderr
    document = json.loads(stdout)
    assert document["interrupted"] is True
    assert [r["benchmark"] for r in document["results"]] == ["launch"]
    assert json.loads(out.read_text())["results"] == document["results"]
    (saved,) = (data_dir / "results").glob("bench-*.json")
    assert json.loads(saved.read_text())["interrupted"] is True
    assert "kept 1 completed results" in stderr


def test_json_output_carries_baseline_deltas_and_the_help_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["bench", "--device", "cpu", "--only", "launch", "--budget", "0.02", "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    baseline = tmp_path / "before.json"
    (row,) = first["results"]
    row["value"] *= 2  # the earlier run took twice as long per dispatch
    row["median_seconds"] *= 2
    baseline.write_text(json.dumps(first))
    assert main([*args, "--baseline", str(baseline)]) == 0
    second = json.loads(capsys.readouterr().out)
    (now,) = second["results"]
    assert second["baseline_file"] == str(baseline)
    assert now["baseline"]["value"] == row["value"]
    assert now["baseline"]["median_seconds"] == row["median_seconds"]
    assert now["baseline"]["relative_change"] == pytest.approx(
        (now["value"] - row["value"]) / row["value"]
    )
    assert now["baseline"]["speedup"] == pytest.approx(
        row["median_seconds"] / now["median_seconds"]
    )
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    assert "relative_change" in " ".join(capsys.readouterr().out.split())
