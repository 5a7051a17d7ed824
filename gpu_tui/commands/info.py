"""``gpu-tui info``: the hardware inventory for humans, or as JSON with ``--json``."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import textwrap

from gpu_tui.core.devices import discover
from gpu_tui.core.devices.inventory_json import inventory_json
from gpu_tui.core.devices.spec_rows import SpecSection
from gpu_tui.core.devices.spec_sheet import spec_sheet

NAME = "info"
HELP = "print the hardware inventory: CPU, memory, accelerators and their peaks"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json", action="store_true", help="print the inventory as JSON (schema_version 2)"
    )


def run(args: argparse.Namespace) -> int:
    inventory = discover(demo=args.demo)
    if args.json:
        json.dump(inventory_json(inventory), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        width = shutil.get_terminal_size((100, 24)).columns
        sys.stdout.write("\n\n".join(render_section(s, width) for s in spec_sheet(inventory)))
        sys.stdout.write("\n")
    return 0


def render_section(section: SpecSection, width: int) -> str:
    """A section as aligned ``label  value  note`` lines; long notes wrap under the value."""
    lines = [section.title, "─" * min(len(section.title), width)]
    label_width = max(len(r.label) for r in section.rows) + 2
    for spec_row in section.rows:
        line = f"{spec_row.label:<{label_width}}{spec_row.value}"
        if spec_row.note:
            indent = " " * (label_width + 2)
            note = textwrap.fill(
                spec_row.note, width=max(width, 40), initial_indent=indent, subsequent_indent=indent
            )
            if len(line) + 2 + len(spec_row.note) <= width:
                line = f"{line}  ({spec_row.note})"
            else:
                line = f"{line}\n{note}"
        lines.append(line)
    return "\n".join(lines)
