"""The gpu-tui Textual app: a tabbed shell hosting the panes, and ``make_app`` to build it."""

from __future__ import annotations

import asyncio
import gc
import importlib
import signal
import socket
import sys

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Tab, Tabs
from textual.worker import Worker

from gpu_tui.core import ending
from gpu_tui.core.devices.model import Inventory
from gpu_tui.ui.config import AppConfig
from gpu_tui.ui.messages import InventoryReady
from gpu_tui.ui.pane import Pane
from gpu_tui.ui.pane_registry import PANES, PaneSpec
from gpu_tui.ui.styles_path import stylesheets
from gpu_tui.ui.widgets.plain_container import PlainContainer, PlainScreen
from gpu_tui.ui.worker_failures import report_failure

TERMINAL_CHECK_SECONDS = 1.0


def load_pane(spec: PaneSpec) -> type[Pane]:
    """Import a pane class from its ``module:Class`` path."""
    module_name, class_name = spec.widget.split(":")
    pane_class: type[Pane] = getattr(importlib.import_module(module_name), class_name)
    return pane_class


class GpuTuiApp(App[int]):
    """Tabs for Specs, Monitor, Kitchen, Bench and Guide; number keys switch between them."""

    TITLE = "gpu-tui"
    CSS_PATH = stylesheets()  # type: ignore[assignment]  # Textual accepts a list of paths
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012 — Textual API
    BINDINGS = [  # noqa: RUF012 — Textual API
        *(
            Binding(pane.key, f"show_pane('{pane.name}')", pane.title, key_display=pane.key)
            for pane in PANES
        ),
        Binding("question_mark", "toggle_keys", "Keys", key_display="?"),
        Binding("q", "quit", "Quit"),
        # Ctrl-C quits, as in every terminal monitor (Textual's default only says "press ^q")
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(self, config: AppConfig) -> None:
        super().__init__()
        self.config = config
        self.inventory: Inventory | None = None
        self.panes: dict[str, Pane] = {}
        self._pane_chosen = False
        self.home = PlainScreen(id="_default")
        """The screen the panes live on (dialogs and the command palette open above it)."""
        host = config.host or socket.gethostname()
        self.sub_title = host + ("  ·  DEMO (SIMULATED GPU)" if config.demo else "")

    def get_default_screen(self) -> Screen[None]:
        return self.home

    def compose(self) -> ComposeResult:
        # The header with the tab bar, and the footer, each sit in a container of their own
        # height, and the panes straight on the screen (one shown at a time): the compositor
        # draws again every widget whose container meets a repainted row, and cuts up every
        # container behind it (see ``widgets.plain_container``). A Monitor tick then touches
        # its own widgets only; TabbedContent would add three full-height containers.
        tabs = (Tab(f"{spec.key} {spec.title}", id=f"tab-{spec.name}") for spec in PANES)
        yield PlainContainer(
            Header(), Tabs(*tabs, active=f"tab-{self.config.pane}", id="tabs"), id="top-bar"
        )
        for spec in PANES:
            if spec.name == self.config.pane:
                yield self.build_pane(spec)
        yield PlainContainer(Footer(), id="footer-bar")

    def build_pane(self, spec: PaneSpec) -> Pane:
        """Create a pane widget; each is built once, the first time it is shown."""
        pane = load_pane(spec)(self.config, id=spec.name)
        self.panes[spec.name] = pane
        return pane

    async def ensure_pane(self, name: str) -> Pane:
        """The pane called ``name``, mounted on first use: only the first pane is composed at
        start-up, which keeps the first screen fast however many panes there are."""
        if name in self.panes:
            return self.panes[name]
        spec = next(spec for spec in PANES if spec.name == name)
        pane = self.build_pane(spec)
        pane.display = False  # until ``activate`` shows it in place of the others
        await self.home.mount(pane, before=self.home.query_one("#footer-bar"))
        if self.inventory is not None:
            pane.inventory = self.inventory
        return pane

    def on_mount(self) -> None:
        self._handle_ending_signals()
        self.discover_inventory()
        # Keys go to the pane, not the tab bar, from the first frame.
        self.call_after_refresh(self._show_first_pane)

    def _handle_ending_signals(self) -> None:
        """SIGTERM, SIGHUP (the SSH connection or tmux session went away) and SIGINT from
        outside end the app as ``q`` does — every pane stops its run and keeps what it measured
        as it unmounts — and the exit status says which signal it was (128 + its number)."""
        if self.is_headless:  # tests: the signals belong to the test runner
            return
        loop = asyncio.get_running_loop()
        for signum in ending.ENDING_SIGNALS:
            loop.add_signal_handler(signum, self.exit, None, ending.exit_code(signum))
        self.set_interval(TERMINAL_CHECK_SECONDS, self._check_terminal, name="terminal-check")

    def _check_terminal(self) -> None:
        # A hung-up terminal whose SIGHUP went elsewhere: end as if it had come here.
        if ending.terminal_gone(sys.__stdin__.fileno() if sys.__stdin__ else 0):
            self.exit(None, ending.exit_code(signal.SIGHUP))

    @work(exclusive=True, group="inventory", exit_on_error=False)
    async def discover_inventory(self) -> None:
        """Read the hardware off the event loop: the CPU first (milliseconds), so the first
        screen shows it, then the accelerators (NVML can take a while on big machines, and
        a sick driver never answers: discovery gives up after the NVML call limit).

        Each step runs on a daemon thread and this worker awaits it: a thread worker is joined
        when the app exits, so one stuck in the driver would stop ``q`` from quitting.
        """
        from gpu_tui.core.devices import discover_host, with_accelerators
        from gpu_tui.core.devices.nvml_guard import in_daemon_thread

        config = self.config
        if config.discover is not None:
            fixed = in_daemon_thread(config.discover, "gpu-tui-discover")
            self.post_message(InventoryReady(await asyncio.wrap_future(fixed)))
            return
        host = await asyncio.wrap_future(in_daemon_thread(discover_host, "gpu-tui-discover"))
        self.post_message(InventoryReady(host))
        full = in_daemon_thread(
            lambda: with_accelerators(host, demo=config.demo, nvml=config.nvml), "gpu-tui-discover"
        )
        self.post_message(InventoryReady(await asyncio.wrap_future(full)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)  # discovery failing must be seen, not swallowed

    def on_inventory_ready(self, message: InventoryReady) -> None:
        self.inventory = message.inventory
        for pane in self.panes.values():
            pane.inventory = message.inventory
        if not self.is_headless:
            self.call_after_refresh(settle_memory)

    @on(Tabs.TabActivated, "#tabs")
    async def tab_activated(self, event: Tabs.TabActivated) -> None:
        await self.activate((event.tab.id or "").removeprefix("tab-"))

    async def activate(self, name: str) -> Pane:
        """Mount the pane if needed, show it alone, and tell every pane whether it is the
        visible one, so hidden panes stop their timers and drawing."""
        pane = await self.ensure_pane(name)
        for other in self.panes.values():
            other.display = other is pane
            other.active = other is pane
        return pane

    async def _show_first_pane(self) -> None:
        # A pane key pressed before the first refresh wins over --pane: it came later.
        if not self._pane_chosen:
            await self.action_show_pane(self.config.pane)

    async def action_show_pane(self, name: str) -> None:
        self._pane_chosen = True
        self.home.query_one("#tabs", Tabs).active = f"tab-{name}"
        pane = await self.activate(name)
        pane.focus()

    def action_toggle_keys(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()


__all__ = ["AppConfig", "GpuTuiApp", "make_app", "settle_memory"]


def settle_memory() -> None:
    """Start-up is over: hide what it built from the garbage collector.

    The ~80,000 objects built by then (styles, widgets) live as long as the app, yet each full
    collection walks them all: 30 ms every half a minute or so, a third of an idle Monitor
    tick on average. Garbage is collected first so none of it is kept for good. Not for
    headless apps (tests build hundreds; frozen, their cycles would never be freed).
    """
    gc.collect()
    gc.freeze()


def make_app(config: AppConfig | None = None) -> GpuTuiApp:
    """The app, as the CLI, the tests and the screenshot script all build it."""
    return GpuTuiApp(config or AppConfig())
