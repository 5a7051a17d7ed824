"""A real Prometheus server of our own, for the fleet tests and ``scripts/bench_fleet.py``.

Started from the system's binary (Debian's ``prometheus`` package) with a temporary config and
data directory, on a free loopback port, never the system service; always stopped. Plus the few
calls both need around it: a free port, an instant query, waiting for a condition.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


def find_prometheus() -> str | None:
    """The system's Prometheus binary, or None where it is not installed."""
    return shutil.which("prometheus") or (
        "/usr/bin/prometheus" if os.access("/usr/bin/prometheus", os.X_OK) else None
    )


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop(process: subprocess.Popen[Any], grace: float = 3.0) -> None:
    """SIGTERM, then SIGKILL after ``grace`` seconds: nothing is left behind."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def wait_until(check: Callable[[], bool], timeout: float, what: str, *, every: float = 0.1) -> None:
    """Poll ``check`` (a server not answering yet counts as false) until it holds; after
    ``timeout`` seconds, fail with an AssertionError saying what was awaited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError, KeyError):
            if check():
                return
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def instant_query(url: str, promql: str, timeout: float = 10) -> list[dict[str, Any]]:
    """``/api/v1/query``'s result list for ``promql``, at the server's now."""
    full = f"{url}/api/v1/query?{urllib.parse.urlencode({'query': promql})}"
    with urllib.request.urlopen(full, timeout=timeout) as response:
        result: list[dict[str, Any]] = json.load(response)["data"]["result"]
    return result


@contextlib.contextmanager
def local_prometheus(
    binary: str,
    scrape_configs: list[dict[str, Any]],
    workdir: Path,
    *,
    interval: str,
    timeout: str,
    ready_within: float = 20,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Prometheus scraping ``scrape_configs`` every ``interval`` from ``workdir``, on a free
    loopback port; yields its base URL and process once it says it is ready."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "prometheus.yml"
    settings = {"scrape_interval": interval, "scrape_timeout": timeout}
    config.write_text(json.dumps({"global": settings, "scrape_configs": scrape_configs}))
    # (JSON is YAML.)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = workdir / "prometheus.log"
    log = log_path.open("wb")
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
                raise AssertionError(f"prometheus exited: {log_path.read_text()[-2000:]}")
            with urllib.request.urlopen(f"{url}/-/ready", timeout=2) as response:
                return bool(response.status == 200)

        wait_until(ready, ready_within, "Prometheus to be ready")
        yield url, process
    finally:
        stop(process, grace=10)
        log.close()
