#!/usr/bin/env python3
"""The Fleet pane at scale: N nodes × 8 GPUs in a real Prometheus, for N in 10, 100 and 1000.

A synthetic exporter (one HTTP server on loopback, a child process) serves every node's page
under dcgm-exporter's metric names, rendered by gpu-tui's own exporter (``exposition`` and
``exporter.render``): the node is in the path (``/metrics/gpu-node-0042``), and each
target gets its own ``instance`` label, so a thousand nodes cost one port. The system's
Prometheus (``prometheus`` on PATH or /usr/bin/prometheus) scrapes them on a loopback port with a
temporary config and data directory, every INTERVAL seconds. Once every node is scraped twice, a
fresh child process measures, for each N:
  refresh    one refresh of the pane's reader (``FleetReader.read``: queries, parsing, joining;
             the fields the pane shows, the slow answers kept between reads): the median
             (min-max) wall time of READS refreshes after a first one
  full read  the same with every query asked, as ``gpu-tui fleet`` does once (and the pane once
             a minute): median wall time
  grid       the snapshot onto the pane's grid in a headless app: ``redraw`` building the table
             (a first refresh, a filter) and putting a newer snapshot in place (each refresh),
             medians of three; ``grid_rows`` alone is in the JSON
  idle CPU   the pane left open on that Prometheus at its default 5 s refresh in a headless app
             (80×24) for IDLE seconds (one slow refresh included by default): the child's CPU
             time over wall time, % of one core (the headless driver writes no terminal output,
             so a real terminal adds a little)
  memory     resident memory of Prometheus after the child ran, and of the child (the pane's
             process); the child's peak is in the JSON
Budget (the issue's): one refresh ≤ 1 s at 1000 nodes, the pane's idle CPU < 3 % of a core.
About a minute and a half per N on a 2-vCPU machine; the figures are noisier while other work
runs. The synthetic GPUs move through gpu-tui's demo load (16 phases across the nodes).
Prometheus holds only the minutes since it started, so the queries that look back (each
target's node over an hour, idle while allocated over 15 min) read less than on a server that
has run for hours: those are the slow ones the pane asks once a minute.

Usage: python scripts/bench_fleet.py [--nodes 10,100,1000] [--reads N] [--idle SECONDS]
                                     [--interval SECONDS] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psutil

# The Prometheus harness lives with the tests, in the checkout this script is run from.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers.prometheus_server import (
    find_prometheus,
    instant_query,
    local_prometheus,
    stop,
    wait_until,
)

GPUS_PER_NODE = 8
VARIANTS = 16
"""Distinct pages rendered per scrape interval; node i serves variant i mod 16 under its own
name. Rendering all thousand pages every interval would cost the machine a second of CPU, the
figures measured here share it."""
HOST = "__NODE__"
"""Stands for the node's name in a rendered page (labels Hostname and UUID)."""
BUDGET_READ_SECONDS = 1.0
BUDGET_IDLE_PERCENT = 3.0
MIB = 1024 * 1024


def node_name(index: int) -> str:
    return f"gpu-node-{index:04d}"


# ---- the synthetic exporter (a child process: its CPU is not the pane's) ---------------------


