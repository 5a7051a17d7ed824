"""Bench commands in the command palette: the app's provider lists them with every other pane's.

The pane's actions (run, stop, compare, export, …) are read off its ``BINDINGS`` by
``ui.palette``; the Bench pane still adds this provider to its screen, which changes nothing
(the palette holds each provider once).
"""

from __future__ import annotations

from gpu_tui.ui.palette import PaneCommands as BenchCommands

__all__ = ["BenchCommands"]
