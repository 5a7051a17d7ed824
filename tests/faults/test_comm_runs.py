"""The comm suite for real: torchrun, torch.distributed and Gloo on loopback, 2 and 4 CPU ranks.

Each run is tiny (sizes of a few KiB, budgets of milliseconds): what is checked is that every
operation's result is right on every rank, that a rank that dies or hangs ends the run on all
of them with one message naming it, that a signal stops every rank, and that no process the run
started outlives it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.comm.bandwidth import OPERATIONS
from tests import needs
from tests.fakes import faulty_worker
from tests.helpers.running_app import command, environment, gone
from tests.polling import wait_for

needs.module("torch.distributed")

TINY = ["--suite", "comm", "--max-bytes", "1K", "--budget", "0.005"]


def comm(
    data_dir: Path,
    *args: str,
    fault: str | None = None,
    timeout: float = 60,
    extra: dict[str, str] | None = None,
) -> Any:
    extra = {**({"GPU_TUI_BENCH_FAULT": fault} if fault else {}), **(extra or {})}
    # each rank, started by torchrun, goes through the wrapper too
    faulty = ("--bench-python", faulty_worker.python(data_dir.parent)) if fault else ()
    args = args if "--device" in args else ("--device", "cpu", *args)
    return subprocess.run(
        command("bench", *TINY, *faulty, *args),
        env=environment(data_dir, **extra),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def tree(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def assert_all_gone(processes: list[psutil.Process], within: float = 10) -> None:
    wait_for(
        lambda: all(gone(p) for p in processes),
        "every rank and the launcher to end",
        timeout=within,
    )


@dataclass(frozen=True)
class SharedRun:
    done: subprocess.CompletedProcess[str]
    saved: RunDocument


@pytest.fixture(scope="module")
def four_ranks(tmp_path_factory: pytest.TempPathFactory) -> SharedRun:
    """One run of every operation on 4 ranks, its table on stdout and its run file in --out,
    read by the tests of a run that succeeds (each torchrun costs seconds)."""
    folder = tmp_path_factory.mktemp("comm")
    out = folder / "comm.json"
    done = comm(folder / "data", "--nproc", "4", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return SharedRun(done, RunDocument.from_dict(json.loads(out.read_text())))


def test_four_ranks_every_operation_checked(four_ranks: SharedRun) -> None:
    document = four_ranks.saved
    assert document.finished
    assert not document.errors
    assert [r.variant for r in document.results] == [op for op in OPERATIONS for _ in range(2)]
    for result in document.results:  # two sizes (8 B, 1 KiB) per operation, in order
        assert result.params["ranks"] == 4
        assert result.checks == {
            "ok": True,
            "wrong_elements": 0,
            "wrong_ranks": [],
            "ranks_checked": 4,
        }
        assert result.unit == "GB/s"
        assert result.p20_seconds <= result.median_seconds <= result.p80_seconds
    assert document.environment is not None
    assert document.environment["comm"]["world_size"] == 4


def test_the_table_names_busbw_and_where_its_definition_comes_from(
    four_ranks: SharedRun,
) -> None:
    assert "busbw GB/s" in four_ranks.done.stdout
    assert "nccl-tests" in four_ranks.done.stdout


@pytest.mark.timeout(60)
def test_sizes_past_the_tightest_ranks_memory_are_skipped_on_every_rank(
    private_data_dir: Path,
) -> None:
    # 4 KiB free: 8 B fits (fp32: 16 B + 32 B of checks), 1 KiB needs 6 KiB > 80 % of 4 KiB.
    done = comm(
        private_data_dir,
        "--only",
        "all_reduce",
        "all_gather",
        "--json",
        fault=f"comm-free:{4 * 1024}",
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    measured = [(r["variant"], r["params"]["bytes"]) for r in document["results"]]
    assert measured == [("all_reduce", 8), ("all_gather", 8)]
    skipped = [s for s in document["skipped"] if s["params"].get("bytes") == 1024]
    assert len(skipped) == 2
    assert (
        skipped[0]["reason"]
        == "1,024 B needs about 6.0 KiB per rank; the tightest rank has 4.0 KiB free"
    )


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("fault", "named"),
    [
        ("comm-crash:1@1", "rank 1 died (SIGKILL"),
        ("comm-oom:1@1", "rank 1 ran out of memory during all_reduce fp32 1 KiB"),
    ],
)
def test_a_rank_that_dies_ends_the_run(private_data_dir: Path, fault: str, named: str) -> None:
    done = comm(private_data_dir, "--only", "all_reduce", "--json", fault=fault)
    assert done.returncode == 1
    document = json.loads(done.stdout)
    assert len(document["results"]) == 1  # the point before the fault is kept
    [error] = document["errors"]
    assert error["message"].startswith(named)
    assert "completed results are kept" in error["message"]
    assert done.stderr.count(named) == 1  # said once


@pytest.mark.timeout(60)
def test_a_hung_rank_is_named_within_the_time_limit(private_data_dir: Path) -> None:
    start = time.monotonic()
    done = comm(
        private_data_dir,
        "--only",
        "all_reduce",
        "--rank-timeout",
        "2",
        "--json",
        fault="comm-hang:1@1",
    )
    assert done.returncode == 1
    assert time.monotonic() - start < 30
    document = json.loads(done.stdout)
    assert len(document["results"]) == 1
    [error] = document["errors"]
    assert error["message"].startswith("rank 1 stopped responding during all_reduce fp32 1 KiB")


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_every_rank_and_keeps_results(
    private_data_dir: Path, tmp_path: Path, signum: int, code: int
) -> None:
    out = tmp_path / "comm.json"
    process = subprocess.Popen(
        command(
            "bench",
            "--suite",
            "comm",
            "--device",
            "cpu",
            "--budget",
            "0.5",
            "--out",
            str(out),
            "--json",
        ),
        env=environment(private_data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(
            lambda: out.exists() and json.loads(out.read_text())["results"], "a result", timeout=40
        )
        started = tree(process.pid)
        listening = [
            c.laddr.ip
            for p in started
            for c in p.net_connections(kind="inet")
            if c.status == psutil.CONN_LISTEN
        ]
        assert listening  # the rendezvous store and Gloo's sockets...
        assert set(listening) == {"127.0.0.1"}  # ...on loopback only
        process.send_signal(signum)
        stdout, _ = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == code
    document = json.loads(stdout)
    assert document["interrupted"] is True
    assert document["results"]
    assert_all_gone(started)


@pytest.mark.timeout(60)
def test_no_rank_outlives_a_killed_gpu_tui(private_data_dir: Path) -> None:
    process = subprocess.Popen(
        command("bench", "--suite", "comm", "--device", "cpu", "--budget", "0.5"),
        env=environment(private_data_dir),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:  # the first point has begun: every rank is up
            if "[1/" in line:
                break
        started = tree(process.pid)
        assert len(started) >= 3  # the launcher and two ranks
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        process.kill()
    assert_all_gone(started)


@pytest.mark.timeout(60)
def test_a_port_in_use_is_one_line_and_exit_2(private_data_dir: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = comm(private_data_dir, "--rdzv-endpoint", f"127.0.0.1:{port}")
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if "in use" in line]
    assert errors == [
        "gpu-tui bench: error: the rendezvous port is in use "
        "(OSError: [Errno 98] Address already in use)"
    ]
    assert "Traceback" not in done.stderr


@pytest.mark.timeout(60)
def test_cuda_without_a_gpu_is_one_line_and_exit_2(private_data_dir: Path) -> None:
    done = comm(private_data_dir, "--device", "cuda")
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("gpu-tui bench: error: no CUDA GPU is visible")
