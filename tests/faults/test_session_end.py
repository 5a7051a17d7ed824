"""Every way a session ends is a clean end: SIGINT, SIGTERM and SIGHUP stop the run and keep what
was measured (``--out``, the results store, ``--json`` marked interrupted) with exit 128 + N, and
no benchmark worker outlives gpu-tui, not even when gpu-tui is killed with SIGKILL.

Real processes throughout: gpu-tui as a subprocess (the TUI on a pseudo-terminal of its own), the
real bench worker, with a fault injected (``tests/fakes/faulty_worker.py``) to hold it mid-run.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.fakes import faulty_worker
from tests.helpers.running_app import (
    Terminal,
    command,
    environment,
    gone,
    saved_results,
    saved_runs,
    workers_of,
)
from tests.polling import wait_for

pytestmark = pytest.mark.usefixtures("no_process_left")

# launch results arrive in a second or two; then the worker is held inside "reduction"
HELD_RUN = ["bench", "--only", "launch", "reduction", "--device", "cpu", "--budget", "0.05"]
STARTUP_SECONDS = 60.0  # importing torch in the worker on a busy 2-core machine


def start_bench(tmp_path: Path, fault: str, *extra: str) -> tuple[subprocess.Popen[str], Path]:
    data = tmp_path / "data"
    faulty = ("--bench-python", faulty_worker.python(tmp_path)) if fault else ()
    process = subprocess.Popen(
        command(*HELD_RUN, *faulty, *extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(data, GPU_TUI_BENCH_FAULT=fault),
    )
    return process, data


def test_a_signal_stops_bench_and_keeps_every_result_everywhere(tmp_path: Path) -> None:
    # Ctrl-C here; SIGTERM and SIGHUP take the same path (tests/core/test_ending.py).
    signum = signal.SIGINT
    out = tmp_path / "run.json"
    process, data = start_bench(tmp_path, "hang:reduction", "--json", "--out", str(out))
    try:
        wait_for(
            lambda: saved_results(data) >= 1, "the first saved result", timeout=STARTUP_SECONDS
        )
        workers = workers_of(process.pid)
        assert workers, "the run has a worker process"
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=15)
    finally:
        process.kill()
    assert process.returncode == 128 + signum, stderr
    assert "Traceback" not in stderr
    printed = json.loads(stdout)
    written = json.loads(out.read_text())
    [stored] = saved_runs(data)
    for document in (printed, written, stored):
        assert document["interrupted"] is True
        assert not document["finished"]
        assert [r["benchmark"] for r in document["results"]].count("launch") >= 1
        assert document["finished_at"]
    assert len(printed["results"]) == len(written["results"]) == len(stored["results"])
    wait_for(lambda: all(gone(w) for w in workers), "the worker to be gone", timeout=2.0)


def test_a_signal_before_the_worker_answers_still_ends_cleanly(tmp_path: Path) -> None:
    process, _ = start_bench(tmp_path, "", "--json")
    try:
        wait_for(lambda: bool(workers_of(process.pid)), "the worker", timeout=STARTUP_SECONDS)
        workers = workers_of(process.pid)
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=15)
    finally:
        process.kill()
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert json.loads(stdout)["interrupted"] is True
    wait_for(lambda: all(gone(w) for w in workers), "the worker to be gone", timeout=2.0)


@pytest.mark.parametrize(
    "fault",
    [
        "spin:reduction",  # a Python loop that never looks at the stop flag
        "gil:reduction",  # one C call that holds the GIL for hours
        "hang:reduction",  # a stuck call, sleeping
    ],
)
def test_the_worker_dies_within_a_second_of_gpu_tui_killed_with_sigkill(
    tmp_path: Path, fault: str
) -> None:
    process, data = start_bench(tmp_path, fault)
    try:
        wait_for(
            lambda: saved_results(data) >= 1, "the first saved result", timeout=STARTUP_SECONDS
        )
        [worker] = workers_of(process.pid)
        time.sleep(0.3)  # well inside the held benchmark
        assert not gone(worker)
        process.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        wait_for(lambda: gone(worker), "the orphaned worker to die", timeout=1.0)
        assert time.monotonic() - killed < 1.0
    finally:
        process.kill()
        process.communicate(timeout=10)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_watch_ends_on_a_signal_with_its_lines_whole(tmp_path: Path, signum: int) -> None:
    process = subprocess.Popen(
        command("watch", "--json", "--interval", "0.2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(tmp_path / "data"),
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        process.send_signal(signum)
        rest, stderr = process.communicate(timeout=10)
    finally:
        process.kill()
    assert process.returncode == 128 + signum
    assert "Traceback" not in stderr
    for line in [first, *rest.splitlines()]:
        assert "cpu" in json.loads(line)


# --- the TUI, on a terminal of its own ----------------------------------------------------------


ENDING_SECONDS = 30
"""How long the TUI may take to stop its worker, save the run and exit: seconds on a quiet
machine, many more on a two-core CI machine running three other tests beside it."""


def start_tui_run(tmp_path: Path, fault: str = "hang:bandwidth") -> tuple[Terminal, Path]:
    """The Bench pane with a quick CPU run going on (held in bandwidth by an injected fault)."""
    data = tmp_path / "data"
    faulty = ["--bench-python", faulty_worker.python(tmp_path)]
    terminal = Terminal(["--pane", "bench", *faulty], environment(data, GPU_TUI_BENCH_FAULT=fault))
    wait_for(lambda: terminal.shows("Ready"), "the Bench pane", timeout=30)
    terminal.press_until("r", lambda: bool(workers_of(terminal.process.pid)), "the run's worker")
    wait_for(lambda: saved_results(data) >= 1, "the first saved result", timeout=STARTUP_SECONDS)
    return terminal, data


@pytest.mark.parametrize("how", ["SIGTERM", "terminal closed"])  # the latter: SIGHUP
def test_the_tui_ends_a_run_cleanly_when_its_session_ends(tmp_path: Path, how: str) -> None:
    terminal, data = start_tui_run(tmp_path)
    try:
        workers = workers_of(terminal.process.pid)
        assert workers
        if how == "terminal closed":
            terminal.hang_up()  # the kernel sends SIGHUP, as when an SSH connection drops
            expected = 128 + signal.SIGHUP
        else:
            signum = getattr(signal, how)
            terminal.signal(signum)
            expected = 128 + signum
        assert terminal.wait(ENDING_SECONDS) == expected
        wait_for(lambda: all(gone(w) for w in workers), "the worker to be gone", timeout=2.0)
        [run] = saved_runs(data)
        assert run["interrupted"] is True
        assert run["finished_at"]
        assert len(run["results"]) >= 1
    finally:
        terminal.close()


def test_the_tui_killed_with_sigkill_leaves_no_worker(tmp_path: Path) -> None:
    terminal, data = start_tui_run(tmp_path, fault="spin:bandwidth")
    try:
        [worker] = workers_of(terminal.process.pid)
        terminal.signal(signal.SIGKILL)
        wait_for(lambda: gone(worker), "the orphaned worker to die", timeout=1.0)
        assert len(saved_runs(data)[0]["results"]) >= 1  # saved after every result
    finally:
        terminal.close()


def test_the_kitchen_measurement_stops_with_the_tui(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = environment(data, GPU_TUI_BENCH_FAULT="hang:reduction,hang:crossover")
    faulty = ["--bench-python", faulty_worker.python(tmp_path)]
    terminal = Terminal(["--pane", "kitchen", *faulty], env)
    try:
        wait_for(lambda: terminal.shows("Kitchen"), "the Kitchen pane", timeout=30)
        terminal.press_until(
            "m", lambda: bool(workers_of(terminal.process.pid)), "the measurement's worker"
        )
        workers = workers_of(terminal.process.pid)
        terminal.signal(signal.SIGTERM)
        assert terminal.wait(ENDING_SECONDS) == 128 + signal.SIGTERM
        wait_for(lambda: all(gone(w) for w in workers), "the worker to be gone", timeout=2.0)
    finally:
        terminal.close()
