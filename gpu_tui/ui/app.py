"""The gpu-tui Textual app: a tabbed shell hosting the panes, and ``make_app`` to build it."""

from __future__ import annotations

import asyncio
import gc
import importlib
import itertools
import signal
import socket
import sys
from collections.abc import Iterable
from concurrent.futures import Future

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.command import Provider
from textual.containers import Container
from textual.driver import Driver
from textual.screen import ModalScreen, Screen
from textual.widgets import Header, Tab, Tabs
from textual.worker import Worker

from gpu_tui.core import ending
from gpu_tui.core.devices.model import Inventory
from gpu_tui.core.devices.nvml_guard import not_answering, retry_delay
from gpu_tui.core.units import set_size_unit, set_temperature_unit
from gpu_tui.ui.config import AppConfig
from gpu_tui.ui.keys_footer import KeysFooter
from gpu_tui.ui.messages import InventoryReady
from gpu_tui.ui.pane import Pane
from gpu_tui.ui.pane_registry import PANES, PaneSpec, pane_names
from gpu_tui.ui.styles_path import pane_stylesheet, startup_stylesheets
from gpu_tui.ui.worker_failures import report_failure

TERMINAL_CHECK_SECONDS = 1.0


def load_pane(spec: PaneSpec) -> type[Pane]:
    """Import a pane class from its ``module:Class`` path."""
    module_name, class_name = spec.widget.split(":")
    pane_class: type[Pane] = getattr(importlib.import_module(module_name), class_name)
    return pane_class


def pane_commands() -> type[Provider]:
    """The palette's commands, imported when Ctrl+P first opens: they read every pane's and
    every Kitchen scenario's module, which is not worth loading before the first screen."""
    from gpu_tui.ui.palette import PaneCommands

    return PaneCommands


