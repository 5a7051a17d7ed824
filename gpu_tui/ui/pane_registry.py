"""Which panes exist, their keys and where their classes live (no Textual import here).

Panes are imported lazily by dotted path so the first screen loads only what it shows.
Keys are fixed: 1 Specs, 2 Monitor, 3 Kitchen, 4 Bench, 5 Guide, 6 Fleet; a pane not built yet
is absent.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PaneSpec:
    """One pane: its id (``--pane`` name), tab title, number key and widget class path."""

    name: str
    title: str
    key: str
    widget: str
    """``module:ClassName`` of the pane widget."""


PANES: tuple[PaneSpec, ...] = (
    PaneSpec("specs", "Specs", "1", "gpu_tui.ui.specs_pane:SpecsPane"),
    PaneSpec("monitor", "Monitor", "2", "gpu_tui.ui.monitor_pane:MonitorPane"),
    PaneSpec("kitchen", "Kitchen", "3", "gpu_tui.ui.kitchen_pane:KitchenPane"),
    PaneSpec("bench", "Bench", "4", "gpu_tui.ui.bench_pane:BenchPane"),
    PaneSpec("guide", "Guide", "5", "gpu_tui.ui.guide_pane:GuidePane"),
    PaneSpec("fleet", "Fleet", "6", "gpu_tui.ui.fleet_pane:FleetPane"),
)


def pane_names() -> tuple[str, ...]:
    """Names accepted by ``--pane``."""
    return tuple(pane.name for pane in PANES)
