"""Run files from elsewhere, broken or hostile: checked before use, never trusted.

Every case goes three ways: ``gpu-tui bench --baseline FILE`` (exit 2, one line naming the file
and the first problem, before any worker starts), the store's loader, and the Bench pane (the
file is named as unreadable with its reason, the pane goes on). Text a file carries is shown as
written: never read as markup, never sent to the terminal as an escape sequence.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from gpu_tui.cli import main
from gpu_tui.core.bench import store
from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.errors import UsageError
from gpu_tui.ui.bench.path_dialog import PathDialog
from gpu_tui.ui.bench.results_table import ResultsTable
from gpu_tui.ui.bench.run_files import unreadable_notice
from gpu_tui.ui.bench.run_progress import RunProgress
from gpu_tui.ui.bench_pane import BenchPane
from tests.polling import until
from tests.ui.test_bench_pane import FIXTURES, RECORDED, bench_app

REAL_RUN = FIXTURES / RECORDED
"""A run recorded by a real worker (23 CPU results; results[3] is GEMM n=2048)."""
NEWER = "bench-20991231T235959Z-quick.json"
"""Sorts before the recorded run: the store lists it as the newest."""


def real_run() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(REAL_RUN.read_text())
    return data


def changed(change: Callable[[dict[str, Any]], object]) -> str:
    """The real run with one change, as JSON text (NaN and Infinity written as Python does)."""
    data = real_run()
    change(data)
    return json.dumps(data, indent=1)


def set_at(path: list[str | int], value: object) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        target: Any = data
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return change


def drop(path: list[str | int]) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        target: Any = data
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]

    return change


R3 = ["results", 3]
Content = str | bytes

CASES: list[tuple[str, Content, str]] = [
    ("empty", "", "is empty"),
    ("blank", "  \n\t ", "is empty"),
    ("binary", bytes(range(256)) * 4, "is not UTF-8 text (byte 0x80 at offset 128)"),
    ("latin-1", '{"suite": "caf\xe9"}'.encode("latin-1"), "is not UTF-8 text (byte 0xe9"),
    ("not-json", "{not json", "is not valid JSON: object keys must be strings at line 1, column 2"),
    ("truncated", REAL_RUN.read_text()[:5000], "is not valid JSON"),
    ("deep-100k", "[" * 100_000 + "]" * 100_000, "is nested too deeply to be a run file"),
    (
        "nan",
        changed(set_at([*R3, "median_seconds"], float("nan"))),
        "NaN at line 191, column 22: a run file holds finite numbers only",
    ),
    (
        "infinity",
        changed(set_at([*R3, "value"], float("inf"))),
        "Infinity at line 195, column 13: a run file holds finite numbers only",
    ),
    (
        "minus-infinity-in-free-form",
        changed(set_at(["environment", "precision_flags", "x"], float("-inf"))),
        "-Infinity at line 28, column 10: a run file holds finite numbers only",
    ),
    (
        "1e400",
        changed(set_at([*R3, "median_seconds"], 1234.5)).replace("1234.5", "1e400"),
        "holds a number out of range: no run file field is that large",
    ),
    (
        "30-digit-int",
        changed(set_at([*R3, "repeats"], 10**30)),
        "results[3].repeats: expected a whole number <= 1e+18",
    ),
    ("top-level-list", "[1, 2]", "is not a gpu-tui bench results file: the top level is a list"),
    ("no-version", changed(drop(["schema_version"])), "it has no schema_version"),
    (
        "version-as-text",
        changed(set_at(["schema_version"], "1")),
        "schema_version must be 1, got '1'",
    ),
    (
        "future-version",
        changed(set_at(["schema_version"], 2)),
        "has schema_version 2; this gpu-tui reads version 1: upgrade gpu-tui to read it",
    ),
    ("version-zero", changed(set_at(["schema_version"], 0)), "schema_version must be 1, got 0"),
    (
        "results-an-object",
        changed(set_at(["results"], {"a": 1})),
        "results: expected a list, got an object",
    ),
    ("result-is-text", changed(set_at(R3, "gemm")), "results[3]: expected an object, got text"),
    (
        "median-text",
        changed(set_at([*R3, "median_seconds"], "fast")),
        "results[3].median_seconds: expected a number, got text",
    ),
    (
        "median-bool",
        changed(set_at([*R3, "median_seconds"], True)),
        "results[3].median_seconds: expected a number, got true or false",
    ),
    (
        "median-negative",
        changed(set_at([*R3, "median_seconds"], -1)),
        "results[3].median_seconds: expected a number > 0",
    ),
    (
        "median-zero",
        changed(set_at([*R3, "median_seconds"], 0)),
        "results[3].median_seconds: expected a number > 0",
    ),
    (
        "median-eleven-years",
        changed(set_at([*R3, "median_seconds"], 3.5e8)),
        "results[3].median_seconds: expected a number <= 1e+06",
    ),
    (
        "value-tiny",
        changed(set_at([*R3, "value"], 1e-300)),
        "results[3].value must be 0 or at least 1e-12",
    ),
    (
        "repeats-fraction",
        changed(set_at([*R3, "repeats"], 2.5)),
        "results[3].repeats: expected a whole number, got a number",
    ),
    (
        "size-text",
        changed(set_at([*R3, "params", "n"], "big")),
        "results[3].params.n: expected a whole number or null, got text",
    ),
    ("gemm-without-n", changed(drop([*R3, "params", "n"])), "results[3].params.n is missing"),
    ("no-median", changed(drop([*R3, "median_seconds"])), "results[3].median_seconds is missing"),
    ("no-results", changed(drop(["results"])), "results is missing"),
    (
        "bad-time",
        changed(set_at(["started_at"], "yesterday")),
        "started_at: expected a time like 2026-12-03T17:46:00Z",
    ),
    (
        "warnings-text",
        changed(set_at([*R3, "warnings"], "noisy")),
        "results[3].warnings: expected a list, got text",
    ),
    (
        "threads-a-list",
        changed(set_at(["environment", "cpu_threads"], [2])),
        "environment.cpu_threads: expected a whole number or null, got a list",
    ),
    (
        "error-without-message",
        changed(set_at(["errors"], [{"kind": "crash"}])),
        "errors[0].message is missing",
    ),
    (
        "telemetry-without-clock",
        changed(set_at([*R3, "telemetry"], {"sm_clock_mhz": {"median": 1980}})),
        "results[3].telemetry.sm_clock_mhz.min is missing",
    ),
    (
        "escape-in-a-name",
        changed(set_at([*R3, "benchmark"], "\x1b[2J\x1b[31mgemm")),
        "results[3].benchmark: expected one line of printable text",
    ),
    (
        "newline-in-a-name",
        changed(set_at([*R3, "device"], "cpu\nfake line")),
        "results[3].device: expected one line of printable text",
    ),
    (
        "right-to-left-override",
        changed(set_at([*R3, "variant"], "mm\u202enosrep")),
        "results[3].variant: expected one line of printable text",
    ),
    (
        "enormous-name",
        changed(set_at([*R3, "benchmark"], "g" * 5000)),
        "results[3].benchmark: expected text of at most 200 characters",
    ),
    (
        "enormous-text",
        changed(set_at([*R3, "warnings"], ["w" * 200_000])),
        "results[3].warnings[0]: expected text of at most 10,000 characters",
    ),
]
IDS = [case[0] for case in CASES]


def write(folder: Path, name: str, content: Content) -> Path:
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.fixture
def tripwire(tmp_path: Path) -> tuple[str, Path]:
    """A ``--bench-python`` that leaves a mark when anything runs it (the interpreter check
    comes first): the mark means a bad file let the benchmark go ahead."""
    mark = tmp_path / "worker-started"
    python = tmp_path / "tripwire-python"
    python.write_text(f"#!/bin/sh\ntouch '{mark}'\nexit 1\n")
    python.chmod(0o755)
    return str(python), mark


def bench(baseline: Path, python: str) -> list[str]:
    only_gemm = ["--device", "cpu", "--only", "gemm"]
    return ["bench", "--baseline", str(baseline), "--json", *only_gemm, "--bench-python", python]


def assert_refused_before_running(
    code: int, out: str, err: str, mark: Path, data_dir: Path
) -> None:
    assert code == 2, err
    assert out == ""
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    assert "\x1b" not in err
    assert not mark.exists(), "the benchmark was started"
    assert not (data_dir / "results").exists(), "a run was saved"


# --- the command line --------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "content", "problem"), CASES, ids=IDS)
def test_the_cli_refuses_a_bad_baseline_in_one_line_before_anything_runs(
    name: str,
    content: Content,
    problem: str,
    tmp_path: Path,
    data_dir: Path,
    tripwire: tuple[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write(tmp_path, f"{name}.json", content)
    code = main(bench(path, tripwire[0]))
    out, err = capsys.readouterr()
    assert_refused_before_running(code, out, err, tripwire[1], data_dir)
    assert err.startswith(f"gpu-tui bench: error: {path}: ")
    assert problem in err


def run_cli(args: list[str], data_dir: Path) -> subprocess.CompletedProcess[str]:
    """In a child process that may use 1 GiB of memory and 30 s: a reader that slurps
    /dev/zero or blocks on a FIFO fails the test instead of taking the machine with it."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    env = {**os.environ, "GPU_TUI_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [sys.executable, "-m", "gpu_tui", *args],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
        preexec_fn=limit,
        check=False,
    )


