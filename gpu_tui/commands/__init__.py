"""Headless subcommands (``gpu-tui info``, ``kitchen``, ...): one module each.

Each module exposes ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.
To add a subcommand, write its module and list it in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
from types import ModuleType
from typing import Protocol


class Command(Protocol):
    """What ``cli.py`` needs from a subcommand module."""

    NAME: str
    HELP: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def load_commands() -> list[ModuleType]:
    """The subcommand modules, imported lazily so ``gpu-tui`` (the TUI) starts fast."""
    from gpu_tui.commands import bench, guide, info, kitchen, watch

    return [info, watch, guide, kitchen, bench]