class GpuTuiApp(App[int]):
    """Tabs for Specs, Monitor, Kitchen, Bench, Guide and Fleet; number keys switch between them."""

    TITLE = "gpu-tui"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012 — Textual API
    # The keys that work everywhere are priority bindings: they act before the focused widget
    # sees them, from inside a form or a dialog too. Only a text field being edited takes them
    # as text (its ``check_consume_key`` hides them from the chain; see ``widgets.field``).
    # The tab bar shows the pane keys, so the footer keeps its width for the pane's own keys.
    BINDINGS = [  # noqa: RUF012 — Textual API
        *(
            Binding(
                pane.key,
                f"show_pane('{pane.name}')",
                pane.title,
                key_display=pane.key,
                show=False,
                priority=True,
            )
            for pane in PANES
        ),
        Binding(
            "question_mark",
            "toggle_keys",
            "Keys",
            key_display="?",
            priority=True,
            tooltip="every key, with what it does",
        ),
        Binding(
            "q", "quit", "Quit", priority=True, tooltip="a run stops; what it measured is kept"
        ),
        # j/k move as ↓/↑ in any list, table or text box, as in htop, btop and nvitop (a field
        # being edited takes them as text first: the focused widget sees a key before the app)
        Binding("j", "move('down')", "Down", show=False),
        Binding("k", "move('up')", "Up", show=False),
        # F1 is help in htop, btop and nvtop
        Binding("f1", "toggle_keys", "Keys", show=False, priority=True),
        # Ctrl-C quits, as in every terminal monitor (Textual's default only says "press ^q")
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
    ]
    COMMANDS = App.COMMANDS | {pane_commands}

    def __init__(self, config: AppConfig, host_inventory: Future[Inventory] | None = None) -> None:
        # Only the first pane's stylesheet is read now; each other pane's is read when the pane
        # is first built (parsing them all was a tenth of the time to the first screen).
        super().__init__(css_path=startup_stylesheets(config.pane, pane_names()))
        self.config = config
        self._host_inventory = host_inventory
        """The CPU and memory being read since before Textual loaded (see ``cli.run_tui``)."""
        self.inventory: Inventory | None = None
        self.panes: dict[str, Pane] = {}
        self._pane_chosen = False
        self._theme_at_start: str | None = None
        """The theme once the app is up: a later change is the user's, and is kept."""
        self.home: Screen[None] = Screen(id="_default")
        """The screen the panes live on (dialogs and the command palette open above it)."""
        host = config.host or socket.gethostname()
        self.sub_title = (
            host
            + ("  ·  DEMO (SIMULATED GPU)" if config.demo else "")
            + ("  ·  read-only" if config.read_only else "")
        )

    def watch_theme(self, theme: str) -> None:
        """A theme chosen in the app (Ctrl+P) is the next start's, unless the config file
        names one (``core.user_config``)."""
        if getattr(self, "_theme_at_start", None) not in (None, theme):  # set once mounted
            from gpu_tui.core.user_config import remember_theme

            trouble = remember_theme(theme)
            if trouble:
                self.notify(f"The theme could not be kept: {trouble}", severity="warning")

    def get_default_screen(self) -> Screen[None]:
        return self.home

    def compose(self) -> ComposeResult:
        # The header with the tab bar, and the footer, each sit in a container of their own
        # height, and the panes straight on the screen (one shown at a time): the compositor
        # draws again every widget whose container meets a repainted row, and cuts up every
        # container behind it. A Monitor tick then touches
        # its own widgets only; TabbedContent would add three full-height containers.
        tabs = (Tab(f"{spec.key} {spec.title}", id=f"tab-{spec.name}") for spec in PANES)
        bar = Tabs(*tabs, active=f"tab-{self.config.pane}", id="tabs")
        # The number keys and clicks choose a pane; Tab moves within the pane shown, so the
        # keyboard never lands on the bar, where none of the pane's keys would work.
        bar.can_focus = False
        yield Container(Header(), bar, id="top-bar")
        for spec in PANES:
            if spec.name == self.config.pane:
                yield self.build_pane(spec)
        yield Container(KeysFooter(), id="footer-bar")

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
        self._read_pane_stylesheet(name)
        pane = self.build_pane(spec)
        pane.display = False  # until ``activate`` shows it in place of the others
        await self.home.mount(pane, before=self.home.query_one("#footer-bar"))
        if self.inventory is not None:
            pane.inventory = self.inventory
        return pane

    def _read_pane_stylesheet(self, name: str) -> None:
        """Add a pane's stylesheet before the pane is mounted. Its rules match only the pane's
        own widgets (and its dialogs), so the widgets already on screen need no restyling: as
        with a widget's default CSS, Textual parses the new rules when it styles the pane."""
        path = pane_stylesheet(name)
        if path is None or self.stylesheet.has_source(str(path)):
            return
        self.stylesheet.add_source(path.read_text(encoding="utf-8"), read_from=(str(path), ""))
        if self.css_monitor is not None:  # ``textual run --dev``: reload it on change too
            self.css_monitor.add_paths([path])

    def get_driver_class(self) -> type[Driver]:
        """Textual's terminal driver, with output that survives a hung-up terminal
        (``gpu_tui.ui.terminal_driver``); a driver named in TEXTUAL_DRIVER is used as it is."""
        driver = super().get_driver_class()
        if sys.platform != "win32":
            from textual.drivers.linux_driver import LinuxDriver

            from gpu_tui.ui.terminal_driver import HangUpSafeDriver

            if driver is LinuxDriver:
                return HangUpSafeDriver
        return driver

    def on_mount(self) -> None:
        self._handle_ending_signals()
        theme = self.config.theme
        if theme and theme not in self.available_themes:
            self.notify(f"No theme is called {theme!r}: Ctrl+P › Change theme lists them.")
        elif theme:
            self.theme = theme
        if self.config.startup_note:
            self.notify(self.config.startup_note, severity="warning", timeout=10)
        self._theme_at_start = self.theme
        early = self._host_inventory
        if early is not None and early.done() and early.exception() is None:
            # Read while Textual loaded: the first frame shows the CPU, not "Reading hardware…".
            self._take_inventory(early.result())
        # NVML (and the CPU, if not read yet) once the first frame is on screen: its imports and
        # driver calls would otherwise share the CPU with drawing that frame.
        self.call_after_refresh(self.discover_inventory)
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
        try:
            await self._discover()
        finally:
            # Start-up is over, whether discovery worked or not.
            if not self.is_headless:
                self.call_after_refresh(settle_memory)

    async def _discover(self) -> None:
        from gpu_tui.core.devices import discover_host, with_accelerators
        from gpu_tui.core.devices.nvml_guard import in_daemon_thread

        config = self.config
        if config.discover is not None:
            fixed = in_daemon_thread(config.discover, "gpu-tui-discover")
            self.post_message(InventoryReady(await asyncio.wrap_future(fixed)))
            return
        host_reading = self._host_inventory or in_daemon_thread(discover_host, "gpu-tui-discover")
        host = await asyncio.wrap_future(host_reading)
        if self.inventory is None:  # not shown at mount already
            self.post_message(InventoryReady(host))
        full = in_daemon_thread(
            lambda: with_accelerators(host, demo=config.demo, nvml=config.nvml), "gpu-tui-discover"
        )
        inventory = await asyncio.wrap_future(full)
        self.post_message(InventoryReady(inventory))
        nvml = inventory.backends.get("nvml")
        # A driver that did not answer in time may answer later (not with --demo: its
        # simulated GPU has taken the first free index by then).
        if nvml is not None and not_answering(nvml.reason) and not config.demo:
            self.rediscover_accelerators(host)

    @work(exclusive=True, group="rediscover", exit_on_error=False)
    async def rediscover_accelerators(self, host: Inventory) -> None:
        """Ask NVML again, later and later, until it answers or fails for a reason that lasts."""
        from gpu_tui.core.devices import with_accelerators
        from gpu_tui.core.devices.nvml_guard import in_daemon_thread

        for tries in itertools.count():
            await asyncio.sleep(retry_delay(tries))
            again = in_daemon_thread(
                lambda: with_accelerators(host, nvml=self.config.nvml), "gpu-tui-discover"
            )
            inventory = await asyncio.wrap_future(again)
            nvml = inventory.backends.get("nvml")
            if nvml is None or not not_answering(nvml.reason):
                self.post_message(InventoryReady(inventory))
                return

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)  # discovery failing must be seen, not swallowed

    def on_inventory_ready(self, message: InventoryReady) -> None:
        self._take_inventory(message.inventory)

    def _take_inventory(self, inventory: Inventory) -> None:
        self.inventory = inventory
        for pane in self.panes.values():
            pane.inventory = inventory

    @on(Tabs.TabActivated, "#tabs")
    async def tab_activated(self, event: Tabs.TabActivated) -> None:
        await self.activate((event.tab.id or "").removeprefix("tab-"))

    async def activate(self, name: str) -> Pane:
        """Mount the pane if needed, show it alone, and tell every pane whether it is the
        visible one, so hidden panes stop their timers and drawing."""
        pane = await self.ensure_pane(name)
        # The panes live on the home screen: a dialog open above it (a tab event can arrive
        # after one opened) keeps its own focus.
        focused = self.home.focused
        if focused is not None and pane not in focused.ancestors_with_self:
            # A hidden widget keeps Textual's focus: keys pressed in a pane with nothing to
            # focus (Fleet without a server) would reach the pane left behind, out of sight.
            self.home.set_focus(None)
        for other in self.panes.values():
            other.display = other is pane
            other.active = other is pane
        return pane

    async def _show_first_pane(self) -> None:
        # A pane key pressed before the first refresh wins over --pane: it came later.
        if not self._pane_chosen:
            await self.show_pane(self.config.pane)

    async def action_show_pane(self, name: str) -> None:
        """A pane key: from a dialog or the keys screen, close it (as Esc would) and go on."""
        while self.screen is not self.home and isinstance(self.screen, ModalScreen):
            await self.screen.dismiss(None)
        await self.show_pane(name)

    async def show_pane(self, name: str) -> None:
        """Show the pane called ``name`` with the keyboard in it, and its tab as the active one."""
        self._pane_chosen = True
        self.home.query_one("#tabs", Tabs).active = f"tab-{name}"
        pane = await self.activate(name)
        pane.focus()

    def action_move(self, direction: str) -> None:
        """j or k: what ↓ or ↑ does in the focused widget (its cursor, else its scroll)."""
        widget = self.focused
        move = getattr(widget, f"action_cursor_{direction}", None) or getattr(
            widget, f"action_scroll_{direction}", None
        )
        if callable(move):
            move()

    def action_toggle_keys(self) -> None:
        # Imported on first use, as the palette is: the ? screen is not part of start-up.
        from gpu_tui.ui.keys_screen import KeysScreen

        if isinstance(self.screen, KeysScreen):
            self.screen.dismiss(None)
        else:
            self.push_screen(KeysScreen.of(self.screen))

    def _showing_keys(self) -> bool:
        from gpu_tui.ui.keys_screen import KeysScreen

        return isinstance(self.screen, KeysScreen)

    # The palette's "Keys" command and Textual's help actions open the same keys screen.
    def action_show_help_panel(self) -> None:
        if not self._showing_keys():
            self.action_toggle_keys()

    def action_hide_help_panel(self) -> None:
        if self._showing_keys():
            self.action_toggle_keys()

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title != "Keys":
                yield command
        yield SystemCommand("Keys", "Every key, with what it does (?)", self.action_toggle_keys)


__all__ = ["AppConfig", "GpuTuiApp", "make_app", "settle_memory"]


def settle_memory() -> None:
    """Start-up is over: hide what it built from the garbage collector, and let it run again.

    The ~80,000 objects built by then (styles, widgets) live as long as the app, yet each full
    collection walks them all: 30 ms every half a minute or so, a third of an idle Monitor
    tick on average. Garbage is collected first so none of it is kept for good. Not for
    headless apps (tests build hundreds; frozen, their cycles would never be freed).

    The CLI turns the collector off until now (``cli.run_tui``): during start-up it walked those
    objects again and again while they were being built.
    """
    gc.collect()
    gc.freeze()
    gc.enable()


def make_app(
    config: AppConfig | None = None, host_inventory: Future[Inventory] | None = None
) -> GpuTuiApp:
    """The app, as the CLI, the tests and the screenshot script all build it.

    ``host_inventory``: the CPU and memory already being read (the CLI starts that before it
    imports the UI); without it the app reads them itself.
    """
    config = config or AppConfig()
    set_temperature_unit(config.temperature_unit)
    set_size_unit(config.size_unit)
    return GpuTuiApp(config, host_inventory)