def special(kind: str, folder: Path) -> tuple[Path, str]:
    """A path that is no regular file, and what the refusal says."""
    path = folder / f"{kind}.json"
    if kind == "fifo":
        os.mkfifo(path)
        return path, "is a FIFO (named pipe), not a regular file"
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")
        return path, "is a character device, not a regular file"
    if kind == "directory":
        path.mkdir()
        return path, "is a directory, not a regular file"
    if kind == "sparse-1-gib":
        with path.open("wb") as out:
            out.truncate(1 << 30)  # sparse: no disk used
        return path, "is 1,024 MiB; a run file is at most 32 MiB"
    return path, "cannot be read: No such file or directory"


SPECIAL = ["fifo", "dev-zero", "directory", "sparse-1-gib", "missing"]


@pytest.mark.parametrize("kind", SPECIAL)
def test_a_baseline_that_is_no_regular_file_is_refused_without_reading_it(
    kind: str, tmp_path: Path, data_dir: Path, tripwire: tuple[str, Path]
) -> None:
    path, problem = special(kind, tmp_path)
    done = run_cli(bench(path, tripwire[0]), data_dir)
    assert_refused_before_running(done.returncode, done.stdout, done.stderr, tripwire[1], data_dir)
    assert done.stderr == f"gpu-tui bench: error: {path}: {problem}\n"


