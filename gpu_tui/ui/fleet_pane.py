"""The Fleet pane: every node's GPUs from Prometheus, one row per node, with totals and the GPUs
idle while allocated; Enter on a node opens its GPUs with their history (``fleet_node``), Esc
goes back. Prometheus is asked on a thread, every few seconds while the pane shows (less often
for a fleet so big that a refresh would take more than CPU_SHARE of a core)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static
from textual.widgets.data_table import ColumnKey
from textual.worker import Worker

from gpu_tui.core.errors import UsageError
from gpu_tui.core.fleet.gpu_lines import window_text
from gpu_tui.core.fleet.grid import HEADERS, SORTS, grid_rows, header_labels, summary
from gpu_tui.core.fleet.history import WINDOWS_MINUTES, HistorySource, NodeHistory
from gpu_tui.core.fleet.model import IDLE_MAX_UTIL, FleetNode, FleetSnapshot
from gpu_tui.core.fleet.poller import Poller
from gpu_tui.core.monitor.history_window import window_name
from gpu_tui.core.units import format_reading_percent
from gpu_tui.ui.config import AppConfig
from gpu_tui.ui.fleet_node import FleetNodeView
from gpu_tui.ui.pane import Pane
from gpu_tui.ui.widgets.field import Field
from gpu_tui.ui.widgets.scroll_hint import HintedTable

REFRESH_SECONDS = 5.0
CPU_SHARE = 0.02
"""The most of one core the refreshes may take: a refresh that costs more CPU than this share of
REFRESH_SECONDS waits longer for the next (a fleet of a thousand nodes of eight GPUs costs about
0.4 s of CPU a refresh, so it refreshes every 20 s or so, not every 5: scripts/bench_fleet.py)."""
COSTS_KEPT = 12
"""Refreshes whose cost is averaged (the slow queries come once a minute: one refresh in 12)."""
MAX_BACKOFF_SECONDS = 60.0
REQUEST_TIMEOUT_SECONDS = 4.0
SLOW_SECONDS = 60.0
"""How often the pane asks what changes rarely (models, limits, pods, each target's node, idle
while allocated; see ``reader``): at a thousand nodes, asking it every refresh would triple the
work of each."""
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


ShownRow = tuple[str, tuple[str, ...], bool, bool]
"""A grid row as shown: its node, its cells, whether the node is down and whether it is flagged."""
HistoryReader = Callable[[str, float, int], NodeHistory]
"""(node, minutes, points) → the node's history (``FleetReader.history``)."""


def live_reader(url: str) -> tuple[Callable[[], FleetSnapshot], HistoryReader]:
    """A reader of ``url`` and of one node's history, with the pane's time limits (imported
    here: urllib and ssl load only when the Fleet pane is used)."""
    from gpu_tui.core.fleet.prom_api import Credentials, PrometheusApi
    from gpu_tui.core.fleet.queries import PANE_FIELDS
    from gpu_tui.core.fleet.reader import FleetReader

    api = PrometheusApi(
        url, credentials=Credentials.from_environment(), timeout=REQUEST_TIMEOUT_SECONDS, retries=1
    )
    reader = FleetReader(api, fields=PANE_FIELDS, slow_seconds=SLOW_SECONDS, flagged_only=True)
    return reader.read, reader.history


