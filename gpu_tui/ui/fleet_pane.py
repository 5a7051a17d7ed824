"""The Fleet pane: every node's GPUs from Prometheus, one row per node, with totals and the GPUs
idle while allocated. Prometheus is asked on a thread, every few seconds while the pane shows."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static

from gpu_tui.core.errors import UsageError
from gpu_tui.core.fleet.grid import HEADERS, SORTS, grid_rows, summary
from gpu_tui.core.fleet.model import FleetSnapshot
from gpu_tui.core.fleet.text import window_text
from gpu_tui.ui.config import AppConfig
from gpu_tui.ui.pane import Pane
from gpu_tui.ui.widgets.field import Field

REFRESH_SECONDS = 5.0
MAX_BACKOFF_SECONDS = 60.0
REQUEST_TIMEOUT_SECONDS = 4.0
IDLE_SHOWN = 4
"""Idle-while-allocated GPUs listed below the grid (the rest are counted)."""

HOW_TO = """\
[b]No Prometheus server given.[/b]

Start gpu-tui with one, or set GPU_TUI_PROMETHEUS:
  [b]gpu-tui --prometheus http://prometheus.example:9090[/b]
It reads the GPUs Prometheus scrapes from NVIDIA's dcgm-exporter.

A machine without dcgm-exporter can serve its own readings, under the
same metric names:
  [b]gpu-tui export[/b]                          (this machine only, port 9400)
  [b]gpu-tui export --listen 0.0.0.0:9400[/b]    (the network: no authentication)
then add it to Prometheus's scrape_configs:
  - job_name: gpu-tui
    static_configs: [{targets: ["gpu-node-1:9400"]}]

