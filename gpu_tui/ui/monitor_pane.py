"""The Monitor pane: live CPU, memory and GPU readings, history on fixed scales, GPU processes."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.message import Message
from textual.widgets import Static

from gpu_tui.core.devices.live_sources import GpuSources, open_gpu_sources
from gpu_tui.core.devices.model import Inventory
from gpu_tui.core.devices.nvml_guard import in_daemon_thread, retry_delay
from gpu_tui.core.monitor import signals
from gpu_tui.core.monitor.history_window import WINDOWS, kept_ms, window_ms, window_name
from gpu_tui.core.monitor.sampler import Sampler, step_interval
from gpu_tui.core.monitor.samples import Sample
from gpu_tui.core.units import format_seconds_precise, format_span
from gpu_tui.ui.config import AppConfig
from gpu_tui.ui.monitor.gpu_card import GpuCard
from gpu_tui.ui.monitor.host_panel import HostPanel
from gpu_tui.ui.monitor.process_dialogs import FilterDialog, SignalDialog
from gpu_tui.ui.monitor.process_table import (
    SORT_KEYS,
    ProcessRow,
    ProcessTable,
    process_rows,
    row_matches,
)
from gpu_tui.ui.monitor.process_tree import tree_order
from gpu_tui.ui.monitor.sources import stop_in_background
from gpu_tui.ui.pane import Pane

MIN_REDRAW_SECONDS = 0.25
"""At a 0.1 s refresh the sampler ticks ten times a second; drawing four is plenty to read."""
WIDE_COLUMNS = 110
"""From this width on (Textual's ``-wide`` breakpoint too) the host and GPUs sit side by side."""
SORT_TITLES = {"vram": "VRAM", "sm": "SM %", "cpu": "CPU %", "pid": "PID", "gpu": "GPU"}


def card_mode(gpus: int, wide: bool) -> str:
    """How much each GPU card shows: full cards when they fit, one line each when many."""
    if wide:
        return "full" if gpus <= 4 else "compact"
    return "full" if gpus == 1 else "compact" if gpus == 2 else "line"


class MonitorPane(Pane, can_focus=True):
    """Starts a sampler thread the first time it is shown, and draws what it posts.

    The sampler reads the CPU from its first tick; the GPUs join it once NVML has opened on a
    daemon thread (a sick driver makes that take the NVML call limit, or fail at once). It
    posts one ``Ticked`` per tick (only the newest waiting one is kept); the pane draws at most
    every ``MIN_REDRAW_SECONDS`` and not at all while hidden.
    """

    BLANK = True
    """The pane has no border or background of its own (Textual draws it as blank lines)."""

    LEGEND = (
        ("GPU", "Share of the time a kernel was running (not how much of the GPU it used)"),
        ("tensor", "Share of the time the tensor cores were busy (GPM: Hopper and newer)"),
        ("CHIP", "What the chip's units did (GPM): tensor cores, SMs busy and occupied, memory"),
        ("VRAM", "GPU memory used, of the total"),
        ("MCTL", "Share of the time the memory controller was reading or writing"),
        ("TEMP PWR", "Temperature against the slowdown point, power against the limit"),
        ("HELD", "The clocks are held back (too hot, at the power cap…): a wider card says why"),
        ("STALE", "The driver did not answer in time: the card shows its last reading"),
        ("LOST", "The GPU stopped answering (fell off the bus): it needs a reset to come back"),
        ("SMCLK MCLK", "The SM (compute) clock and the memory clock, MHz"),
        ("PCIe ↓ ↑", "The host link: received, sent"),
        ("ECC", "Memory errors corrected since the driver loaded"),
        ("ENC/DEC", "The video encoder's and decoder's busy share"),
        ("G", "GiB (GB with size_unit = decimal)"),
        ("SM %", "A process's share of the SMs' time; TYPE C compute, G graphics"),
        ("USER ?", "The process is in another PID namespace (a container): --pid=host shows it"),
    )

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "pause", "Pause", tooltip="stop / resume the readings"),
        Binding("s", "sort", "Sort", tooltip="processes by VRAM, SM %, CPU %, PID or GPU"),
        Binding(
            "minus",
            "faster",
            "Read faster",
            key_display="-",
            group=Binding.Group("Faster/slower", compact=True),
            tooltip="shorter interval between readings",
        ),
        Binding(
            "plus,equals_sign",
            "slower",
            "Read slower",
            key_display="+",
            group=Binding.Group("Faster/slower", compact=True),
            tooltip="longer interval between readings",
        ),
        Binding("z", "zoom", "Zoom", tooltip="graphs over 1 min, 5 min, 15 min, 1 h or all kept"),
        Binding("slash", "filter", "Filter", key_display="/", tooltip="show only some processes"),
        Binding("t", "tree", "Tree", tooltip="GPU processes under their host parents, or a list"),
        Binding(
            "K",
            "signal",
            "Signal",
            key_display="K",
            tooltip="send TERM, INT or KILL to the selected process (not with --read-only)",
        ),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]

    @dataclass
    class Ticked(Message, bubble=False):
        """A tick's readings (from the sampler thread)."""

        sample: Sample

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, MonitorPane.Ticked)

    def __init__(self, config: AppConfig, *, id: str | None = None) -> None:
        super().__init__(config, id=id)
        self.sampler: Sampler | None = None
        self.sources: GpuSources | None = None
        self.interval = config.refresh_seconds
        self.paused = False
        self.sort = SORT_KEYS[0]
        self.filter = ""
        self.as_tree = False
        """Processes drawn under their host parents (``t``) rather than as a list."""
        """Only the processes whose row holds this text (``/``); empty: all."""
        self._signal_news = ""
        self.zoom = 0
        """Which of ``WINDOWS`` the graphs show (``z`` cycles)."""
        self._kept = ""
        """How much history "all" shows, in words (the status line says it)."""
        self.redraws = 0
        """How many times the pane drew a tick (tests check a hidden pane does not)."""
        self._latest: Sample | None = None
        self._dirty = False
        self._last_redraw = 0.0
        self._flush_pending = False
        self._closing = False
        self._open_tries = 0
        self._error = ""
        self._texts: dict[Static, str] = {}
        # Held, not queried: a DOM query each tick costs more than the drawing it leads to.
        self._status = Static("Starting the sampler…", id="monitor-status")
        self._host = HostPanel(id="monitor-host")
        self._cards: list[GpuCard] = []
        self._table = ProcessTable()
        self._detail = Static(id="monitor-proc-detail", markup=False)
        self._note = Static(id="monitor-proc-note")

    def compose(self) -> ComposeResult:
        yield self._status
        with Container(id="monitor-body"):
            yield self._host
            yield Container(Static("Opening GPUs…", id="monitor-no-gpu"), id="monitor-gpus")
        with Container(id="monitor-procs"):
            yield self._table
        yield self._detail
        yield self._note

    def on_mount(self) -> None:
        self.query_one("#monitor-gpus").border_title = "GPUs"
        self._host.border_title = "CPU"
        self._update_sort_title()

    def focus(self, scroll_visible: bool = True) -> MonitorPane:
        # The arrow keys pick a process; the pane's own keys still reach us. Without GPUs
        # there is no table: the pane itself holds the keyboard.
        if self.has_class("-no-gpu"):
            super().focus(scroll_visible)
        else:
            self._table.focus(scroll_visible)
        return self

    def _keep_keyboard(self) -> None:
        """The hidden process table must not take the pane's keys with it: while this pane is
        shown, a keyboard on the table (or nowhere) comes to the pane."""
        focused = self.app.focused
        if self.active and (focused is None or focused is self._table):
            self.focus()

    # ---- sampler life cycle -------------------------------------------------------------
    def watch_active(self, active: bool) -> None:
        if not active:
            return
        if self.sampler is None and not self._closing:
            self._start_sampling()
        elif self._dirty:
            self.redraw()

    def _start_sampling(self) -> None:
        """The CPU now (a sampler costs a fraction of a millisecond to build), GPUs later."""
        sampler = Sampler(
            host=self.config.host_reader,
            interval=self.interval,
            on_tick=self._post_tick,
            on_error=self._sampler_failed,
        )
        if self.paused:
            sampler.pause()
        self.sampler = sampler
        sampler.start()
        self._show_status()
        self._open_gpus()

    @work(exclusive=True, group="monitor-open", exit_on_error=False)
    async def _open_gpus(self) -> None:
        """NVML init may take seconds, or hang in a sick driver: it runs on a daemon thread
        under the NVML call limit, and this worker only awaits it, so quitting never waits."""
        opening = in_daemon_thread(
            partial(open_gpu_sources, demo=self.config.demo, nvml=self.config.nvml),
            "gpu-tui-monitor-open",
        )
        try:
            sources = await asyncio.wrap_future(opening)
        except asyncio.CancelledError:
            # The pane went away first: shut NVML down once open, never on the event loop.
            in_daemon_thread(lambda: opening.result().close(reads_hung=False), "gpu-tui-close")
            raise
        self._attach_gpus(sources)

    def _post_tick(self, sample: Sample) -> None:
        self.post_message(self.Ticked(sample))  # thread-safe and non-blocking

    def _sampler_failed(self, error: BaseException) -> None:
        # Called on the sampler thread; a string assignment is atomic, the next draw shows it.
        self._error = f"{type(error).__name__}: {error}"

    def _attach_gpus(self, sources: GpuSources) -> None:
        sampler, self.sources = self.sampler, sources
        if self._closing or sampler is None:  # NVML shutdown may block: not on the event loop
            in_daemon_thread(partial(sources.close, reads_hung=False), "gpu-tui-close")
            return
        retrying = self._open_tries > 0
        sampler.add_gpu_sources(sources.real, [] if retrying else sources.inline)
        gpus = self.query_one("#monitor-gpus")
        if sampler.gpu_count:
            self.query_one("#monitor-no-gpu").remove()
            if retrying:  # back from the no-GPU layout of the tries before
                self.remove_class("-no-gpu")
                self._host.remove_class("-fill")
                self._table.can_focus = True
            mode = card_mode(sampler.gpu_count, self.size.width >= WIDE_COLUMNS)
            self._cards = [
                GpuCard(slot, mode, id=f"gpu-card-{slot}") for slot in range(sampler.gpu_count)
            ]
            gpus.mount_all(self._cards)
            # The cards speak in nvidia-smi's short names (SMCLK, MCTL, ENC/DEC): say where
            # each is spelled out.
            gpus.border_title = "GPUs · ? says what each reading means"
            self.call_after_refresh(self._lay_out)
        else:
            again = ""
            # A driver that did not answer may answer later (not with --demo: its simulated
            # GPU has the slots by then).
            if sources.hung is not None and not self.config.demo:
                delay = retry_delay(self._open_tries)
                self._open_tries += 1
                self.set_timer(delay, self._open_gpus)
                again = f" Asking again in {delay:g} s."
            self.query_one("#monitor-no-gpu", Static).update(
                f"No GPUs to show: {sources.note}.{again}\n"
                "Start with --demo to see a SIMULATED one."
            )
            # No GPU, no GPU processes: the host gets the rows (with graphs) instead.
            self.add_class("-no-gpu")
            self._host.add_class("-fill")
            self._table.can_focus = False
            self._keep_keyboard()
            # A focus asked for before this answer (the pane shown at start) reaches the table
            # only on a later turn, and Textual then drops it with the hidden table: look again.
            self.call_after_refresh(self._keep_keyboard)
            self.refresh_bindings()  # nothing to sort
        self._show_status()

    def on_unmount(self) -> None:
        self._closing = True
        if self.sampler is not None:
            stop_in_background(self.sampler, self.sources)

    # ---- drawing ------------------------------------------------------------------------
    def on_monitor_pane_ticked(self, message: Ticked) -> None:
        self._latest = message.sample
        if not self.active:
            self._dirty = True  # drawn when shown again
            return
        wait = self._last_redraw + MIN_REDRAW_SECONDS - time.monotonic()
        if wait <= 0:
            self.redraw()
        elif not self._flush_pending:
            self._dirty = True
            self._flush_pending = True
            self.set_timer(wait, self._flush)

    def _flush(self) -> None:
        self._flush_pending = False
        if self._dirty and self.active:
            self.redraw()

    def redraw(self) -> None:
        """Draw the newest sample into every widget (cheap: text only, the table when changed)."""
        sample, sampler = self._latest, self.sampler
        self._dirty = False
        if sample is None or sampler is None:
            return
        self._last_redraw = time.monotonic()
        self.redraws += 1
        history = sampler.history
        window = self.window_ms()
        inventory = self.inventory
        cpu_name = inventory.cpu.model if inventory is not None else None
        accelerators = inventory.accelerators if inventory is not None else ()
        self._host.show(sample, history, cpu_name, window)
        for card in self._cards:
            if card.slot >= len(sample.gpus):
                continue
            known = card.slot < len(accelerators)
            name = accelerators[card.slot].name if known else f"GPU {card.slot}"
            migs = accelerators[card.slot].mig_devices if known else ()
            mig = tuple(m.name.rpartition("MIG ")[2] for m in migs)  # "3g.40gb", not the GPU again
            gpu_history = history.gpus[card.slot] if card.slot < len(history.gpus) else None
            card.show(sample.gpus[card.slot], gpu_history, name, mig, window)
        rows, notes = process_rows(sample.gpus, self.sort, sample.timestamp)
        if self.filter:
            shown = [row for row in rows if row_matches(row, self.filter)]
            if rows and not shown:
                notes = [*notes, f"No process matches '{self.filter}' (Esc shows all)."]
            rows = shown
        self._table.show(tree_order(rows) if self.as_tree else rows)
        self._show_detail(self._table.selected_row)
        if not rows and not notes and sample.gpus:
            notes = ["No GPU processes."]
        self._set_text(self._note, "\n".join(notes))
        self._show_status()

    def on_process_table_selected(self, message: ProcessTable.Selected) -> None:
        self._show_detail(message.row)

    def _show_detail(self, row: ProcessRow | None) -> None:
        """The selected process's whole command line, under the table (the row is marked)."""
        if row is None:
            self._set_text(self._detail, "")
            return
        self._set_text(self._detail, f"▸ {row.command}")

    def _set_text(self, widget: Static, text: str) -> None:
        """Update a Static only when its text changes: each update costs a screen layout."""
        if self._texts.get(widget) != text:
            self._texts[widget] = text
            widget.update(text)
            widget.display = bool(text)

    def watch_inventory(self, inventory: Inventory | None) -> None:
        if inventory is None:
            return
        if self._host.sample is None:  # name the CPU before the first tick has anything to show
            self._host.border_title = inventory.cpu.model
        if self._latest is not None and self.active:
            self.redraw()

    def on_resize(self) -> None:
        self._lay_out()

    def _lay_out(self) -> None:
        wide = self.size.width >= WIDE_COLUMNS
        self.set_class(wide, "-wide")
        self._host.set_class(wide, "-wide")
        cards = self._cards
        mode = card_mode(len(cards), wide)
        gpus = self.query_one("#monitor-gpus")
        gpus.set_class(mode == "full" and len(cards) > 1, "-grid")
        gpus.set_class(len(cards) == 1, "-single")
        # Few GPUs on a big screen: the cards share the height and draw history in the rest.
        fill = wide and mode == "full" and bool(cards)
        gpus.set_class(fill, "-fill")
        for card in cards:
            card.set_class(fill, "-fill")
            if card.mode != mode or not card.has_class(f"-{mode}"):
                card.set_mode(mode)

    def window_ms(self) -> int:
        """The zoom window now, in ms of sampling ("all" grows with the history)."""
        seconds = WINDOWS[self.zoom]
        if self.sampler is None:
            return (seconds or WINDOWS[0] or 60) * 1000
        history = self.sampler.history
        if seconds is None:
            # Said in whole minutes at most: the status line must not change every tick.
            kept = kept_ms(history) / 1000
            self._kept = format_span(kept if kept < 60 else kept // 60 * 60)
        return window_ms(seconds, history)

    @property
    def window_text(self) -> str:
        """What the status line says of the window: ``last 5 min``, ``all 12 min kept``."""
        seconds = WINDOWS[self.zoom]
        if seconds is None:
            return f"all {self._kept} kept" if self._kept else "all kept"
        return f"last {window_name(seconds)}"

    def _show_status(self) -> None:
        sampler = self.sampler
        state = "❚❚ PAUSED" if self.paused else "● live"
        every = format_seconds_precise(self.interval)
        parts = [f"{state} · every {every} · graphs: {self.window_text} (z)"]
        # Nothing that changes every tick (like the tick's duration): that would re-lay the screen.
        if sampler is not None and sampler.hung_devices:
            # Which call is stuck, once one has been for longer than the NVML call limit.
            stuck = sampler.not_answering
            why = f" ({stuck[0].detail})" if stuck else ""
            parts.append(f"{sampler.hung_devices} GPU(s) not answering{why}: last readings shown")
        if self.filter:
            parts.append(f"filter '{self.filter}' (Esc clears)")
        if self._signal_news:
            parts.append(self._signal_news)
        if self._error:
            parts.append(f"error: {self._error}")
        self._set_text(self._status, "  ·  ".join(parts))
        self._status.set_class(self.paused, "-paused")

    def _update_sort_title(self) -> None:
        title = f"GPU processes · sorted by {SORT_TITLES[self.sort]} (s)"
        if self.as_tree:
            title += " · tree (t)"
        self.query_one("#monitor-procs").border_title = title

    # ---- keys ---------------------------------------------------------------------------
    def _set_interval(self, seconds: float) -> None:
        self.interval = seconds
        if self.sampler is not None:
            self.sampler.set_interval(seconds)  # only sets a number and wakes the thread
        self._show_status()

    def action_slower(self) -> None:
        self._set_interval(step_interval(self.interval, faster=False))

    def action_faster(self) -> None:
        self._set_interval(step_interval(self.interval, faster=True))

    def action_pause(self) -> None:
        self.paused = not self.paused
        if self.sampler is not None:
            self.sampler.pause() if self.paused else self.sampler.resume()
        self._show_status()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # No GPU: no process table to sort, filter, draw as a tree or signal, so no key for it.
        if action in ("sort", "filter", "tree", "signal") and self.has_class("-no-gpu"):
            return False
        if action == "signal" and self.config.read_only:
            return False
        if action == "clear_filter":
            return bool(self.filter)
        return True

    def on_key(self, event: events.Key) -> None:
        # Read-only hides K from the footer; a K typed from habit still gets an answer.
        if event.key == "K" and self.config.read_only and not self.has_class("-no-gpu"):
            event.stop()
            self.notify(
                "gpu-tui is read-only here (--read-only, or read_only in config.toml): "
                "it sends no signal to a process.",
                title="Not signalled",
                severity="warning",
            )

    def action_filter(self) -> None:
        def chosen(text: str | None) -> None:
            if text is not None:
                self._set_filter(text)

        self.app.push_screen(FilterDialog(self.filter), chosen)

    def action_clear_filter(self) -> None:
        self._set_filter("")

    def _set_filter(self, text: str) -> None:
        self.filter = text
        self.refresh_bindings()
        if self._latest is not None:
            self.redraw()
        else:
            self._show_status()

    def action_signal(self) -> None:
        row = self._table.selected_row
        if row is None:
            self.notify("No process selected.", severity="warning")
            return
        if row.host_only:
            self.notify(
                f"PID {row.pid} holds no GPU: it is a parent of GPU processes, drawn in the "
                "tree. Select a GPU process to signal it.",
                severity="warning",
            )
            return
        latest = self._latest
        simulated = latest is not None and 0 <= row.slot < len(latest.gpus)
        if simulated and latest is not None and latest.gpus[row.slot].simulated:
            self.notify(
                f"PID {row.pid} is the SIMULATED GPU's: there is no such process to signal.",
                severity="warning",
            )
            return
        refused = signals.refusal(row.pid)
        if refused:
            self.notify(refused, title="Not signalled", severity="warning")
            return
        who = " · ".join(cell for cell in (row.cells[2], row.command) if cell)

        def chosen(number: int | None) -> None:
            if number is not None:
                self._signal_news = signals.send(row.pid, number)
                self.notify(self._signal_news)
                self._show_status()

        self.app.push_screen(SignalDialog(row.pid, who), chosen)

    def action_zoom(self) -> None:
        """The next history window: last minute, 5 and 15 minutes, an hour, all kept."""
        self.zoom = (self.zoom + 1) % len(WINDOWS)
        if self._latest is not None:
            self.redraw()
        else:
            self._show_status()

    def action_tree(self) -> None:
        self.as_tree = not self.as_tree
        self._update_sort_title()
        if self._latest is not None:
            self.redraw()

    def action_sort(self) -> None:
        self.sort = SORT_KEYS[(SORT_KEYS.index(self.sort) + 1) % len(SORT_KEYS)]
        self._update_sort_title()
        if self._latest is not None:
            self.redraw()