class Pages:
    """Every node's page: VARIANTS pages rendered once per scrape interval, each served under
    many node names."""

    def __init__(self, interval: float) -> None:
        from gpu_tui.core.fleet.exposition import GpuIdentity

        self.interval = interval
        gpus = tuple(
            GpuIdentity(
                index=i,
                uuid=f"GPU-{HOST}-{i}",
                pci_bus_id=f"00000000:{0x18 + i * 0x10:02X}:00.0",
                device=f"nvidia{i}",
                model="NVIDIA H100 80GB HBM3",
                driver="550.54.15",
            )
            for i in range(GPUS_PER_NODE)
        )
        self._gpus = gpus
        self._lock = threading.Lock()
        self._bucket = -1
        self._pages: dict[int, bytes] = {}

    def _render(self, variant: int, t: float) -> bytes:
        from gpu_tui.core.devices.fields import Unknown
        from gpu_tui.core.devices.simulated import simulated_sample
        from gpu_tui.core.monitor.samples import CpuSample, MemorySample, Sample

        phase = t + variant * 37.0
        cpu = CpuSample(0.0, (0.0,), Unknown("-"), Unknown("-"), Unknown("-"))
        gpus = tuple(simulated_sample(i, phase + i * 5.0) for i in range(GPUS_PER_NODE))
        from gpu_tui.core.fleet.exporter import render
        from gpu_tui.core.fleet.exposition import families

        sample = Sample(t, cpu, MemorySample(1, 1, 1, 0, 0), gpus)
        return render(families(sample, self._gpus, HOST))

    def page(self, index: int) -> bytes:
        with self._lock:
            bucket = int(time.time() // self.interval)
            if bucket != self._bucket:
                self._bucket, self._pages = bucket, {}
            variant = index % VARIANTS
            body = self._pages.get(variant)
            if body is None:
                body = self._pages[variant] = self._render(variant, bucket * self.interval)
        return body.replace(HOST.encode(), node_name(index).encode())


def serve(interval: float) -> None:
    """Serve ``/metrics/gpu-node-NNNN`` on a free loopback port; print the port, then serve
    until stdin closes (the parent going away ends it too)."""
    pages = Pages(interval)
    prefix = "/metrics/gpu-node-"

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            number = self.path.removeprefix(prefix)
            if not self.path.startswith(prefix) or not number.isdigit():
                self.send_error(404)
                return
            body = pages.page(int(number))
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()
    server.shutdown()


@contextlib.contextmanager
def exporter(interval: float) -> Iterator[int]:
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--interval", str(interval)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.strip().isdigit():
            raise RuntimeError(f"the synthetic exporter did not start: {line!r}")
        yield int(line)
    finally:
        stop(process)


# ---- Prometheus -------------------------------------------------------------------------------


def prometheus_binary() -> str:
    found = find_prometheus()
    if not found:
        sys.exit("bench-fleet: needs prometheus (Debian/Ubuntu: apt-get install prometheus)")
    return found


def instant(url: str, promql: str) -> list[dict[str, Any]]:
    return instant_query(url, promql)


def scalar(url: str, promql: str) -> float:
    result = instant(url, promql)
    return float(result[0]["value"][1]) if result else 0.0


def head_series(url: str) -> int:
    """The series Prometheus holds in memory (its TSDB status page)."""
    with urllib.request.urlopen(f"{url}/api/v1/status/tsdb", timeout=10) as response:
        return int(json.load(response)["data"]["headStats"]["numSeries"])


@contextlib.contextmanager
def prometheus(
    exporter_port: int, nodes: int, interval: float, workdir: Path
) -> Iterator[tuple[str, psutil.Process]]:
    """A Prometheus of our own scraping ``nodes`` synthetic nodes; yields its URL and process
    once every node's GPUs have been scraped twice."""
    targets = [
        {
            "targets": [f"127.0.0.1:{exporter_port}"],
            "labels": {
                "__metrics_path__": f"/metrics/{node_name(i)}",
                "instance": f"{node_name(i)}:9400",
            },
        }
        for i in range(nodes)
    ]
    with local_prometheus(
        prometheus_binary(),
        [{"job_name": "dcgm-exporter", "static_configs": targets}],
        workdir,
        interval=f"{round(interval * 1000)}ms",  # Prometheus takes no decimals
        timeout=f"{round(interval * 800)}ms",
        ready_within=60,
    ) as (url, process):
        gpus = nodes * GPUS_PER_NODE
        wait_until(
            lambda: scalar(url, "count(DCGM_FI_DEV_GPU_UTIL)") == gpus,
            4 * interval + 60,
            f"all {gpus} GPUs scraped",
            every=0.5,  # each count reads every series: not ten times a second
        )
        # A second scrape of every target: rates and windows have two points to work with.
        wait_until(
            lambda: scalar(url, "count(count_over_time(DCGM_FI_DEV_GPU_UTIL[10m]) >= 2)") == gpus,
            4 * interval + 60,
            "a second scrape of every target",
            every=0.5,
        )
        yield url, psutil.Process(process.pid)


# ---- what is measured (a child process per N: its own memory and CPU) -------------------------


def rss_mib(process: psutil.Process) -> float:
    return float(process.memory_info().rss / MIB)


def timings(call: Callable[[], object], count: int) -> dict[str, Any]:
    """``call``'s wall time ``count`` times: median, min, max and every one, in seconds."""
    times = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return {"median": statistics.median(times), "min": min(times), "max": max(times), "all": times}


async def grid_and_idle(url: str, snapshots: list[Any], idle: float) -> dict[str, Any]:
    from textual.widgets import DataTable

    from gpu_tui.ui.app import make_app
    from gpu_tui.ui.config import AppConfig
    from gpu_tui.ui.fleet_pane import FleetPane

    out: dict[str, Any] = {}
    # The grid: the pane's redraw of these snapshots, with a reader that never asks the server.
    app = make_app(AppConfig(pane="fleet", fleet_reader=lambda: snapshots[0]))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(FleetPane)
        while pane.snapshot is None:
            await pilot.pause(0.05)
        await pilot.pause(0.5)
        table = app.query_one("#fleet-grid", DataTable)
        builds: list[float] = []
        updates: list[float] = []
        for turn in range(6):
            pane.snapshot = snapshots[turn % len(snapshots)]
            if turn % 2 == 0:
                table.clear()  # an empty grid: the redraw builds it (a first refresh, a filter)
            started = time.perf_counter()
            pane.redraw()
            (builds if turn % 2 == 0 else updates).append(time.perf_counter() - started)
            await pilot.pause(0.1)
        out["grid_build_ms"] = statistics.median(builds) * 1000
        out["grid_update_ms"] = statistics.median(updates) * 1000
    # Idle: the pane open on the real server at its default refresh.
    app = make_app(AppConfig(pane="fleet", prometheus_url=url))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(FleetPane)
        deadline = time.monotonic() + 60
        while pane.snapshot is None and time.monotonic() < deadline:
            await pilot.pause(0.1)
        if pane.snapshot is None:
            raise RuntimeError(f"the pane never read the fleet: {pane.error}")
        await pilot.pause(1.0)  # start-up work (discovery, the first layout) is over
        refreshes = 0
        last = pane.snapshot
        cpu, main, wall = time.process_time(), time.thread_time(), time.perf_counter()
        while time.perf_counter() - wall < idle:
            await asyncio.sleep(0.5)
            if pane.snapshot is not last:
                refreshes, last = refreshes + 1, pane.snapshot
        wall = time.perf_counter() - wall
        cpu, main = time.process_time() - cpu, time.thread_time() - main
        out["idle_cpu_percent"] = 100 * cpu / wall
        # The event loop's thread (the grid, the screen) apart from the readers' threads.
        out["idle_main_thread_percent"] = 100 * main / wall
        out["idle_seconds"] = wall
        out["idle_refreshes"] = refreshes
        out["pane_error"] = pane.error
        # The pane waits longer between refreshes where one costs more than its CPU share.
        out["refresh_cpu_seconds"] = pane.refresh_cost
        out["refresh_every_seconds"] = pane.refresh_seconds
    return out


def measure(url: str, reads: int, idle: float) -> dict[str, Any]:
    """Run in the child: every figure but Prometheus's memory."""
    from gpu_tui.core.fleet.grid import grid_rows
    from gpu_tui.core.fleet.prom_api import PrometheusApi
    from gpu_tui.core.fleet.queries import PANE_FIELDS
    from gpu_tui.core.fleet.reader import FleetReader
    from gpu_tui.ui.fleet_pane import SLOW_SECONDS

    api = PrometheusApi(url, timeout=30, retries=0)
    # Every query at every read, as ``gpu-tui fleet`` asks (and the pane once a minute).
    full = FleetReader(api)
    full.read()  # warm: connections, imports, the server's caches
    full_seconds = timings(full.read, reads)
    # The pane's refresh: what it shows, the slow answers kept between reads.
    pane = FleetReader(api, fields=PANE_FIELDS, slow_seconds=SLOW_SECONDS, flagged_only=True)
    snapshots = [pane.read()]
    refresh_seconds = timings(lambda: snapshots.append(pane.read()), reads)
    snapshot = snapshots[-1]
    totals = snapshot.totals
    out: dict[str, Any] = {
        "nodes_read": totals.nodes,
        "gpus_read": totals.gpus,
        "full_read_seconds": full_seconds,
        "refresh_seconds": refresh_seconds,
        "grid_rows_ms": timings(lambda: grid_rows(snapshot, snapshot.time), 5)["median"] * 1000,
    }
    out.update(asyncio.run(grid_and_idle(url, snapshots[-2:], idle)))
    me = psutil.Process()
    out["ours_rss_mib"] = rss_mib(me)
    out["ours_peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def one_size(exporter_port: int, nodes: int, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="gpu-tui-bench-fleet-") as tmp:
        started = time.monotonic()
        with prometheus(exporter_port, nodes, args.interval, Path(tmp)) as (url, server):
            ready = time.monotonic() - started
            series = head_series(url)
            child = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--measure",
                    url,
                    "--reads",
                    str(args.reads),
                    "--idle",
                    str(args.idle),
                ],
                capture_output=True,
                text=True,
                check=False,
            )
            if child.returncode != 0:
                raise RuntimeError(f"the measuring process failed:\n{child.stderr[-3000:]}")
            result: dict[str, Any] = json.loads(child.stdout)
            result.update(
                nodes=nodes,
                gpus=nodes * GPUS_PER_NODE,
                head_series=int(series),
                seconds_to_first_scrapes=ready,
                prometheus_rss_mib=rss_mib(server),
            )
    return result