Credentials come from GPU_TUI_PROMETHEUS_TOKEN (or _TOKEN_FILE), or
GPU_TUI_PROMETHEUS_USER with GPU_TUI_PROMETHEUS_PASSWORD (or _PASSWORD_FILE)."""


def live_reader(url: str) -> Callable[[], FleetSnapshot]:
    """A reader of ``url`` with the pane's time limits (imported here: urllib and ssl load only
    when the Fleet pane is used)."""
    from gpu_tui.core.fleet.prom_api import Credentials, PrometheusApi
    from gpu_tui.core.fleet.reader import FleetReader

    api = PrometheusApi(
        url, credentials=Credentials.from_environment(), timeout=REQUEST_TIMEOUT_SECONDS, retries=1
    )
    return FleetReader(api).read


class FleetPane(Pane, can_focus=False):
    """Totals on top, one row per node, the idle-while-allocated GPUs below."""

    BINDINGS = [  # noqa: RUF012 — Textual API
        Binding("slash", "filter", "Filter", key_display="/", tooltip="by node, model, pod or job"),
        Binding(
            "s", "sort", "Sort", tooltip="issues, node, utilisation, memory, temperature, power"
        ),
        Binding("r", "refresh", "Refresh", tooltip="ask Prometheus now"),
        Binding("escape", "leave", "To the grid", show=False),
    ]

    @dataclass
    class Refreshed(Message):
        """A refresh finished: the fleet as it is now."""

        snapshot: FleetSnapshot

    @dataclass
    class Failed(Message):
        """A refresh failed: why, in one line."""

        reason: str

    def __init__(self, config: AppConfig, *, id: str | None = None) -> None:
        super().__init__(config, id=id)
        self.snapshot: FleetSnapshot | None = None
        self.filter_text = ""
        self.sort_index = 0
        self.error = ""
        self._reader: Callable[[], FleetSnapshot] | None = None
        self._timer: Timer | None = None
        self._in_flight = False
        self._failures = 0
        self._next_at = 0.0

    @property
    def url(self) -> str | None:
        return self.config.prometheus_url

    def compose(self) -> ComposeResult:
        if self.url is None and self.config.fleet_reader is None:
            yield Static(HOW_TO, id="fleet-help")
            return
        yield Static("Asking Prometheus…", id="fleet-summary")
        yield Field(
            placeholder="/ filter by node, model, pod or job", id="fleet-filter", compact=True
        )
        yield DataTable(id="fleet-grid", cursor_type="row", zebra_stripes=True)
        yield Static(id="fleet-idle")

    def on_mount(self) -> None:
        if self.config.fleet_reader is not None:
            self._reader = self.config.fleet_reader
        elif self.url is not None:
            try:
                self._reader = live_reader(self.url)
            except UsageError as error:  # e.g. a credentials file that cannot be read
                self.error = str(error)
                self._show_summary()

    def focus(self, scroll_visible: bool = True) -> FleetPane:
        if self.query("#fleet-grid"):
            self.query_one("#fleet-grid", DataTable).focus(scroll_visible)
        return self

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("filter", "sort", "refresh", "leave"):
            return self._reader is not None
        return True

    def watch_active(self, active: bool) -> None:
        if self._reader is None:
            return
        if active:
            if self._timer is None:
                self._timer = self.set_interval(1.0, self._due, name="fleet-refresh")
            else:
                self._timer.resume()
            self._due()
        elif self._timer is not None:
            self._timer.pause()

    def _due(self) -> None:
        # The timer only signals; the thread asks Prometheus.
        if not self._in_flight and time.monotonic() >= self._next_at:
            self._in_flight = True
            self._fetch()

    @work(thread=True, exclusive=True, group="fleet", exit_on_error=False)
    def _fetch(self) -> None:
        from gpu_tui.core.fleet.prom_api import PrometheusError

        reader = self._reader
        assert reader is not None
        try:
            self.post_message(self.Refreshed(reader()))
        except (PrometheusError, UsageError) as error:
            self.post_message(self.Failed(str(error)))

    def worker_failed(self, worker: object) -> None:
        self._in_flight = False
        self._failures += 1
        self._next_at = time.monotonic() + self._backoff()

    def _backoff(self) -> float:
        return float(min(REFRESH_SECONDS * 2 ** max(self._failures - 1, 0), MAX_BACKOFF_SECONDS))

    def on_fleet_pane_refreshed(self, message: Refreshed) -> None:
        self._in_flight = False
        self._failures = 0
        self._next_at = time.monotonic() + REFRESH_SECONDS
        self.snapshot = message.snapshot
        self.error = ""
        self.redraw()

    def on_fleet_pane_failed(self, message: Failed) -> None:
        self._in_flight = False
        self._failures += 1
        self._next_at = time.monotonic() + self._backoff()
        self.error = f"{message.reason} — trying again in {self._backoff():.0f} s"
        self._show_summary()

    def action_refresh(self) -> None:
        self._next_at = 0.0
        self._due()

    def action_sort(self) -> None:
        self.sort_index = (self.sort_index + 1) % len(SORTS)
        self.redraw()

    def action_filter(self) -> None:
        field = self.query_one("#fleet-filter", Field)
        field.focus()
        field.edit()

    def action_leave(self) -> None:
        self.focus()

    @on(Input.Changed, "#fleet-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value
        self.redraw()

    @on(Input.Submitted, "#fleet-filter")
    def _filter_done(self) -> None:
        self.focus()

    def _show_summary(self) -> None:
        if not self.query("#fleet-summary"):
            return
        text = Text()
        if self.snapshot is not None:
            stamp = time.strftime("%H:%M:%S", time.localtime(self.snapshot.time))
            text.append(summary(self.snapshot), style="bold")
            text.append(f"\n{self.snapshot.prometheus} · as of {stamp}")
            text.append(f" · {self.snapshot.query_seconds:.2f} s")
        if self.error:
            error = self.app.get_css_variables()["text-error"]
            text.append(("\n" if text else "") + self.error, style=f"bold {error}")
        self.query_one("#fleet-summary", Static).update(text)

    def redraw(self) -> None:
        """Rebuild the grid from the snapshot, filter and sort; the cursor stays on its node."""
        self._show_summary()
        snapshot = self.snapshot
        if snapshot is None or not self.is_mounted:
            return
        table = self.query_one("#fleet-grid", DataTable)
        rows = grid_rows(snapshot, snapshot.time, self.filter_text, self.sort_index)
        keep = None
        if table.row_count and 0 <= table.cursor_row < table.row_count:
            keep = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        table.clear(columns=True)
        for header in HEADERS:
            table.add_column(header, key=header)
        variables = self.app.get_css_variables()
        error, warning = variables["text-error"], variables["text-warning"]
        for row in rows:
            cells = [Text(cell) for cell in row.cells()]
            if row.state != "up":
                cells[0].stylize(f"bold {error}")
                cells[1].stylize(f"bold {error}")
            elif row.flags:
                cells[7].stylize(f"bold {warning}")
            table.add_row(*cells, key=row.name)
        names = [row.name for row in rows]
        if keep in names:
            table.move_cursor(row=names.index(keep))
        label = SORTS[self.sort_index].label
        shown = f"{len(rows)} of {len(snapshot.nodes)}" if self.filter_text else f"{len(rows)}"
        table.border_title = f"{shown} nodes · sorted by {label}"
        table.border_subtitle = "s sort · / filter · r refresh"
        self._show_idle(snapshot)

    def _show_idle(self, snapshot: FleetSnapshot) -> None:
        idle = snapshot.idle_while_allocated
        box = self.query_one("#fleet-idle", Static)
        if not idle:
            box.update(f"No GPU idle while allocated (for {window_text(snapshot.idle_window)}).")
            return
        window = window_text(snapshot.idle_window)
        lines = [f"Idle while allocated: ≤1% for {window} with memory held"]
        for gpu in idle[:IDLE_SHOWN]:
            who = f"  {gpu.namespace}/{gpu.pod}" if gpu.pod else f"  {gpu.job}" if gpu.job else ""
            lines.append(f"  {gpu.node} gpu{gpu.gpu}{who}")
        if len(idle) > IDLE_SHOWN:
            lines.append(f"  … and {len(idle) - IDLE_SHOWN} more (gpu-tui fleet --json lists all)")
        box.update("\n".join(lines))
