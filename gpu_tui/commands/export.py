"""``gpu-tui export``: serve this machine's GPU readings at ``/metrics`` for Prometheus."""

from __future__ import annotations

import argparse
import socket
import sys
import threading
from typing import TYPE_CHECKING

from gpu_tui.commands.error_lines import say_error, say_warning
from gpu_tui.commands.options import refresh_seconds
from gpu_tui.core.errors import UsageError
from gpu_tui.core.fleet.listen import DEFAULT_LISTEN, ListenAddress, parse_listen

if TYPE_CHECKING:
    from gpu_tui.core.devices.live_sources import GpuSources
    from gpu_tui.core.fleet.exporter import MetricsPage
    from gpu_tui.core.monitor.sampler import Sampler

NAME = "export"
UNITS_NOTE = ("no effect here: the metrics keep dcgm-exporter's units",) * 2
HELP = (
    "serve this machine's GPU readings at /metrics for Prometheus, under dcgm-exporter's "
    "metric names (loopback only unless --listen says otherwise)"
)
DEFAULT_INTERVAL_SECONDS = 5.0
CLOSE_LIMIT_SECONDS = 1.0
UNAUTHENTICATED = (
    "listening on {host}, reachable from other machines; the metrics "
    "page has no authentication (put it behind a firewall or a TLS proxy)"
)


def listen_address(text: str) -> ListenAddress:
    try:
        return parse_listen(text)
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("--listen: ")) from None


def node_name(text: str) -> str:
    text = text.strip()
    if not text or len(text) > 253 or any(ord(c) < 32 for c in text):
        raise argparse.ArgumentTypeError(f"not a usable node name: {text[:40]!r}")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--listen",
        type=listen_address,
        default=parse_listen(DEFAULT_LISTEN),
        metavar="HOST:PORT",
        help=(
            f"address to serve /metrics on (default: {DEFAULT_LISTEN}, this machine only); "
            "0.0.0.0:9400 or [::]:9400 serves every interface, without authentication"
        ),
    )
    parser.add_argument(
        "--interval",
        type=refresh_seconds,
        default=DEFAULT_INTERVAL_SECONDS,
        metavar="SECONDS",
        help=f"seconds between readings, 0.1 to 60 (default: {DEFAULT_INTERVAL_SECONDS:g})",
    )
    parser.add_argument(
        "--node",
        type=node_name,
        metavar="NAME",
        help="the Hostname label on every series (default: this machine's host name)",
    )


def run(args: argparse.Namespace) -> int:
    # Imported here: the sampler and prometheus_client load only for this command.
    from gpu_tui.core.devices import discover
    from gpu_tui.core.devices.live_sources import open_gpu_sources
    from gpu_tui.core.fleet.exporter import ExporterHealth, MetricsPage, MetricsServer
    from gpu_tui.core.fleet.exposition import identities
    from gpu_tui.core.monitor.sampler import Sampler

    address: ListenAddress = args.listen
    hostname = args.node or socket.gethostname()
    demo = bool(getattr(args, "demo", False))
    gpus = identities(discover(demo=demo))
    sources = open_gpu_sources(demo=demo)
    if not gpus:
        print(
            f"gpu-tui export: no GPU to export ({sources.note or 'none found'}); "
            "serving an empty page",
            file=sys.stderr,
        )
    sampler = Sampler(
        gpu_sources=sources.real, inline_sources=sources.inline, interval=args.interval
    )
    health = ExporterHealth(hostname)
    sampler.on_tick = health.record

    def failed(error: BaseException) -> None:
        say_error(f"{type(error).__name__}: {error}", NAME)  # one reading; serving goes on

    sampler.on_error = failed
    sampler.tick()  # the first scrape already finds a reading
    try:
        page = MetricsPage(lambda: sampler.latest, gpus, hostname, health)
        server = MetricsServer(page.render, address.host, address.port)
    except OSError as error:
        sampler.stop()
        sources.close(reads_hung=False, limit=CLOSE_LIMIT_SECONDS)
        raise UsageError(
            f"cannot listen on {address.host}:{address.port}: {error.strerror or error}"
        ) from None
    if not address.loopback:
        say_warning(UNAUTHENTICATED.format(host=address.host), NAME)
    print(
        f"gpu-tui export: serving {address.url(server.port)} as Hostname={hostname!r}, "
        f"{len(gpus)} GPU(s), a reading every {args.interval:g} s",
        file=sys.stderr,
        flush=True,
    )
    opened = [sources]
    stop_retrying = threading.Event()
    if sources.hung is not None and not demo:
        threading.Thread(
            target=open_when_answering,
            args=(sampler, page, opened, stop_retrying),
            name="gpu-tui-export-retry",
            daemon=True,
        ).start()
    try:
        sampler.run()
    finally:
        stop_retrying.set()
        server.close()
        sampler.stop()
        for each in opened:
            each.close(reads_hung=sampler.hung_devices > 0, limit=CLOSE_LIMIT_SECONDS)
    return 0


def open_when_answering(
    sampler: Sampler, page: MetricsPage, opened: list[GpuSources], stop: threading.Event
) -> None:
    """NVML did not answer in time at start: ask again, later and later, and export the GPUs
    once it answers, so one slow call does not leave the page empty until a restart."""
    from gpu_tui.core.devices import discover
    from gpu_tui.core.devices.live_sources import open_gpu_sources
    from gpu_tui.core.devices.nvml_guard import retry_delay
    from gpu_tui.core.fleet.exposition import identities

    tries = 0
    while not stop.wait(retry_delay(tries)):
        tries += 1
        sources = open_gpu_sources(demo=False)
        if sources.session is None:
            if sources.hung is None:  # an answer this time, and it says no GPU: stop asking
                print(f"gpu-tui export: NVML answers now: {sources.note}", file=sys.stderr)
                return
            continue
        opened.append(sources)
        page.gpus = identities(discover())
        sampler.add_gpu_sources(sources.real)
        print(
            f"gpu-tui export: NVML answers now: exporting {len(page.gpus)} GPU(s)",
            file=sys.stderr,
            flush=True,
        )
        return
