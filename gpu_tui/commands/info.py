"""``gpu-tui info``: the hardware inventory for humans, or as JSON with ``--json``."""

from __future__ import annotations

import argparse
import json
import sys

from gpu_tui.commands.terminal_text import fit_line, terminal_width
from gpu_tui.core.devices import discover
from gpu_tui.core.devices.inventory_json import inventory_json
from gpu_tui.core.devices.spec_rows import SpecRow, SpecSection
from gpu_tui.core.devices.spec_sheet import identity_differences, spec_sheet, wrap_value

NAME = "info"
HELP = "print the hardware inventory: CPU, memory, accelerators and their peaks"

NOTE_WIDTH = 100
"""Where notes wrap when stdout is a pipe with no ``COLUMNS``: the values stay whole lines for
scripts, the notes under them as they always were."""


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
        sys.stdout.write(render_sheet(spec_sheet(inventory), terminal_width()))
        sys.stdout.write("\n")
    return 0


def render_sheet(sections: tuple[SpecSection, ...], width: int | None) -> str:
    """Every section; a GPU like one shown before in all but its identity gets only the rows
    that tell it apart, so eight identical GPUs read as one sheet and seven short blocks."""
    shown: list[tuple[int, SpecSection]] = []  # the GPUs written in full, with their index
    blocks = []
    for section in sections:
        index = _gpu_index(section)
        if index is None:
            blocks.append(render_section(section, width))
            continue
        for earlier_index, earlier in shown:
            differences = identity_differences(earlier, section)
            if differences is not None:
                short = SpecSection(section.title, differences)
                blocks.append(
                    render_section(short, width) + f"\nSame as GPU {earlier_index} otherwise"
                )
                break
        else:
            shown.append((index, section))
            blocks.append(render_section(section, width))
    return "\n\n".join(blocks)


def _gpu_index(section: SpecSection) -> int | None:
    """The GPU a section describes (None for the CPU, memory, topology and drivers)."""
    if not section.rows or section.rows[0].key != "gpu.name":
        return None
    number = section.title.removeprefix("GPU ").split(" ", 1)[0]
    return int(number) if number.isdigit() else None


def render_section(section: SpecSection, width: int | None) -> str:
    """A section as aligned ``label  value  (note)`` lines fitted to ``width`` (None: values
    left whole): a value wraps under the value column, a note too long to follow its value goes
    on the lines below it, a little further in. A long note already said in this section (the
    topology's legend, once per GPU) is not repeated."""
    lines = [section.title, "─" * min(len(section.title), width or len(section.title))]
    label_width = max(len(r.label) for r in section.rows) + 2
    said: set[str] = set()
    for spec_row in section.rows:
        lines.extend(_row_lines(spec_row, label_width, width, said))
    return "\n".join(lines)


def _row_lines(spec_row: SpecRow, label_width: int, width: int | None, said: set[str]) -> list[str]:
    hang = " " * label_width
    if width is None:
        values = [spec_row.value]
    else:  # broken after a " · " as the Specs pane breaks it, a long word (a URL) kept whole
        values = wrap_value(spec_row.value, width - label_width, split_words=False)
    lines = [f"{spec_row.label:<{label_width}}{values[0]}", *(hang + v for v in values[1:])]
    note = spec_row.note
    if not note:
        return lines
    if len(lines[-1]) + 4 + len(note) <= (width or NOTE_WIDTH):
        lines[-1] = f"{lines[-1]}  ({note})"
    elif note not in said:
        said.add(note)
        indent = label_width + 2
        lines.append(fit_line(" " * indent + note, width or NOTE_WIDTH, hang=indent))
    return lines