def table(results: list[dict[str, Any]]) -> str:
    head = (
        f"{'nodes':>5} {'GPUs':>5} {'series':>7}  {'refresh s (min-max)':<20} {'full s':>6} "
        f"{'grid ms':>9} {'CPU/refr':>8} {'every':>5} {'idle CPU':>8} {'Prom MiB':>8} "
        f"{'ours MiB':>8}"
    )
    lines = [head, f"{'':>49}{'build/upd':>9}"]
    for r in results:
        refresh = r["refresh_seconds"]
        span = f"{refresh['median']:.3f} ({refresh['min']:.3f}-{refresh['max']:.3f})"
        grid = f"{r['grid_build_ms']:.0f}/{r['grid_update_ms']:.0f}"
        lines.append(
            f"{r['nodes']:>5} {r['gpus']:>5} {r['head_series']:>7}  {span:<20} "
            f"{r['full_read_seconds']['median']:>6.2f} {grid:>9} "
            f"{r['refresh_cpu_seconds'] * 1000:>6.0f}ms {r['refresh_every_seconds']:>4.0f}s "
            f"{r['idle_cpu_percent']:>7.2f}% {r['prometheus_rss_mib']:>8.0f} "
            f"{r['ours_rss_mib']:>8.0f}"
        )
    return "\n".join(lines)


