"""The command palette (Ctrl+P) finds every pane, every Kitchen scenario and each pane's actions.

Actions are read off each pane's ``BINDINGS``: the words the footer and the ``?`` screen show
are the words the palette finds, and a pane added to the registry is found with its keys.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

from gpu_tui.core.kitchen.scenarios import SCENARIOS
from gpu_tui.ui.pane_registry import PANES, PaneSpec

NAVIGATION = frozenset({"up", "down", "left", "right"})
"""Keys that move within a pane: they mean nothing out of it, so the palette leaves them out."""


@dataclass(frozen=True)
class Command:
    title: str
    help: str
    pane: str
    action: str | None = None
    """The pane's action to run once it is shown; ``None`` only shows the pane."""
    scenario: str | None = None


def pane_bindings(spec: PaneSpec) -> list[Binding]:
    """The pane class's own bindings (the class is imported: the palette is not start-up)."""
    module_name, class_name = spec.widget.split(":")
    pane_class = getattr(importlib.import_module(module_name), class_name)
    return [b for b in pane_class.BINDINGS if isinstance(b, Binding)]


def pane_commands(spec: PaneSpec) -> Iterator[Command]:
    # "Key 1: show the Specs pane": the key first, as a sentence, like Textual's own entries.
    yield Command(spec.title, f"Key {spec.key}: show the {spec.title} pane", spec.name)
    seen: set[str] = set()
    for binding in pane_bindings(spec):
        keys = binding.key.split(",")
        if NAVIGATION.issuperset(keys) or binding.action in seen:
            continue
        seen.add(binding.action)
        key = binding.key_display or keys[0]
        words = f"Key {key}: {binding.tooltip}" if binding.tooltip else f"Key {key}"
        yield Command(f"{spec.title}: {binding.description}", words, spec.name, binding.action)


def commands() -> list[Command]:
    """Every pane with its actions, then each Kitchen scenario by its name."""
    found = [command for spec in PANES for command in pane_commands(spec)]
    for name, scenario in SCENARIOS.items():
        found.append(
            Command(f"Kitchen: {name.replace('-', ' ')}", scenario.title, "kitchen", None, name)
        )
    return found


class PaneCommands(Provider):
    """Choosing a command shows its pane, then runs the pane's action there."""

    async def startup(self) -> None:
        # The first time, this imports the pane modules not shown yet: off the event loop.
        self.found = await asyncio.to_thread(commands)

    async def _run(self, command: Command) -> None:
        app = self.app
        await app.run_action(f"show_pane('{command.pane}')")
        pane = app.query_one(f"#{command.pane}")
        if command.action is not None:
            await pane.run_action(command.action)
        if command.scenario is not None:
            # The Kitchen steps through its scenarios; step straight to the one named.
            names = list(SCENARIOS)
            now = getattr(pane, "scenario", None)
            at = names.index(now.name) if now is not None else 0
            delta = names.index(command.scenario) - at
            if delta:
                await pane.run_action(f"scenario({delta})")

    def _callback(self, command: Command) -> Callable[[], Awaitable[None]]:
        return partial(self._run, command)

    async def discover(self) -> Hits:
        for command in self.found:
            yield DiscoveryHit(command.title, self._callback(command), help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self.found:
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(command.title),
                    self._callback(command),
                    help=command.help,
                )
