"""The ``/metrics`` endpoint of ``gpu-tui export``: the sampler's newest reading written in
Prometheus' text format at each scrape, and the HTTP server around it.

The page is written here, as dcgm-exporter writes its own, rather than by prometheus_client's
registry: dcgm-exporter's counters keep DCGM's names, without the ``_total`` prometheus_client
adds to every counter, and dashboards built for dcgm-exporter ask for them by those names. A
scrape never touches the driver; it formats what the sampler read last.
"""

from __future__ import annotations

import gzip
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import utils

from gpu_tui import __version__
from gpu_tui.core.check.last_check import LastCheck
from gpu_tui.core.check.last_check import load as load_last_check
from gpu_tui.core.fleet import dcgm_names
from gpu_tui.core.fleet.exposition import Family, GpuIdentity, families
from gpu_tui.core.monitor.samples import Sample

TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8"
"""Prometheus' text exposition format, the one dcgm-exporter serves."""
_go_float: Callable[[float], str] = utils.floatToGoString
"""A value as Prometheus' own clients write one (``+Inf``, ``1.5e+09``)."""


def _label_value(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def render(page: Iterable[Family]) -> bytes:
    """The families in the text format; a family with no samples is left out, as dcgm-exporter
    leaves out a field it cannot read."""
    lines: list[str] = []
    for family in page:
        if not family.samples:
            continue
        help_text = family.help.replace("\\", "\\\\").replace("\n", "\\n")
        lines += [f"# HELP {family.name} {help_text}", f"# TYPE {family.name} {family.type}"]
        for labels, value in family.samples:
            inside = ",".join(f'{key}="{_label_value(text)}"' for key, text in labels.items())
            braces = f"{{{inside}}}" if inside else ""
            lines.append(f"{family.name}{braces} {_go_float(value)}")
    return ("\n".join(lines) + "\n").encode() if lines else b""


class ExporterHealth:
    """What the exporter says of itself: its version, when its newest reading was taken, how
    long the GPUs took to answer it, and how many GPU readings failed (a GPU lost, or a driver
    call past its time limit) since it started. The sampler reports each reading here."""

    def __init__(self, hostname: str = "") -> None:
        self._node = {dcgm_names.LABEL_HOSTNAME: hostname} if hostname else {}
        """The node's label on each series, as on every GPU series."""
        self._lock = threading.Lock()
        self.read_errors = 0
        self.last_reading: Sample | None = None
        self.last_read_seconds: float | None = None

    def record(self, sample: Sample) -> None:
        seconds = max(0.0, time.time() - sample.timestamp)
        failed = sum(1 for gpu in sample.gpus if gpu.lost or gpu.stale)
        with self._lock:
            self.read_errors += failed
            self.last_reading, self.last_read_seconds = sample, seconds

    def families(self) -> list[Family]:
        with self._lock:
            reading, seconds, errors = self.last_reading, self.last_read_seconds, self.read_errors
        out = [
            Family(
                dcgm_names.BUILD_INFO,
                "1, labelled with the version of gpu-tui serving this page.",
                samples=[({"version": __version__, **self._node}, 1.0)],
            ),
            Family(
                dcgm_names.READ_ERRORS,
                "GPU readings that failed (GPU lost, or a driver call past its time limit) "
                "since the exporter started.",
                "counter",
                [(self._node, float(errors))],
            ),
        ]
        if reading is not None and seconds is not None:
            out += [
                Family(
                    dcgm_names.LAST_READING,
                    "When the newest reading served was taken (seconds since the epoch).",
                    samples=[(self._node, reading.timestamp)],
                ),
                Family(
                    dcgm_names.LAST_READ_DURATION,
                    "How long the GPUs took to answer the newest reading (in seconds).",
                    samples=[(self._node, seconds)],
                ),
            ]
        return out


def check_families(
    last: LastCheck | str, gpus: tuple[GpuIdentity, ...], hostname: str
) -> list[Family]:
    """This node's last ``gpu-tui check``: when, its verdict, and the failures per GPU and of
    the host (none when no check has run, or its file cannot be trusted)."""
    if isinstance(last, str):
        return []
    node = {dcgm_names.LABEL_HOSTNAME: hostname}
    failures = [(gpu.labels(hostname), float(last.failures(gpu.index))) for gpu in gpus]
    return [
        Family(
            dcgm_names.CHECK_TIMESTAMP,
            "When this node's last gpu-tui check ran (seconds since the epoch).",
            samples=[(node, last.timestamp)],
        ),
        Family(
            dcgm_names.CHECK_STATUS,
            "The last gpu-tui check's verdict: 0 healthy, 1 a check failed, 2 could not check.",
            samples=[(node, float(last.exit_status))],
        ),
        Family(
            dcgm_names.CHECK_FAILURES,
            "Checks that failed in the last gpu-tui check, per GPU (and of the host).",
            samples=[*failures, (node, float(last.failures(None)))],
        ),
    ]


class MetricsPage:
    """The page a scrape gets: every GPU family of the newest reading, the last health check,
    then the exporter's own."""

    def __init__(
        self,
        latest: Callable[[], Sample | None],
        gpus: tuple[GpuIdentity, ...],
        hostname: str,
        health: ExporterHealth,
        last_check: Callable[[], LastCheck | str] = load_last_check,
    ) -> None:
        self._latest = latest
        self.gpus = gpus
        """Who each reading's GPU is (replaced when NVML, not answering at start, answers)."""
        self._hostname = hostname
        self._health = health
        self._last_check = last_check

    def families(self) -> list[Family]:
        return [
            *families(self._latest(), self.gpus, self._hostname),
            *check_families(self._last_check(), self.gpus, self._hostname),
            *self._health.families(),
        ]

    def render(self) -> bytes:
        return render(self.families())


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """A scrape every few seconds is not news: no line per request on stderr."""


def _server_class(host: str) -> type[_ThreadingServer]:
    """The server class for ``host``'s address family (an IPv6 address needs AF_INET6)."""
    family = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)[0][0]

    class Server(_ThreadingServer):
        address_family = family

    return Server


class MetricsServer:
    """An HTTP server on one address that answers every path with the page (``/metrics`` is
    the one Prometheus asks), gzipped when the scraper accepts it, as Prometheus does."""

    def __init__(self, page: Callable[[], bytes], host: str, port: int) -> None:
        def app(environ: dict[str, Any], start: Callable[..., Any]) -> Iterator[bytes]:
            body = page()
            headers = [("Content-Type", TEXT_FORMAT)]
            if "gzip" in environ.get("HTTP_ACCEPT_ENCODING", ""):
                body = gzip.compress(body, compresslevel=1)
                headers.append(("Content-Encoding", "gzip"))
            headers.append(("Content-Length", str(len(body))))
            start("200 OK", headers)
            return iter([body])

        self._server = make_server(
            host, port, app, server_class=_server_class(host), handler_class=_QuietHandler
        )
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="gpu-tui-metrics", daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        """The port bound (the one the system chose when asked for port 0)."""
        return int(self._server.server_port)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(2.0)
