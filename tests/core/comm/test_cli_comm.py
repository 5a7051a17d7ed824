"""``gpu-tui bench --suite comm``: bad usage is one line and exit 2, before any rank starts."""

from __future__ import annotations

import pytest

from gpu_tui.cli import main
from gpu_tui.commands.bench_comm import byte_size


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--nproc", "1"], "--nproc must be at least 2"),
        (["--nproc", "x"], "invalid int value"),
        (["--device", "mps"], "runs on cpu (Gloo) or cuda (NCCL)"),
        (["--device", "cpu", "--device", "cuda"], "one kind of device"),
        (["--rdzv-endpoint", "nohost"], "HOST:PORT"),
        (["--nnodes", "2"], "needs --rdzv-endpoint"),
        (["--only", "reduce"], "no operation named 'reduce'"),
        (["--dtype", "int8"], "invalid choice"),
        (["--max-bytes", "4"], "--max-bytes must be at least 8"),
        (["--max-bytes", "lots"], "not a size"),
        (["--budget", "0"], "--budget must be between"),
        (["--rank-timeout", "0"], "--rank-timeout must be 1 to 86400"),
    ],
)
def test_bad_usage(args: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        device = [] if "--device" in args else ["--device", "cpu"]
        code = main(["bench", "--suite", "comm", *device, *args])
    except SystemExit as stop:
        code = int(stop.code or 0)
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert says in err[0]


@pytest.mark.parametrize(
    ("text", "size"), [("8", 8), ("64K", 65536), ("64MiB", 64 << 20), ("1g", 1 << 30)]
)
def test_sizes(text: str, size: int) -> None:
    assert byte_size(text) == size


def test_help_lists_the_comm_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    shown = capsys.readouterr().out
    for option in ("--nproc", "--nnodes", "--node-rank", "--rdzv-endpoint", "--rank-timeout"):
        assert option in shown
