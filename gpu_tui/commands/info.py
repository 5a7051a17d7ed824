"""``gpu-tui info``: the hardware inventory for humans, or as JSON with ``--json``."""

from __future__ import annotations

import argparse

NAME = "info"
HELP = "print the hardware inventory (CPU, memory, accelerators, peaks)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON (schema_version 1)")


def run(args: argparse.Namespace) -> int:
    raise NotImplementedError  # written next, with the CPU inventory