def test_a_file_name_with_control_characters_is_shown_escaped(
    tmp_path: Path, data_dir: Path, tripwire: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "run\x1b[2J\n.json", "[]")
    code = main(bench(path, tripwire[0]))
    out, err = capsys.readouterr()
    assert_refused_before_running(code, out, err, tripwire[1], data_dir)
    escaped = f"{tmp_path}/run\\x1b[2J\\n.json"
    assert err.startswith(f"gpu-tui bench: error: {escaped}: is not a gpu-tui bench")


# --- the store's loader ------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "content", "problem"), CASES, ids=IDS)
def test_the_store_loader_names_the_file_and_the_first_problem(
    name: str, content: Content, problem: str, tmp_path: Path
) -> None:
    path = write(tmp_path, f"{name}.json", content)
    with pytest.raises(UsageError) as refused:
        store.load(path)
    message = str(refused.value)
    assert message.startswith(f"{path}: ")
    assert problem in message
    assert "\n" not in message
    assert "\x1b" not in message


@pytest.mark.parametrize("kind", ["directory", "missing"])
def test_the_store_loader_refuses_what_is_no_file(kind: str, tmp_path: Path) -> None:
    path, problem = special(kind, tmp_path)
    with pytest.raises(UsageError, match=f"^{path}: {problem}$"):
        store.load(path)


