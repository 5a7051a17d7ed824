"""Where results are written can fail, and nothing measured is lost.

``--out`` behaves like every Unix tool's output (a symlink writes its target, a FIFO or a pipe is
streamed into, a device is never replaced by a file); what can be known before a run is refused
before the first benchmark (exit 2, one line); a disk that fills up or a results store that
cannot be written costs a warning, not the run. Real files, FIFOs, devices, process
substitution, a real file-size limit (the kernel refuses the writes) and the real bench worker.
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import shutil
import stat
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from gpu_tui.core.bench.outputs import NEW_FILE_MODE, Destination
from gpu_tui.core.errors import UsageError
from gpu_tui.ui.bench.run_progress import RunProgress
from tests.helpers.running_app import command, environment, saved_runs
from tests.polling import WORKER_RUN, until
from tests.ui.test_bench_pane import bench_app, notice, start_tiny_run

QUICK = ["bench", "--only", "launch", "--device", "cpu", "--budget", "0.02"]


def bench(
    tmp_path: Path, *args: str, data: Path | None = None, **options: Any
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(*QUICK, *args),
        capture_output=True,
        text=True,
        env=environment(data or tmp_path / "data"),
        timeout=120,
        check=False,
        **options,
    )


def results_in(text: str) -> int:
    document = json.loads(text)
    assert document["finished"] is True
    return len(document["results"])


@pytest.fixture
def closed_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder nobody may create files in — root included (root ignores permission bits, so
    then the folder is made immutable)."""
    folder = tmp_path / "closed"
    folder.mkdir()
    (folder / "existing.json").write_text("{}")
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(folder)], check=True, capture_output=True)
    else:
        folder.chmod(0o555)
    try:
        with pytest.raises(PermissionError):
            (folder / "probe").write_text("")
        yield folder
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o755)


# --- refused before the first benchmark -------------------------------------------------------


def refused_before_running(done: subprocess.CompletedProcess[str], data: Path) -> str:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "loading PyTorch" not in done.stderr
    assert not saved_runs(data)  # the worker never started
    return lines[0]


def test_out_in_a_folder_that_does_not_exist_is_refused_before_running(tmp_path: Path) -> None:
    done = bench(tmp_path, "--out", str(tmp_path / "nowhere" / "run.json"))
    line = refused_before_running(done, tmp_path / "data")
    assert line == (
        f"gpu-tui bench: error: cannot write {tmp_path}/nowhere/run.json: the folder "
        f"{tmp_path}/nowhere does not exist"
    )


def test_out_in_a_folder_that_cannot_be_written_is_refused_before_running(
    tmp_path: Path, closed_folder: Path
) -> None:
    done = bench(tmp_path, "--out", str(closed_folder / "run.json"))
    line = refused_before_running(done, tmp_path / "data")
    assert line.startswith(f"gpu-tui bench: error: cannot write {closed_folder}/run.json: ")


def test_out_that_is_a_directory_is_refused_before_running(tmp_path: Path) -> None:
    done = bench(tmp_path, "--out", str(tmp_path))
    assert refused_before_running(done, tmp_path / "data") == (
        f"gpu-tui bench: error: {tmp_path} is a directory; give a file name"
    )


# --- --out like every Unix tool ------------------------------------------------------------------


def test_out_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("old")
    target.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    done = bench(tmp_path, "--out", str(link))
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    assert results_in(target.read_text()) >= 1
    assert stat.S_IMODE(target.stat().st_mode) == 0o600  # as a shell's `>` would keep it


def test_out_through_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "made.json")
    assert bench(tmp_path, "--out", str(link)).returncode == 0
    assert link.is_symlink()
    assert results_in((tmp_path / "made.json").read_text()) >= 1


def test_out_into_a_fifo_streams_the_document_once(tmp_path: Path) -> None:
    fifo = tmp_path / "results.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    done = bench(tmp_path, "--out", str(fifo))
    reader.join(10)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # never replaced by a file
    assert results_in(received[0].decode()) >= 1


