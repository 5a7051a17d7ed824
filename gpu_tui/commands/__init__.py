"""Headless subcommands (``gpu-tui info``, ``kitchen``, ...): one module each.

Each module exposes ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.
To add a subcommand, write its module and list it in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType
from typing import Protocol


class Command(Protocol):
    """What ``cli.py`` needs from a subcommand module."""

    NAME: str
    HELP: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


COMMAND_NAMES = ("info", "watch", "guide", "kitchen", "bench", "export", "fleet")
"""Subcommands in the order ``--help`` lists them; each is ``gpu_tui.commands.<name>``."""


def load_commands() -> list[ModuleType]:
    """Import the subcommand modules (only when a subcommand or --help is asked for: the TUI's
    start-up should not pay for the benchmark runner and the sampler)."""
    return [importlib.import_module(f"gpu_tui.commands.{name}") for name in COMMAND_NAMES]
