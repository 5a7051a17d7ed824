#!/usr/bin/env python3
"""Every fault class gpu-tui promises to survive, tried as a user would, as a table.

Each case runs the installed gpu-tui for real (headless commands, or the TUI on a terminal of its
own) and injects one fault: a signal, a SIGKILL, an NVML driver that hangs or a binding that does
not import (nvidia-ml-py's own binding over the simulated driver stands in as ``pynvml``), an
output that cannot be written, a disk that fills up (a file-size limit), a hostile file, an
impossible number, a worker that crashes. It prints, per case, what should happen and what did;
the exit status is the number of cases that failed. About a minute on a 2-core machine; needs
torch for the bench cases.

Usage: python scripts/fault_matrix.py [--only WORD] [--list]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import json
import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

# The simulated driver and the fault wrapper live with the tests, in the checkout this script
# is run from.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes import faulty_worker
from tests.fakes.simulated_binding import HANG_VARIABLE, IMPORT_VARIABLE, install_as_pynvml
from tests.helpers.running_app import (
    Terminal,
    command,
    environment,
    gone,
    saved_results,
    saved_runs,
    workers_of,
)

QUICK = ["bench", "--only", "launch", "--device", "cpu", "--budget", "0.02"]
HELD = ["bench", "--only", "launch", "reduction", "--device", "cpu", "--budget", "0.05"]
STARTUP = 60.0


def wait_for(done: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll until ``done()`` holds; fail the case by name after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.02)


@dataclass(frozen=True)
class Case:
    group: str
    name: str
    expected: str
    run: Callable[[Path], str]
    """Returns what was observed; raises AssertionError (with what was seen) on a failure."""


CASES: list[Case] = []


def case(group: str, name: str, expected: str) -> Callable[[Callable[[Path], str]], None]:
    def add(run: Callable[[Path], str]) -> None:
        CASES.append(Case(group, name, expected, run))

    return add


def run(
    args: list[str], env: dict[str, str], timeout: float = 120, **options: object
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        command(*args),
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
        **options,
    )


def one_line(done: subprocess.CompletedProcess[str], code: int = 2) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == code, f"rc {done.returncode}: {done.stderr.strip()[:200]}"
    assert len(lines) == 1, f"{len(lines)} lines on stderr: {done.stderr[:200]}"
    assert "Traceback" not in done.stderr
    return lines[0]


def faulty(tmp: Path) -> list[str]:
    """The arguments that run the worker with the fault named in ``$GPU_TUI_BENCH_FAULT``."""
    return ["--bench-python", faulty_worker.python(tmp)]


def results(document: dict[str, object]) -> str:
    count = kept(document)
    return f"{count} result{'s' * (count != 1)}"


def kept(document: dict[str, object]) -> int:
    results = document["results"]
    assert isinstance(results, list)
    return len(results)


# --- 1. every way a session ends ----------------------------------------------------------------


def bench_signal(signum: int) -> Callable[[Path], str]:
    def go(tmp: Path) -> str:
        data, out = tmp / "data", tmp / "run.json"
        env = environment(data, GPU_TUI_BENCH_FAULT="hang:reduction")
        process = subprocess.Popen(
            command(*HELD, *faulty(tmp), "--json", "--out", str(out)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            wait_for(lambda: saved_results(data) >= 1, STARTUP, "a first result")
            workers = workers_of(process.pid)
            process.send_signal(signum)
            stdout, _ = process.communicate(timeout=15)
        finally:
            process.kill()
        printed, written = json.loads(stdout), json.loads(out.read_text())
        [stored] = saved_runs(data)
        assert process.returncode == 128 + signum, f"rc {process.returncode}"
        assert printed["interrupted"]
        assert written["interrupted"]
        assert stored["interrupted"]
        wait_for(lambda: all(gone(w) for w in workers), 2, "the worker to go")
        return (
            f"rc {process.returncode}; kept {kept(printed)}/{kept(written)}/{kept(stored)} "
            "results (stdout/--out/store), marked interrupted; worker gone"
        )

    return go


for _signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    _name = signal.Signals(_signum).name
    case("session end", f"bench, {_name} mid-run", f"rc {128 + _signum}, results kept everywhere")(
        bench_signal(_signum)
    )


def orphan(fault: str) -> Callable[[Path], str]:
    def go(tmp: Path) -> str:
        data = tmp / "data"
        process = subprocess.Popen(
            command(*HELD, *faulty(tmp)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=environment(data, GPU_TUI_BENCH_FAULT=f"{fault}:reduction"),
        )
        try:
            wait_for(lambda: saved_results(data) >= 1, STARTUP, "a first result")
            [worker] = workers_of(process.pid)
            time.sleep(0.3)
            process.send_signal(signal.SIGKILL)
            killed = time.monotonic()
            wait_for(lambda: gone(worker), 1.0, "the orphaned worker to die")
            return f"worker dead {1000 * (time.monotonic() - killed):.0f} ms after the SIGKILL"
        finally:
            process.kill()
            process.wait()

    return go


case("session end", "bench SIGKILLed, worker in a Python loop", "worker dead < 1 s")(orphan("spin"))
case("session end", "bench SIGKILLed, worker in a C call (GIL held)", "worker dead < 1 s")(
    orphan("gil")
)


def tui_run(tmp: Path, end: Callable[[Terminal], int]) -> str:
    data = tmp / "data"
    terminal = Terminal(
        ["--pane", "bench", *faulty(tmp)], environment(data, GPU_TUI_BENCH_FAULT="hang:bandwidth")
    )
    try:
        wait_for(lambda: terminal.shows("Ready"), 30, "the Bench pane")
        time.sleep(1)
        terminal.press("r")
        wait_for(lambda: saved_results(data) >= 1, STARTUP, "a first result")
        workers = workers_of(terminal.process.pid)
        expected = end(terminal)
        code = terminal.wait(10)
        assert code == expected, f"rc {code}"
        wait_for(lambda: all(gone(w) for w in workers), 2, "the worker to go")
        [stored] = saved_runs(data)
        assert stored["interrupted"]
        return f"rc {code}; {results(stored)} in the store, marked interrupted; worker gone"
    finally:
        terminal.close()


def by_signal(signum: int) -> Callable[[Terminal], int]:
    def end(terminal: Terminal) -> int:
        terminal.signal(signum)
        return 128 + signum

    return end


def by_hang_up(terminal: Terminal) -> int:
    terminal.hang_up()
    return 128 + signal.SIGHUP


case("session end", "TUI Bench run, SIGTERM", "rc 143, run kept, no worker")(
    lambda tmp: tui_run(tmp, by_signal(signal.SIGTERM))
)
case("session end", "TUI Bench run, terminal closed", "rc 129, run kept, no worker")(
    lambda tmp: tui_run(tmp, by_hang_up)
)


@case("session end", "TUI Bench run, SIGKILL", "worker dead < 1 s")
def _tui_sigkill(tmp: Path) -> str:
    data = tmp / "data"
    terminal = Terminal(
        ["--pane", "bench", *faulty(tmp)], environment(data, GPU_TUI_BENCH_FAULT="spin:bandwidth")
    )
    try:
        wait_for(lambda: terminal.shows("Ready"), 30, "the Bench pane")
        time.sleep(1)
        terminal.press("r")
        wait_for(lambda: saved_results(data) >= 1, STARTUP, "a first result")
        [worker] = workers_of(terminal.process.pid)
        terminal.signal(signal.SIGKILL)
        killed = time.monotonic()
        wait_for(lambda: gone(worker), 1.0, "the orphaned worker to die")
        return f"worker dead {1000 * (time.monotonic() - killed):.0f} ms after the SIGKILL"
    finally:
        terminal.close()


@case("session end", "watch --json, SIGTERM", "rc 143, every line whole")
def _watch_term(tmp: Path) -> str:
    process = subprocess.Popen(
        command("watch", "--json", "--interval", "0.2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(tmp / "data"),
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    process.send_signal(signal.SIGTERM)
    rest, _ = process.communicate(timeout=10)
    lines = [first, *rest.splitlines()]
    for line in lines:
        json.loads(line)
    assert process.returncode == 143, f"rc {process.returncode}"
    return f"rc 143; {len(lines)} JSON line{'s' * (len(lines) != 1)}, each whole"


# --- 2. a driver that hangs ----------------------------------------------------------------------


def nvml_env(tmp: Path, **extra: str) -> dict[str, str]:
    shim = tmp / "shim"
    shim.mkdir(exist_ok=True)
    install_as_pynvml(shim)
    return environment(tmp / "data", PYTHONPATH=str(shim), **extra)


def timed(args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = run(args, env, timeout=30)
    return done, time.monotonic() - started


for _call in ("nvmlInit", "nvmlDeviceGetCount"):

    @case("driver hang", f"info, {_call} hangs", "done within the 5 s limit + 2 s, CPU shown")
    def _info_hang(tmp: Path, call: str = _call) -> str:
        done, took = timed(["info"], nvml_env(tmp, **{HANG_VARIABLE: call}))
        text = " ".join(done.stdout.split())
        assert done.returncode == 0, f"rc {done.returncode} after {took:.1f} s"
        assert took < 7, f"rc {done.returncode} after {took:.1f} s"
        assert f"NVML call {call} did not return within 5 s" in text, text[-300:]
        assert "CPU" in text
        return f"rc 0 after {took:.1f} s: not answering (NVML call {call} …)"


@case("driver hang", "watch --count 2, import pynvml hangs", "CPU lines, a note, within 7 s")
def _watch_import_hang(tmp: Path) -> str:
    done, took = timed(["watch", "--count", "2"], nvml_env(tmp, **{IMPORT_VARIABLE: "hang"}))
    assert done.returncode == 0, f"rc {done.returncode} after {took:.1f} s"
    assert took < 8, f"rc {done.returncode} after {took:.1f} s"
    assert len(done.stdout.splitlines()) == 2
    assert "not answering" in done.stderr
    return f"rc 0 after {took:.1f} s; 2 CPU lines; {done.stderr.strip()[:60]}…"


@case("driver hang", "bench starts while nvmlInit hangs", "the run starts within 7 s")
def _bench_hang(tmp: Path) -> str:
    env = nvml_env(tmp, **{HANG_VARIABLE: "nvmlInit"})
    started = time.monotonic()
    done = run([*QUICK, "--suite", "full", "--json"], env, timeout=60)
    assert done.returncode == 0, done.stderr[-300:]
    lines = done.stderr.splitlines()
    assert any("expect about" in line for line in lines)
    return f"rc 0; the whole run took {time.monotonic() - started:.1f} s"


@case("driver hang", "import pynvml raises OSError", "explained in plain words, rc 0")
def _import_raises(tmp: Path) -> str:
    done = run(["info"], nvml_env(tmp, **{IMPORT_VARIABLE: "OSError"}), timeout=30)
    assert done.returncode == 0
    assert "Traceback" not in done.stderr + done.stdout
    text = " ".join(done.stdout.split())
    assert "installed but broken" in text, text[-300:]
    return "rc 0: " + text[text.index("the nvidia-ml-py package") :][:90] + "…"


for _key, _label in (("q", "q"), ("\x03", "Ctrl-C")):

    @case("driver hang", f"TUI {_label} while nvmlInit hangs", "exits within 1.5 s")
    def _quit_hang(tmp: Path, key: str = _key) -> str:
        terminal = Terminal(["--pane", "monitor"], nvml_env(tmp, **{HANG_VARIABLE: "nvmlInit"}))
        try:
            wait_for(lambda: terminal.shows("CPU"), 20, "the first screen")
            time.sleep(1)
            pressed = time.monotonic()
            terminal.press(key)
            code = terminal.wait(10)
            took = time.monotonic() - pressed
            assert code == 0, f"rc {code} after {took:.2f} s"
            assert took < 1.5, f"rc {code} after {took:.2f} s"
            return f"rc 0, {1000 * took:.0f} ms after the key"
        finally:
            terminal.close()


# --- 3. where results are written ----------------------------------------------------------------


def refused(done: subprocess.CompletedProcess[str], data: Path) -> str:
    line = one_line(done)
    assert "loading PyTorch" not in done.stderr, "it ran"
    assert not saved_runs(data), "it ran"
    return f"rc 2 before running: {line}"


case("outputs", "--out in a folder that does not exist", "rc 2 before any benchmark")(
    lambda tmp: refused(
        run([*QUICK, "--out", str(tmp / "no" / "r.json")], environment(tmp / "d")), tmp / "d"
    )
)
case("outputs", "--out is a directory", "rc 2 before any benchmark")(
    lambda tmp: refused(run([*QUICK, "--out", str(tmp)], environment(tmp / "d")), tmp / "d")
)


@contextlib.contextmanager
def closed_folder(tmp: Path) -> Iterator[Path]:
    folder = tmp / "closed"
    folder.mkdir()
    root = os.geteuid() == 0
    if root:  # root ignores permission bits: make the folder immutable
        subprocess.run(["chattr", "+i", str(folder)], check=True, capture_output=True)
    else:
        folder.chmod(0o555)
    try:
        yield folder
    finally:
        if root:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o755)


@case("outputs", "--out in a folder that cannot be written", "rc 2 before any benchmark")
def _closed(tmp: Path) -> str:
    with closed_folder(tmp) as folder:
        return refused(
            run([*QUICK, "--out", str(folder / "r.json")], environment(tmp / "d")), tmp / "d"
        )


@case("outputs", "--out through a symlink", "the target written, the link kept")
def _symlink(tmp: Path) -> str:
    target, link = tmp / "target.json", tmp / "link.json"
    link.symlink_to(target)
    done = run([*QUICK, "--out", str(link)], environment(tmp / "d"))
    assert done.returncode == 0, done.stderr[-200:]
    assert link.is_symlink(), done.stderr[-200:]
    return f"rc 0; link kept; target has {results(json.loads(target.read_text()))}"


@case("outputs", "--out into a FIFO", "the document streamed once")
def _fifo(tmp: Path) -> str:
    fifo = tmp / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    done = run([*QUICK, "--out", str(fifo)], environment(tmp / "d"))
    reader.join(10)
    assert done.returncode == 0
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    return f"rc 0; the reader got {len(got[0])} bytes, {results(json.loads(got[0]))}"


@case("outputs", "--out >(gzip > r.json.gz)", "the pipe gets the document")
def _substitution(tmp: Path) -> str:
    packed = tmp / "r.json.gz"
    line = " ".join(command(*QUICK)) + f" --out >(gzip > {packed}); s=$?; wait; exit $s"
    done = subprocess.run(
        ["bash", "-c", line],
        capture_output=True,
        text=True,
        env=environment(tmp / "d"),
        check=False,
    )
    assert done.returncode == 0, done.stderr[-200:]
    return f"rc 0; r.json.gz holds {results(json.loads(gzip.decompress(packed.read_bytes())))}"


@case("outputs", "--out /dev/null", "rc 0, the device left a device")
def _devnull(tmp: Path) -> str:
    done = run([*QUICK, "--out", "/dev/null"], environment(tmp / "d"))
    assert done.returncode == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    return "rc 0; /dev/null is still a character device"


@case("outputs", "--out /dev/full (no space left)", "warning, rc 1, stdout complete")
def _devfull(tmp: Path) -> str:
    done = run([*QUICK, "--json", "--out", "/dev/full"], environment(tmp / "d"))
    assert done.returncode == 1
    assert "No space left on device" in done.stderr
    return f"rc 1; stdout has {results(json.loads(done.stdout))}; store kept"


@case("outputs", "the disk fills up mid-run", "warnings, the run goes on, stdout complete")
def _disk_full(tmp: Path) -> str:
    def small_files() -> None:  # the kernel refuses writes past 2.5 KB, as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (2500, 2500))

    out = tmp / "r.json"
    done = run(
        [*QUICK, "--json", "--out", str(out)], environment(tmp / "d"), preexec_fn=small_files
    )
    warnings = [line for line in done.stderr.splitlines() if "File too large" in line]
    assert done.returncode == 1, done.stderr[-300:]
    assert warnings, done.stderr[-300:]
    return f"rc 1; {len(warnings)} warnings; stdout has {results(json.loads(done.stdout))}"


@case("outputs", "the results store is not a folder", "one warning, rc 0")
def _store_file(tmp: Path) -> str:
    data = tmp / "d"
    data.write_text("not a folder")
    done = run([*QUICK, "--json"], environment(data))
    assert done.returncode == 0, done.stderr[-300:]
    assert done.stderr.count("results store") == 1, done.stderr[-300:]
    return f"rc 0; 1 warning; stdout has {results(json.loads(done.stdout))}"


# --- 4. files from elsewhere ---------------------------------------------------------------------


def baseline(tmp: Path, make: Callable[[Path], object]) -> str:
    path = tmp / "baseline.json"
    make(path)
    done = run([*QUICK, "--baseline", str(path)], environment(tmp / "d"), timeout=30)
    line = one_line(done)
    assert "\x1b" not in done.stderr, "it ran"
    assert not saved_runs(tmp / "d"), "it ran"
    return "rc 2: " + line.replace(str(tmp) + "/", "")[:90]


def sparse(path: Path, size: int) -> None:
    with path.open("wb") as out:
        out.truncate(size)


HOSTILE: dict[str, Callable[[Path], object]] = {
    "NaN in a result": lambda p: p.write_text('{"schema_version": 1, "value": NaN}'),
    "100,000 levels of nesting": lambda p: p.write_text("[" * 100_000 + "]" * 100_000),
    "a wrong type": lambda p: p.write_text(
        '{"schema_version": 1, "suite": "quick", "budget_seconds": 1, '
        '"started_at": "2026-12-03T00:00:00+0000", "results": [{"benchmark": 5}]}'
    ),
    "escape codes in a name": lambda p: p.write_text(
        '{"schema_version": 1, "suite": "\\u001b[2J[bold]x", "budget_seconds": 1, '
        '"started_at": "2026-12-03T00:00:00+0000", "results": []}'
    ),
    "a FIFO": lambda p: os.mkfifo(p),
    "a symlink to /dev/zero": lambda p: p.symlink_to("/dev/zero"),
    "1 GiB (sparse)": lambda p: sparse(p, 2**30),
}
for _what, _make in HOSTILE.items():
    case("hostile files", f"--baseline: {_what}", "rc 2, one line, nothing ran")(
        functools.partial(baseline, make=_make)
    )


# --- 5. numbers at the edges ---------------------------------------------------------------------


NUMBERS = {
    "guide --fit 1e99": ["guide", "--fit", "1e99"],
    "guide --fit 70B --context nan": ["guide", "--fit", "70B", "--context", "nan"],
    "guide --cost --utilization 150%": ["guide", "--cost", "--utilization", "150%"],
    "kitchen --set cooks=1e400": ["kitchen", "--scenario", "onions", "--set", "cooks=1e400"],
}


def refused_number(args: list[str]) -> Callable[[Path], str]:
    def go(tmp: Path) -> str:
        return "rc 2: " + one_line(run(args, environment(tmp / "d"), 30)).split(": ", 3)[-1]

    return go


for _what, _args in NUMBERS.items():
    case("numbers", _what, "rc 2, one line with the valid range")(refused_number(_args))


@case("numbers", "guide --fit 100T --context 10M --batch 1000 --json", "finite JSON")
def _fit_edge(tmp: Path) -> str:
    args = ["guide", "--fit", "100T", "--context", "10000000", "--batch", "1000", "--json"]
    done = run(args, environment(tmp / "d"), 30)

    def refuse(token: str) -> None:
        raise AssertionError(f"{token} in the JSON")

    if done.returncode == 2:
        return "rc 2 (out of range): " + one_line(done)[:80]
    json.loads(done.stdout, parse_constant=refuse)
    return "rc 0; strict JSON, every number finite"


# --- 6. one run driver ---------------------------------------------------------------------------


@case("run driver", "--bench-python that does not exist", "rc 2, one line")
def _no_python(tmp: Path) -> str:
    return "rc 2: " + one_line(
        run([*QUICK, "--bench-python", "/no/python"], environment(tmp / "d"))
    )


@case("run driver", "the worker crashes mid-run", "rc 1, earlier results kept")
def _crash(tmp: Path) -> str:
    env = environment(tmp / "d", GPU_TUI_BENCH_FAULT="crash:reduction")
    done = run([*HELD, *faulty(tmp), "--json"], env)
    document = json.loads(done.stdout)
    assert done.returncode == 1, done.stderr[-200:]
    assert kept(document) >= 1, done.stderr[-200:]
    assert document["errors"][-1]["kind"] == "crash"
    return f"rc 1; {results(document)} kept; error: {document['errors'][-1]['kind']}"


# --- the table -----------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--only", metavar="WORD", help="cases whose group or name contains WORD")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args()
    chosen = [c for c in CASES if not args.only or args.only in f"{c.group} {c.name}"]
    if args.list:
        for c in chosen:
            print(f"{c.group:<14} {c.name}")
        return 0
    failed = 0
    width = max(len(c.name) for c in chosen)
    print(f"{'case':<{width}}  {'expected':<44}  observed")
    started = time.monotonic()
    group = ""
    for c in chosen:
        if c.group != group:
            group = c.group
            print(f"-- {group} " + "-" * (width + 50 - len(group)))
        with tempfile.TemporaryDirectory(prefix="gpu-tui-fault-") as folder:
            try:
                observed, mark = c.run(Path(folder)), "ok  "
            except (AssertionError, subprocess.TimeoutExpired, ValueError, OSError) as error:
                observed, mark = f"{type(error).__name__}: {error}", "FAIL"
                failed += 1
        observed = observed.replace(folder, "$TMP")
        print(f"{c.name:<{width}}  {c.expected:<44}  {mark} {observed}", flush=True)
    print(
        f"\n{len(chosen) - failed} of {len(chosen)} cases hold ({time.monotonic() - started:.0f} s)"
    )
    return failed


if __name__ == "__main__":
    sys.exit(main())