def test_a_real_run_loads_and_round_trips(tmp_path: Path) -> None:
    document = store.load(REAL_RUN)
    assert len(document.results) == 23
    assert (document.environment or {})["cpu_threads"] == 2
    saved = tmp_path / "again.json"
    saved.write_text(document.to_json())
    assert store.load(saved) == document
    assert json.loads(saved.read_text()) == json.loads(document.to_json())


def test_control_characters_in_free_text_are_replaced_and_the_run_still_loads(
    tmp_path: Path,
) -> None:
    # what gpu-tui itself may write: a crash message ends with the worker's last stderr line
    message = "the worker died (exit code 1) during gemm on cpu: \x1b[31mboom\x1b[0m\tat\nline 2"
    path = write(
        tmp_path,
        "run.json",
        changed(set_at(["errors"], [{"kind": "crash", "message": message, "fatal": True}])),
    )
    (error,) = store.load(path).errors
    assert error["message"] == message.replace("\x1b", "\ufffd")  # tab and newline stay


def test_control_characters_in_a_free_form_key_are_replaced_and_the_run_still_loads(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "run.json", changed(set_at(["environment", "\x1b]0;pwned\x07"], 1)))
    environment = store.load(path).environment or {}
    assert environment["\ufffd]0;pwned\ufffd"] == 1
    assert not any("\x1b" in key for key in environment)


def test_a_checked_document_is_a_copy(tmp_path: Path) -> None:
    data = real_run()
    data["results"][0]["warnings"] = ["\x07bell"]
    before = copy.deepcopy(data)
    document = RunDocument.from_dict(data)
    assert document.results[0].warnings == ["\ufffdbell"]
    assert data == before


# --- the Bench pane ----------------------------------------------------------------------------
def store_with(data_dir: Path, files: dict[str, Content]) -> Path:
    """The recorded real run in the store, and ``files`` beside it."""
    folder = data_dir / "results"
    folder.mkdir(parents=True)
    shutil.copy(REAL_RUN, folder / RECORDED)
    for name, content in files.items():
        write(folder, name, content)
    return folder


def notice(pane: BenchPane) -> str:
    return str(pane.query_one("#bench-notice", Static).render())


async def test_an_unreadable_newest_run_is_named_with_its_reason_and_the_last_good_one_shown(
    data_dir: Path,
) -> None:
    bad = changed(set_at([*R3, "median_seconds"], -1))
    folder = store_with(data_dir, {NEWER: bad, "bench-20991231T235958Z-quick.json": "{"})
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        await until(
            pilot,
            lambda: bool(pane.results) and "Unreadable" in notice(pane),
            "the notice",
            timeout=10,
        )
        assert pane.saved_path == folder / RECORDED
        assert pane.query_one(ResultsTable).row_count == 23
        text = notice(pane)
        assert (
            f"Unreadable, skipped: {folder / NEWER}: results[3].median_seconds: expected a "
            "number > 0"
        ) in text
        assert "bench-20991231T235958Z-quick.json: is not valid JSON" in text
        assert pane.query_one("#bench-notice").has_class("-error")
        await pilot.pause()
        await pilot.press("o")  # the pane goes on
        assert pane.view == "setup"


async def test_a_fifo_in_the_store_never_blocks_the_pane(data_dir: Path) -> None:
    folder = store_with(data_dir, {})
    fifo = folder / NEWER
    os.mkfifo(fifo)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            pane = app.query_one(BenchPane)
            await until(pilot, lambda: bool(pane.results), "the saved run shown", timeout=10)
            assert f"{fifo}: is a FIFO (named pipe), not a regular file" in notice(pane)
        finally:
            release_readers(fifo)


