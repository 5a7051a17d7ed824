"""``gpu-tui fleet``: every GPU of a cluster, read from its Prometheus (dcgm-exporter metrics)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from gpu_tui.commands.error_lines import say_warning
from gpu_tui.commands.options import TIMEOUT, within
from gpu_tui.core.errors import RunError, UsageError
from gpu_tui.core.fleet import IDLE_MINUTES
from gpu_tui.core.fleet.url import URL_ENV, check_url

NAME = "fleet"
HELP = (
    "show every node's GPUs from a Prometheus server that scrapes dcgm-exporter or "
    "'gpu-tui export' (--json for scripts)"
)


seconds = within(TIMEOUT)


minutes = within(IDLE_MINUTES)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--prometheus",
        metavar="URL",
        default=os.environ.get(URL_ENV),
        help=f"the Prometheus server, e.g. http://prometheus:9090 (default: ${URL_ENV}); "
        "credentials come from GPU_TUI_PROMETHEUS_TOKEN(_FILE) or GPU_TUI_PROMETHEUS_USER "
        "with GPU_TUI_PROMETHEUS_PASSWORD(_FILE), never from the command line",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the fleet as JSON (schema_version 2)"
    )
    parser.add_argument(
        "--match",
        metavar="SELECTOR",
        help="only GPUs whose series match these PromQL label matchers, e.g. "
        'Hostname=~"gpu-.*",job="dcgm-exporter"; they match the labels as Prometheus stores '
        "them (a pod's labels are exported_pod, exported_namespace... where the scrape does "
        "not honor the exporter's labels), but a matcher on Hostname or hostname matches the "
        "node's name whichever of the two the exporter writes (dcgm-exporter up to 4.5: "
        "Hostname; later: hostname)",
    )
    parser.add_argument(
        "--idle-minutes",
        type=minutes,
        default=15.0,
        metavar="N",
        help="idle while allocated: memory held and ~0 %% utilisation for N minutes, 0.1 to "
        "1440 (default: 15); a GPU is flagged once its readings cover all N minutes",
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=10.0,
        metavar="SECONDS",
        help="time limit for each request to Prometheus (default: 10)",
    )
    parser.add_argument("--ca-file", metavar="PATH", help="trust this CA for the server's TLS")
    parser.add_argument(
        "--insecure",
        action="store_true",
        help="do not verify the server's TLS certificate (only when you must)",
    )


def run(args: argparse.Namespace) -> int:
    from gpu_tui.core.fleet.fleet_json import snapshot_json
    from gpu_tui.core.fleet.prom_api import (
        Credentials,
        PrometheusApi,
        PrometheusError,
        QueryRejectedError,
    )
    from gpu_tui.core.fleet.reader import FleetReader

    args.prometheus = args.prometheus or getattr(args, "prometheus_url", None)
    if not args.prometheus:
        raise UsageError(
            f"no Prometheus server: give --prometheus URL or set {URL_ENV} "
            "(a server that scrapes dcgm-exporter or 'gpu-tui export')"
        )
    try:
        args.prometheus = check_url(args.prometheus)
    except UsageError as error:  # said as coming from where the URL was given
        given = "--prometheus" if args.prometheus != os.environ.get(URL_ENV) else URL_ENV
        raise UsageError(f"{given}: {error}") from None
    if args.ca_file and not os.path.isfile(args.ca_file):
        raise UsageError(f"--ca-file: no such file: {args.ca_file}")
    api = PrometheusApi(
        args.prometheus,
        credentials=Credentials.from_environment(),
        timeout=args.timeout,
        ca_file=args.ca_file,
        insecure=args.insecure,
    )
    if args.insecure:
        say_warning("TLS certificate not verified (--insecure)", NAME)
    reader = FleetReader(api, selector=args.match or "", idle_minutes=args.idle_minutes)
    try:
        snapshot = reader.read()
    except QueryRejectedError as error:
        raise UsageError(str(error)) from None
    except PrometheusError as error:
        raise RunError(str(error)) from None
    if args.json:
        json.dump(snapshot_json(snapshot), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        from gpu_tui.core.fleet.gpu_lines import fleet_lines

        sys.stdout.write("\n".join(fleet_lines(snapshot, time.time())) + "\n")
    return 0