class FleetPane(Pane, can_focus=False):
    """Totals on top, one row per node, the idle-while-allocated GPUs below."""

    cpu_clock: Callable[[], float] = staticmethod(time.process_time)
    """Measures what a refresh costs (tests replace it)."""

    BINDINGS = [  # noqa: RUF012 — Textual API
        Binding("slash", "filter", "Filter", key_display="/", tooltip="by node, model, pod or job"),
        Binding(
            "s", "sort", "Sort", tooltip="issues, node, utilisation, memory, temperature, power"
        ),
        Binding("r", "refresh", "Refresh", tooltip="ask Prometheus now"),
        Binding("z", "zoom", "Zoom", tooltip="a node's history over 15 min, 1 h, 6 h or 24 h"),
        # Two actions on Esc: the first that applies runs (back from a node, else to the grid).
        Binding("escape", "close_node", "Back", tooltip="from the node to the grid"),
        Binding("escape", "leave", "To the grid", show=False),
    ]

    @dataclass
    class Refreshed(Message):
        """A refresh finished: the fleet as it is now, and the CPU seconds reading it took."""

        snapshot: FleetSnapshot
        cpu_seconds: float = 0.0

    @dataclass
    class Failed(Message):
        """A refresh failed: why, in one line."""

        reason: str

    @dataclass
    class HistoryRead(Message):
        """A node's history arrived for request ``asked``."""

        asked: int
        history: NodeHistory

    @dataclass
    class HistoryFailed(Message):
        """Request ``asked`` for a node's history failed: why, in one line."""

        asked: int
        reason: str

    def __init__(self, config: AppConfig, *, id: str | None = None) -> None:
        super().__init__(config, id=id)
        self.snapshot: FleetSnapshot | None = None
        self.filter_text = ""
        self.sort_index = 0
        self.error = ""
        self._reader: Callable[[], FleetSnapshot] | None = None
        self._timer: Timer | None = None
        self._poller = Poller(REFRESH_SECONDS, MAX_BACKOFF_SECONDS)
        self._costs: list[float] = []
        """CPU seconds of the last refreshes (reading and drawing), for ``refresh_seconds``."""
        self.node_name: str | None = None
        """The node whose view is open (None: the grid shows)."""
        self.zoom = 0
        """Index into ``WINDOWS_MINUTES``: the node view's history window."""
        self.history: NodeHistory | None = None
        self.history_error = ""
        self._history_reader: HistoryReader | None = None
        self._history_asked = 0
        """Numbers each history request; an answer to an older one (another node, another
        window) is dropped when it comes."""
        self._history_poller = Poller(REFRESH_SECONDS, MAX_BACKOFF_SECONDS)
        self._grid_stale = False
        self._shown: list[ShownRow] = []
        """What the grid shows: each row's node, cells, and whether it is down or flagged."""

    @property
    def url(self) -> str | None:
        return self.config.prometheus_url

    def compose(self) -> ComposeResult:
        if self.url is None and self.config.fleet_reader is None:
            yield Static(HOW_TO, id="fleet-help")
            return
        with Container(id="fleet-main"):
            yield Static("Asking Prometheus…", id="fleet-summary")
            yield Field(
                placeholder="/ filter by node, model, pod or job", id="fleet-filter", compact=True
            )
            yield HintedTable(
                id="fleet-grid",
                cursor_type="row",
                zebra_stripes=True,
                reach="",
                keys="s sort · / filter · r refresh",
            )
            yield Static(id="fleet-idle")
        yield FleetNodeView(id="fleet-node")

    def on_mount(self) -> None:
        reader = self.config.fleet_reader
        if reader is not None:
            self._reader = reader
            if isinstance(reader, HistorySource):  # a test's reader may read history too
                self._history_reader = reader.history
        elif self.url is not None:
            try:
                self._reader, self._history_reader = live_reader(self.url)
            except UsageError as error:  # e.g. a credentials file that cannot be read
                self.error = str(error)
                self._show_summary()

    def focus(self, scroll_visible: bool = True) -> FleetPane:
        table = "#fleet-gpus" if self.node_name is not None else "#fleet-grid"
        if self.query(table):
            self.query_one(table, DataTable).focus(scroll_visible)
        return self

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("filter", "sort", "refresh", "leave", "zoom", "close_node"):
            if self._reader is None:
                return False
            node_open = self.node_name is not None
            if action in ("zoom", "close_node"):
                return node_open
            if action in ("filter", "sort", "leave"):
                return not node_open
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
        # The timer only signals; threads ask Prometheus.
        if self._poller.due():
            self._poller.start()
            self._fetch()
        history_shown = self.node_name is not None and self._history_reader is not None
        if history_shown and self._history_poller.due():
            self._ask_history()

    def _ask_history(self) -> None:
        """Ask for the open node's history now (a newer request makes older answers stale)."""
        assert self.node_name is not None
        assert self._history_reader is not None
        self._history_asked += 1
        self._history_poller.start()
        # Points enough for the widest graph the screen can hold, so no column falls between
        # two points.
        points = self.app.size.width
        self._fetch_history(self._history_asked, self.node_name, self.minutes, points)
        self._show_node()

    @property
    def minutes(self) -> int:
        return WINDOWS_MINUTES[self.zoom]

    @work(thread=True, exclusive=True, group="fleet", exit_on_error=False)
    def _fetch(self) -> None:
        from gpu_tui.core.fleet.prom_api import PrometheusError

        reader = self._reader
        assert reader is not None
        # The process's CPU time, not the thread's: the reader parses on a few threads. What
        # the event loop does meanwhile is counted too, a little more than the refresh's own.
        started = self.cpu_clock()
        try:
            snapshot = reader()
            self.post_message(self.Refreshed(snapshot, self.cpu_clock() - started))
        except (PrometheusError, UsageError) as error:
            self.post_message(self.Failed(str(error)))

    @work(thread=True, exclusive=True, group="fleet-history", exit_on_error=False)
    def _fetch_history(self, asked: int, node: str, minutes: float, points: int) -> None:
        from gpu_tui.core.fleet.prom_api import PrometheusError

        reader = self._history_reader
        assert reader is not None
        try:
            self.post_message(self.HistoryRead(asked, reader(node, minutes, points)))
        except (PrometheusError, UsageError) as error:
            self.post_message(self.HistoryFailed(asked, str(error)))

    def worker_failed(self, worker: Worker[object]) -> None:
        (self._history_poller if worker.group == "fleet-history" else self._poller).failed()

    def on_fleet_pane_refreshed(self, message: Refreshed) -> None:
        first = self.snapshot is None
        self.snapshot = message.snapshot
        self.error = ""
        started = self.cpu_clock()
        if self.node_name is not None:
            # The grid is hidden: rebuilt when it shows again, not every refresh (a thousand
            # rows cost more than the node view).
            self._grid_stale = True
            self._show_node()
        else:
            self.redraw()
        if not first:  # the first pays for start-up: imports, connections, the whole grid
            self._costs = [*self._costs, message.cpu_seconds + self.cpu_clock() - started]
            self._costs = self._costs[-COSTS_KEPT:]
        self._poller.answered(self.refresh_seconds)
        self._show_summary()

    @property
    def refresh_cost(self) -> float:
        """The CPU seconds a refresh takes (reading and drawing), over the last few."""
        return sum(self._costs) / len(self._costs) if self._costs else 0.0

    @property
    def refresh_seconds(self) -> float:
        """How long from one refresh to the next: REFRESH_SECONDS, or longer where a refresh
        costs more than CPU_SHARE of that (a big fleet), so the pane left open stays light."""
        return max(REFRESH_SECONDS, self.refresh_cost / CPU_SHARE)

    def on_fleet_pane_history_read(self, message: HistoryRead) -> None:
        if message.asked != self._history_asked:
            return
        # No sooner than a step: a day's graph moves by one point every six minutes.
        self._history_poller.answered(max(REFRESH_SECONDS, message.history.step))
        self.history = message.history
        self.history_error = ""
        self._show_node()

    def on_fleet_pane_history_failed(self, message: HistoryFailed) -> None:
        if message.asked != self._history_asked:
            return
        wait = self._history_poller.failed()
        self.history_error = f"{message.reason} — trying again in {wait:.0f} s"
        self._show_node()

    def on_fleet_pane_failed(self, message: Failed) -> None:
        wait = self._poller.failed()
        self.error = f"{message.reason} — trying again in {wait:.0f} s"
        self._show_summary()
        if self.snapshot is None:  # nothing read yet: what to check, not an empty table
            self.query_one("#fleet-grid").display = False
            self.query_one("#fleet-idle").add_class("-unread")
            self.query_one("#fleet-idle", Static).update(
                f"Nothing read from {self.url or 'the server'} yet. gpu-tui asks again by "
                "itself, and r asks now.\n\nCheck the address (--prometheus, or "
                "GPU_TUI_PROMETHEUS, or prometheus_url in the config file), that Prometheus "
                "runs there, and that it scrapes dcgm-exporter (or gpu-tui export) on every "
                "node: gpu-tui fleet --help says more."
            )

    def action_refresh(self) -> None:
        self._poller.ask_now()
        self._history_poller.ask_now()
        self._due()

    @on(DataTable.RowSelected, "#fleet-grid")
    def _node_chosen(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.open_node(event.row_key.value)

    def open_node(self, name: str) -> None:
        """Show ``name``'s GPUs and history in place of the grid (Esc goes back)."""
        if self.node_name != name:
            self.history, self.history_error = None, ""
        self.node_name = name
        self.add_class("-node")
        self.refresh_bindings()
        self.focus()
        if self._history_reader is not None:
            self._ask_history()
        else:
            self._show_node()

    def action_close_node(self) -> None:
        self.node_name = None
        self._history_asked += 1  # an answer still on its way is for a view now closed
        self._history_poller.stop()
        self.remove_class("-node")
        self.refresh_bindings()
        if self._grid_stale:
            self._grid_stale = False
            self.redraw()
        self.focus()

    def action_zoom(self) -> None:
        self.zoom = (self.zoom + 1) % len(WINDOWS_MINUTES)
        if self._history_reader is not None and self.node_name is not None:
            self._ask_history()

    def _node(self) -> FleetNode | None:
        if self.snapshot is None:
            return None
        return next((n for n in self.snapshot.nodes if n.name == self.node_name), None)

    def _show_node(self) -> None:
        """The open node as the last refresh read it, with its history and one status line."""
        if self.node_name is None or not self.is_mounted:
            return
        window = window_name(self.minutes * 60)
        history = self.history
        if self._history_reader is None:
            status = "No history: this reader has none"
        elif self.history_error:
            status = self.history_error
        elif history is None or round(history.minutes) != self.minutes:
            status = f"Asking Prometheus for the last {window}…"
        else:
            status = f"Last {window} · {history.query_seconds:.2f} s"
        node = self._node() or FleetNode(self.node_name)
        view = self.query_one(FleetNodeView)
        now = self.snapshot.time if self.snapshot is not None else time.time()
        view.show(node, history, status, now)
        status_box = view.query_one("#fleet-node-status", Static)
        status_box.set_class(bool(self.history_error), "-error")

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
            every = self.refresh_seconds
            if every > REFRESH_SECONDS:
                text.append(f" · every {every:.0f} s")
        if self.error:
            error = self.app.get_css_variables()["text-error"]
            text.append(("\n" if text else "") + self.error, style=f"bold {error}")
        self.query_one("#fleet-summary", Static).update(text)

    def redraw(self) -> None:
        """Show the snapshot on the grid, filtered and sorted; the cursor stays on its node.

        When the same nodes show, only the cells that changed are put in and the rows moved
        into the new order (building a table of a thousand rows again was most of the pane's
        work at each refresh); otherwise (a filter, a fleet that changed) it is built again."""
        self._show_summary()
        snapshot = self.snapshot
        if snapshot is None or not self.is_mounted:
            return
        table = self.query_one("#fleet-grid", HintedTable)
        table.display = True  # hidden while nothing had been read
        self.query_one("#fleet-idle").remove_class("-unread")
        rows = grid_rows(snapshot, snapshot.time, self.filter_text, self.sort_index)
        shown = [(row.name, row.cells(), row.state != "up", bool(row.flags)) for row in rows]
        names = [row[0] for row in shown]
        if table.row_count and set(names) == {row[0] for row in self._shown}:
            self._update_grid(table, shown)
        else:
            self._build_grid(table, shown)
        self._shown = shown
        label = SORTS[self.sort_index].label
        count = f"{len(rows)} of {len(snapshot.nodes)}" if self.filter_text else f"{len(rows)}"
        table.border_title = f"{count} nodes · sorted by {label}"
        table.show_hint()  # where more rows lie, and the table's keys
        self._show_idle(snapshot)

    def _styles(self) -> tuple[str, str]:
        """The styles of a node that is down and of flags (looked up once a redraw: the
        theme's variables take a while to work out)."""
        variables = self.app.get_css_variables()
        return f"bold {variables['text-error']}", f"bold {variables['text-warning']}"

    @staticmethod
    def _styled(row: ShownRow, index: int, styles: tuple[str, str]) -> Text:
        """A row's cell: a node that is down in the error colour, flags in the warning one."""
        _, cells, down, flagged = row
        if down and index < 2:
            return Text(cells[index], style=styles[0])
        if flagged and not down and index == 7:
            return Text(cells[index], style=styles[1])
        return Text(cells[index])

    def _build_grid(self, table: DataTable[Text], shown: list[ShownRow]) -> None:
        keep = None
        if table.row_count and 0 <= table.cursor_row < table.row_count:
            keep = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        table.clear(columns=True)
        for header, label in zip(HEADERS, header_labels(), strict=True):
            table.add_column(label, key=header)
        styles = self._styles()
        for row in shown:
            table.add_row(*(self._styled(row, i, styles) for i in range(len(HEADERS))), key=row[0])
        names = [row[0] for row in shown]
        if keep in names:
            table.move_cursor(row=names.index(keep))

    def _update_grid(self, table: DataTable[Text], shown: list[ShownRow]) -> None:
        was_shown = {row[0]: row for row in self._shown}
        styles = self._styles()
        for new in shown:
            old = was_shown[new[0]]
            if new == old:
                continue
            restyled = new[2:] != old[2:]
            for index, (cell, was) in enumerate(zip(new[1], old[1], strict=True)):
                if cell == was and not restyled:
                    continue
                column = HEADERS[index]
                # A column only grows here: measuring it again would visit every row.
                wider = len(cell) > table.columns[ColumnKey(column)].content_width
                text = self._styled(new, index, styles)
                table.update_cell(new[0], column, text, update_width=wider)
        names = [row[0] for row in shown]
        if names != [row[0] for row in self._shown]:  # the sort order moved: move the rows
            keep = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            position = {name: index for index, name in enumerate(names)}
            table.sort(HEADERS[0], key=lambda node: position[str(node)])
            if keep in position:
                table.move_cursor(row=position[keep])

    def _show_idle(self, snapshot: FleetSnapshot) -> None:
        idle = snapshot.idle_while_allocated
        box = self.query_one("#fleet-idle", Static)
        if not idle:
            box.update(f"No GPU idle while allocated (for {window_text(snapshot.idle_window)}).")
            return
        window = window_text(snapshot.idle_window)
        idle_at = format_reading_percent(IDLE_MAX_UTIL)
        lines = [f"Idle while allocated: ≤{idle_at} for {window} with memory held"]
        for gpu in idle[:IDLE_SHOWN]:
            who = f"  {gpu.namespace}/{gpu.pod}" if gpu.pod else f"  {gpu.job}" if gpu.job else ""
            lines.append(f"  {gpu.node} gpu{gpu.gpu}{who}")
        if len(idle) > IDLE_SHOWN:
            lines.append(f"  … and {len(idle) - IDLE_SHOWN} more (gpu-tui fleet --json lists all)")
        box.update("\n".join(lines))
