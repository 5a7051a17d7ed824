"""Real components for the fleet tests: a Prometheus server of the system's, `gpu-tui export`
processes, and a tiny server for a recorded dcgm-exporter page; each started on a free loopback
port and always stopped."""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

SCRAPE_INTERVAL = "500ms"
SCRAPE_TIMEOUT = "400ms"
_SERVING = re.compile(r"serving http://\S+:(\d+)/metrics[^\n]*\n")


def prometheus_binary() -> str:
    """The system's Prometheus; skipped with a reason where it is missing, but in CI
    (``CI=true``) a missing binary fails: these tests can never skip their way to green."""
    found = shutil.which("prometheus") or (
        "/usr/bin/prometheus" if os.access("/usr/bin/prometheus", os.X_OK) else None
    )
    if found:
        return found
    reason = (
        "the prometheus binary is not installed (Debian/Ubuntu: apt-get install prometheus); "
        "these tests run a real Prometheus server"
    )
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after 3 s: nothing is left behind."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(3)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(3)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def wait_until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError, KeyError):
            if check():
                return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def start_exporter(node: str, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    """``gpu-tui export --demo --node NODE`` on a free loopback port; returns it and the port."""
    process, port, _ = start_exporter_logged(node, *extra)
    return process, port


def start_exporter_logged(node: str, *extra: str) -> tuple[subprocess.Popen[bytes], int, str]:
    """As ``start_exporter``, with what it wrote on stderr up to the line naming its address."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gpu_tui",
            "export",
            "--demo",
            "--node",
            node,
            "--listen",
            "127.0.0.1:0",
            "--interval",
            "0.5",
            *extra,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None
    deadline = time.monotonic() + 20
    seen = b""
    # os.read, not readline: a buffered reader would hide lines from select()
    descriptor = process.stderr.fileno()
    while time.monotonic() < deadline and process.poll() is None:
        ready, _, _ = select.select([descriptor], [], [], 0.2)
        if ready:
            seen += os.read(descriptor, 4096)
            match = _SERVING.search(seen.decode(errors="replace"))
            if match:
                return process, int(match.group(1)), seen.decode()
    stop(process)
    raise AssertionError(f"gpu-tui export did not start: {seen.decode()!r}")


@contextlib.contextmanager
def static_page(body: bytes) -> Iterator[int]:
    """Serve ``body`` at /metrics on a free loopback port (a recorded exporter page)."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def query(url: str, promql: str) -> list[dict[str, object]]:
    full = f"{url}/api/v1/query?{urllib.parse.urlencode({'query': promql})}"
    with urllib.request.urlopen(full, timeout=5) as response:
        result: list[dict[str, object]] = json.load(response)["data"]["result"]
    return result


@contextlib.contextmanager
def prometheus(binary: str, jobs: dict[str, list[str]], workdir: Path) -> Iterator[str]:
    """A Prometheus of our own (not the system service) scraping ``jobs`` every 0.5 s, with a
    temporary config and data directory, on a free loopback port; yields its base URL."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "prometheus.yml"
    scrape_configs = [
        {"job_name": job, "static_configs": [{"targets": targets}]} for job, targets in jobs.items()
    ]
    config.write_text(
        json.dumps(  # JSON is YAML
            {
                "global": {"scrape_interval": SCRAPE_INTERVAL, "scrape_timeout": SCRAPE_TIMEOUT},
                "scrape_configs": scrape_configs,
            }
        )
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (workdir / "prometheus.log").open("wb")
    process = subprocess.Popen(
        [
            binary,
            f"--config.file={config}",
            f"--storage.tsdb.path={workdir / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--log.level=warn",
        ],
        stdout=log,
        stderr=log,
        cwd=workdir,
    )
    try:

        def ready() -> bool:
            if process.poll() is not None:
                raise AssertionError(
                    f"prometheus exited: {(workdir / 'prometheus.log').read_text()[-2000:]}"
                )
            with urllib.request.urlopen(f"{url}/-/ready", timeout=1) as response:
                return bool(response.status == 200)

        wait_until(ready, 20, "Prometheus to be ready")
        yield url
    finally:
        stop(process)
        log.close()
