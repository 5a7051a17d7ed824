"""``gpu-tui export`` and ``gpu-tui fleet`` as a user runs them: one line and an exit code."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import urllib.request

import pytest

from tests.fleet import harness

pytestmark = pytest.mark.timeout(60)


def gpu_tui(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpu_tui", *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env=env,
    )


def test_export_serves_then_ends_cleanly_on_sigterm() -> None:
    process, port = harness.start_exporter("n1")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            page = response.read().decode()
        assert "DCGM_FI_DEV_GPU_UTIL{" in page
        assert 'Hostname="n1"' in page
        assert "process_cpu_seconds_total" not in page  # our GPUs only
        process.send_signal(signal.SIGTERM)
        assert process.wait(5) == 128 + signal.SIGTERM
        assert process.stderr is not None
        rest = process.stderr.read().decode()
        assert rest == "gpu-tui export: stopped by SIGTERM\n"
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    finally:
        harness.stop(process)


def test_export_on_all_interfaces_warns_that_it_is_unauthenticated() -> None:
    process, _, said = harness.start_exporter_logged("n1", "--listen", "0.0.0.0:0")
    harness.stop(process)
    assert "warning: listening on 0.0.0.0" in said
    assert "no authentication" in said
    process, _, said = harness.start_exporter_logged("n1")
    harness.stop(process)
    assert "warning" not in said


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("export", "--listen", "nowhere"), "expected HOST:PORT"),
        (("export", "--listen", "127.0.0.1:70000"), "0 to 65535"),
        (("export", "--interval", "0"), "--interval must be between 0.1 and 60 seconds"),
        (("fleet",), "no Prometheus server"),
        (("fleet", "--prometheus", "prom:9090"), "not an http"),
        (("fleet", "--prometheus", "http://u:p@prom:9090"), "no credentials"),
        (("fleet", "--prometheus", "http://127.0.0.1:1", "--match", "bad"), "not a label matcher"),
        (
            ("fleet", "--prometheus", "http://127.0.0.1:1", "--idle-minutes", "0"),
            "--idle-minutes must be between",
        ),
        (("fleet", "--prometheus", "https://127.0.0.1:1", "--ca-file", "/none"), "no such file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    env = {k: v for k, v in __import__("os").environ.items() if k != "GPU_TUI_PROMETHEUS"}
    done = gpu_tui(*args, env=env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1
    assert message in done.stderr


def test_export_on_a_port_in_use_is_one_line_and_exit_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = gpu_tui("export", "--demo", "--listen", f"0.0.0.0:{port}")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "cannot listen" in done.stderr


def test_a_prometheus_that_is_down_is_one_line_and_exit_1() -> None:
    done = gpu_tui("fleet", "--prometheus", f"http://127.0.0.1:{harness.free_port()}", "--json")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "cannot reach" in done.stderr


def test_help_names_both_commands() -> None:
    done = gpu_tui("--help")
    assert "export" in done.stdout
    assert "fleet" in done.stdout
