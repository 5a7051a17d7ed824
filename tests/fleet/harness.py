"""Real components for the fleet tests: a Prometheus server of the system's, `gpu-tui export`
processes, and a tiny server for a recorded dcgm-exporter page; each started on a free loopback
port and always stopped."""

from __future__ import annotations

import contextlib
import os
import re
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests import needs
from tests.helpers.prometheus_server import (
    find_prometheus,
    free_port,
    instant_query,
    local_prometheus,
    stop,
    wait_until,
)

# What the fleet tests use from here, the server's helpers included.
__all__ = [
    "QuietServer",
    "free_port",
    "prometheus",
    "prometheus_binary",
    "query",
    "start_exporter",
    "start_exporter_logged",
    "static_page",
    "stop",
    "wait_until",
]

SCRAPE_INTERVAL = "500ms"
SCRAPE_TIMEOUT = "400ms"
_SERVING = re.compile(r"serving http://\S+:(\d+)/metrics[^\n]*\n")


def prometheus_binary() -> str:
    """The system's Prometheus; skipped with a reason where it is missing, but in CI
    (``CI=true``) a missing binary fails: these tests can never skip their way to green."""
    found = find_prometheus()
    if found:
        return found
    reason = (
        "the prometheus binary is not installed (Debian/Ubuntu: apt-get install prometheus); "
        "these tests run a real Prometheus server"
    )
    needs.missing(reason)


def start_exporter(
    node: str, *extra: str, data_dir: Path | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """``gpu-tui export --demo --node NODE`` on a free loopback port; returns it and the port.
    ``data_dir``: where it finds its last health check (default: the test's own)."""
    process, port, _ = start_exporter_logged(node, *extra, data_dir=data_dir)
    return process, port


def start_exporter_logged(
    node: str, *extra: str, data_dir: Path | None = None
) -> tuple[subprocess.Popen[bytes], int, str]:
    """As ``start_exporter``, with what it wrote on stderr up to the line naming its address."""
    env = None if data_dir is None else {**os.environ, "GPU_TUI_DATA_DIR": str(data_dir)}
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
        env=env,
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


class QuietServer(ThreadingHTTPServer):
    """A test server that says nothing when a client hangs up mid-answer (a client that gave
    up on purpose, or Prometheus ending a scrape at its timeout); anything else is printed."""

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


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

    server = QuietServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def query(url: str, promql: str) -> list[dict[str, object]]:
    return instant_query(url, promql, timeout=5)


@contextlib.contextmanager
def prometheus(
    binary: str,
    jobs: dict[str, list[str]],
    workdir: Path,
    target_labels: dict[str, dict[str, str]] | None = None,
) -> Iterator[str]:
    """A Prometheus of our own (not the system service) scraping ``jobs`` every 0.5 s, with a
    temporary config and data directory, on a free loopback port; yields its base URL.
    ``target_labels``: labels a job's targets get from the scrape, as service discovery gives
    a Kubernetes pod's (``honor_labels`` stays false, the default: a page's label of the same
    name is kept as ``exported_<name>``)."""
    labels = target_labels or {}
    scrape_configs = [
        {
            "job_name": job,
            "static_configs": [
                {"targets": targets, **({"labels": labels[job]} if job in labels else {})}
            ],
        }
        for job, targets in jobs.items()
    ]
    with local_prometheus(
        binary, scrape_configs, workdir, interval=SCRAPE_INTERVAL, timeout=SCRAPE_TIMEOUT
    ) as (url, _):
        yield url
