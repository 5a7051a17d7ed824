"""The ``/metrics`` endpoint of ``gpu-tui export``: a prometheus_client collector that turns the
sampler's newest reading into metric families at each scrape, and the HTTP server around it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from wsgiref.simple_server import WSGIServer

from prometheus_client import start_http_server
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from gpu_tui.core.fleet.exposition import GpuIdentity, families
from gpu_tui.core.monitor.samples import Sample


class SampleCollector(Collector):
    """Serves whatever the shared sampler read last: a scrape never touches the driver."""

    def __init__(
        self, latest: Callable[[], Sample | None], gpus: tuple[GpuIdentity, ...], hostname: str
    ) -> None:
        self._latest = latest
        self._gpus = gpus
        self._hostname = hostname

    def collect(self) -> Iterator[Metric]:
        for family in families(self._latest(), self._gpus, self._hostname):
            if not family.samples:
                continue
            names = sorted({key for labels, _ in family.samples for key in labels})
            gauge = GaugeMetricFamily(family.name, family.help, labels=names)
            for labels, value in family.samples:
                gauge.add_metric([labels.get(name, "") for name in names], value)
            yield gauge


class MetricsServer:
    """prometheus_client's HTTP server on one address, with a registry of our collector only
    (no process or platform metrics: the exporter says nothing about the machine but its GPUs)."""

    def __init__(self, collector: Collector, host: str, port: int) -> None:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(collector)
        server, thread = start_http_server(port, addr=host, registry=registry)
        self._server: WSGIServer = server
        self._thread: threading.Thread = thread

    @property
    def port(self) -> int:
        """The port bound (the one the system chose when asked for port 0)."""
        return int(self._server.server_port)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(2.0)