def verdicts(results: list[dict[str, Any]]) -> list[str]:
    """The budget, checked for the largest fleet measured (and the idle CPU of every size)."""
    out = []
    largest = max(results, key=lambda r: r["nodes"])
    read = largest["refresh_seconds"]["median"]
    mark = "ok" if read <= BUDGET_READ_SECONDS else "OVER"
    out.append(
        f"{mark}: one refresh at {largest['nodes']} nodes {read:.3f} s "
        f"(budget {BUDGET_READ_SECONDS:g} s; every query, as gpu-tui fleet asks: "
        f"{largest['full_read_seconds']['median']:.3f} s)"
    )
    for r in results:
        idle = r["idle_cpu_percent"]
        mark = "ok" if idle < BUDGET_IDLE_PERCENT else "OVER"
        every = r["refresh_every_seconds"]
        strict = 100 * r["refresh_cpu_seconds"] / 5.0
        stretched = (
            f"; it refreshed every {every:.0f} s: at a 5 s pace the refreshes alone would take "
            f"~{strict:.1f} %"
            if every > 5.0
            else ""
        )
        out.append(
            f"{mark}: idle CPU at {r['nodes']} nodes {idle:.2f} % of a core "
            f"(budget < {BUDGET_IDLE_PERCENT:g} %; {r['idle_refreshes']} refreshes "
            f"in {r['idle_seconds']:.0f} s{stretched})"
        )
        if r["nodes_read"] != r["nodes"] or r["gpus_read"] != r["gpus"]:
            out.append(
                f"WRONG: read {r['nodes_read']} nodes and {r['gpus_read']} GPUs "
                f"of {r['nodes']} and {r['gpus']}"
            )
    return out


def sizes(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected sizes such as 10,100,1000: {text!r}") from None
    if not values or any(v < 1 or v > 5000 for v in values):
        raise argparse.ArgumentTypeError("each size must be 1 to 5000 nodes")
    return values


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--nodes", type=sizes, default=[10, 100, 1000], help="fleet sizes")
    parser.add_argument("--reads", type=int, default=7, help="refreshes timed per size")
    parser.add_argument(
        "--idle", type=float, default=65.0, help="seconds the pane stays open (one slow refresh)"
    )
    parser.add_argument("--interval", type=float, default=10.0, help="scrape interval, seconds")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--measure", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.reads < 1 or args.idle < 5 or not 1 <= args.interval <= 60:
        parser.error("--reads at least 1, --idle at least 5, --interval 1 to 60")
    if args.serve:
        serve(args.interval)
        return 0
    if args.measure:
        json.dump(measure(args.measure, args.reads, args.idle), sys.stdout)
        return 0
    results = []
    with exporter(args.interval) as port:
        for nodes in args.nodes:
            if not args.json:
                print(f"{nodes} nodes × {GPUS_PER_NODE} GPUs …", file=sys.stderr, flush=True)
            results.append(one_size(port, nodes, args))
    checked = verdicts(results)
    if args.json:
        document = {
            "machine": {"cpus": os.cpu_count(), "load_average": os.getloadavg()},
            "scrape_interval_seconds": args.interval,
            "budget": {
                "read_seconds_at_1000_nodes": BUDGET_READ_SECONDS,
                "idle_cpu_percent": BUDGET_IDLE_PERCENT,
            },
            "results": results,
            "verdicts": checked,
        }
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(table(results))
        print("\n".join(checked))
    return sum(line.startswith(("OVER", "WRONG")) for line in checked)


if __name__ == "__main__":
    sys.exit(main())
