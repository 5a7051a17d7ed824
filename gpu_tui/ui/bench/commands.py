"""Bench commands in the command palette (Ctrl+P): run, stop, compare, export."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

COMMANDS = (
    ("Bench: run the chosen benchmarks", "run", "start a run with the pane's settings"),
    ("Bench: stop the running benchmark", "cancel", "Esc; completed results are kept"),
    ("Bench: compare with a saved run or baseline file", "compare", "deltas and both series"),
    ("Bench: export results as JSON or CSV", "export", "write the shown run to a file"),
)


class BenchCommands(Provider):
    """Each command runs the Bench pane's action of the same name (and shows the pane)."""

    async def _run(self, action: str) -> None:
        panes = self.app.query("#bench")
        if panes:
            await self.app.run_action("show_pane('bench')")
            await panes.first().run_action(action)

    async def discover(self) -> Hits:
        for title, action, help_text in COMMANDS:
            yield DiscoveryHit(title, partial(self._run, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, action, help_text in COMMANDS:
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(title), partial(self._run, action), help=help_text
                )
