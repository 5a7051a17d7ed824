"""Headless subcommands (``gpu-tui info``, ``kitchen``, ...): one module each.

Each module exposes ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``, and
``UNITS_NOTE`` where ``--temperature-unit`` and ``--size-unit`` leave something else alone than
its ``--json`` (the two notes their help ends with).
To add a subcommand, write its module and list it in ``COMMAND_NAMES``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

COMMAND_NAMES = (
    "info",
    "watch",
    "check",
    "guide",
    "kitchen",
    "bench",
    "export",
    "fleet",
    "schema",
)
"""Subcommands in the order ``--help`` lists them; each is ``gpu_tui.commands.<name>``."""


def load_commands() -> list[ModuleType]:
    """Import the subcommand modules (only when a subcommand or --help is asked for: the TUI's
    start-up should not pay for the benchmark runner and the sampler)."""
    return [importlib.import_module(f"gpu_tui.commands.{name}") for name in COMMAND_NAMES]