def test_out_into_process_substitution_reaches_the_reader(tmp_path: Path) -> None:
    bash = shutil.which("bash")
    assert bash is not None
    packed = tmp_path / "r.json.gz"
    line = " ".join(command(*QUICK)) + f" --out >(gzip > {packed})"
    done = subprocess.run(
        [bash, "-c", line + "; status=$?; wait; exit $status"],
        capture_output=True,
        text=True,
        env=environment(tmp_path / "data"),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert results_in(gzip.decompress(packed.read_bytes()).decode()) >= 1


def test_out_to_a_device_never_replaces_it(tmp_path: Path) -> None:
    done = bench(tmp_path, "--out", "/dev/null")
    assert done.returncode == 0, done.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_full_device_costs_a_warning_and_exit_1_not_the_results(tmp_path: Path) -> None:
    done = bench(tmp_path, "--json", "--out", "/dev/full")
    assert done.returncode == 1
    assert "gpu-tui bench: error: cannot write /dev/full: No space left on device" in done.stderr
    assert results_in(done.stdout) >= 1
    assert saved_runs(tmp_path / "data")[0]["results"]


def test_a_file_in_a_closed_folder_is_rewritten_in_place(
    tmp_path: Path, closed_folder: Path
) -> None:
    existing = closed_folder / "existing.json"
    done = bench(tmp_path, "--out", str(existing))
    assert done.returncode == 0, done.stderr
    assert results_in(existing.read_text()) >= 1


# --- trouble during the run ----------------------------------------------------------------------


def test_a_disk_that_fills_up_mid_run_costs_warnings_not_the_run(tmp_path: Path) -> None:
    """A file-size limit makes the kernel refuse every write past 2.5 KB: the first save (the
    environment, ~1.8 KB) lands, the saves with results do not — as when a disk fills up."""
    limit = 2500

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    out = tmp_path / "run.json"
    done = bench(tmp_path, "--json", "--out", str(out), preexec_fn=small_files)
    assert done.returncode == 1  # the --out file asked for is not there
    assert results_in(done.stdout) >= 1  # the results still reach stdout
    warnings = [line for line in done.stderr.splitlines() if "File too large" in line]
    assert len(warnings) == 3, done.stderr  # store and --out once each, then the final error
    assert any("cannot save to the results store" in line for line in warnings)
    assert warnings[-1] == f"gpu-tui bench: error: cannot write {out}: File too large"


def test_a_store_that_is_not_a_folder_costs_one_warning(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.write_text("a file where the store should be")
    out = tmp_path / "run.json"
    done = bench(tmp_path, "--json", "--out", str(out), data=data)
    assert done.returncode == 0, done.stderr
    store_lines = [line for line in done.stderr.splitlines() if "results store" in line]
    assert len(store_lines) == 1, done.stderr
    warning = f"gpu-tui bench: warning: cannot save to the results store {data}"
    assert store_lines[0].startswith(warning)
    assert results_in(done.stdout) == results_in(out.read_text()) >= 1
    assert "saved:" not in done.stderr


def test_a_read_only_store_costs_one_warning(tmp_path: Path, closed_folder: Path) -> None:
    done = bench(tmp_path, "--json", data=closed_folder)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("cannot save to the results store") == 1
    assert results_in(done.stdout) >= 1


# --- the destination itself ----------------------------------------------------------------------


def test_a_new_file_gets_the_usual_permissions(tmp_path: Path) -> None:
    destination = Destination.open(tmp_path / "new.json")
    assert destination.write("{}", final=False) is None
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == NEW_FILE_MODE


def test_a_stream_is_written_once_at_the_end(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so opening does not wait
    destination = Destination.open(fifo)
    assert destination.is_stream
    assert destination.write("early", final=False) is None
    assert destination.write("whole", final=True) is None
    assert destination.write("again", final=True) is None
    assert os.read(reader, 100) == b"whole"
    os.close(reader)


def test_a_reader_that_went_away_is_a_problem_not_an_exception(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    destination = Destination.open(fifo)
    os.close(reader)
    assert destination.write("x" * 100, final=True) == f"cannot write {fifo}: Broken pipe"


def test_an_unreadable_path_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(UsageError, match="Not a directory"):
        Destination.open(tmp_path / "file" / "run.json")


# --- the Bench pane ------------------------------------------------------------------------------


async def test_the_pane_runs_on_without_a_store_and_exports_with_x(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    data.write_text("a file where the store should be")
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(data))
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await start_tiny_run(pilot, ["reduction"])
        await until(pilot, lambda: pane.runner is None, "the run to end", timeout=WORKER_RUN)
        assert "cannot save to the results store" in notice(pane)
        assert "x exports this run to a file elsewhere" in notice(pane)
        headline = pane.query_one(RunProgress).headline
        assert headline.startswith("Done: ")
        assert headline.endswith("not saved (x exports it)")
        assert pane.results  # measured and shown
        await pilot.press("x")
        app.screen.query_one(Input).value = str(tmp_path / "kept.json")
        await pilot.press("enter")
        await until(pilot, lambda: (tmp_path / "kept.json").exists(), "kept.json")
        assert results_in((tmp_path / "kept.json").read_text()) == len(pane.results)