def release_readers(fifo: Path) -> None:
    """A reader stuck opening the FIFO (as the old loader was) gets its end of file, so that
    the app can close."""
    with contextlib.suppress(OSError):  # ENXIO: nobody is reading, as it should be
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def markup_run() -> str:
    def change(data: dict[str, Any]) -> None:
        data["suite"] = "[b]quick[/b]"
        first = data["results"][0]
        first["benchmark"] = "[bold red]x[/]"
        first["device"] = "[@click=app.quit]cpu[/]"
        first["dtype"] = "[/]"
        first["warnings"] = ["[$accent]look[/] \x1b[2J\x1b]0;title\x07 here"]

    return changed(change)


async def test_markup_and_escapes_in_a_loaded_run_are_shown_as_written(data_dir: Path) -> None:
    store_with(data_dir, {NEWER: markup_run()})
    app = bench_app()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(BenchPane)
        await until(pilot, lambda: bool(pane.results), "the saved run shown", timeout=10)
        await pilot.pause()
        table = pane.query_one(ResultsTable)
        assert table.row_count == 23
        first_row = table.render_line(1).text
        assert "[bold red]x[/]" in first_row
        assert "[@click=app.quit]cpu[/]" in first_row  # shown as written, not a click action
        assert "[/]" in first_row.replace("[bold red]x[/]", "")
        headline = str(pane.query_one(RunProgress).render())
        assert "Last run: [b]quick[/b]," in headline
        table.move_cursor(row=1)
        table.move_cursor(row=0)
        await pilot.pause()
        detail = str(pane.query_one("#bench-detail", Static).render())
        assert "! [$accent]look[/] \ufffd[2J\ufffd]0;title\ufffd here" in detail
        for shown in (first_row, headline, detail):
            assert "\x1b" not in shown


async def test_an_unreadable_file_is_named_as_written_with_its_reason(data_dir: Path) -> None:
    escaped_name = changed(set_at([*R3, "benchmark"], "\x1b[2J[bold]gemm"))
    unreadable = "bench-20991231T235959Z-[@click=app.quit]x.json"
    store_with(data_dir, {unreadable: escaped_name})
    app = bench_app()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(BenchPane)
        await until(
            pilot,
            lambda: bool(pane.results) and "Unreadable" in notice(pane),
            "the notice",
            timeout=10,
        )
        text = notice(pane)
        assert f"{unreadable}: results[3].benchmark: expected one line" in text
        assert "\x1b" not in text


async def test_compare_offers_only_runs_that_load_and_names_the_others(data_dir: Path) -> None:
    earlier = "bench-20261202T181152Z-quick.json"
    broken = "bench-20261202T181500Z-quick.json"
    folder = store_with(data_dir, {broken: changed(set_at(["results"], "oops"))})
    shutil.copy(FIXTURES / earlier, folder / earlier)
    app = bench_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BenchPane)
        await until(pilot, lambda: bool(pane.results), "the saved run shown")
        await pilot.pause()
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, PathDialog), "the run picker", timeout=10)
        dialog = app.screen
        assert isinstance(dialog, PathDialog)
        assert dialog.choices == [folder / earlier]
        assert f"{folder / broken}: results: expected a list, got text" in notice(pane)
        await pilot.press("escape")


def test_a_store_full_of_unreadable_files_names_a_few_and_counts_the_rest() -> None:
    problems = [f"/d/bench-{i}.json: is empty" for i in range(5)]
    assert unreadable_notice(problems).splitlines() == [
        "Unreadable, skipped: /d/bench-0.json: is empty",
        "Unreadable, skipped: /d/bench-1.json: is empty",
        "Unreadable, skipped: /d/bench-2.json: is empty",
        "… and 2 more unreadable saved runs",
    ]
