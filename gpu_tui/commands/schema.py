"""``gpu-tui schema [NAME]``: the JSON Schema of a ``--json`` output, for scripts to validate
against (``gpu-tui schema watch > watch.schema.json``)."""

from __future__ import annotations

import argparse
import json
import sys

from gpu_tui.core.errors import UsageError
from gpu_tui.core.json_schemas import NAMES, schema

NAME = "schema"
UNITS_NOTE = ("no effect here: a schema holds no readings",) * 2
HELP = f"print the JSON Schema of a --json output ({', '.join(NAMES)})"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "name", nargs="?", metavar="NAME", help=f"one of {', '.join(NAMES)}; none: list them"
    )


def run(args: argparse.Namespace) -> int:
    if args.name is None:
        width = max(len(name) for name in NAMES)
        for name in NAMES:
            sys.stdout.write(f"{name:<{width}}  {schema(name)['title']}\n")
        return 0
    if args.name not in NAMES:
        raise UsageError(f"no schema named {args.name!r} (choose from: {', '.join(NAMES)})")
    json.dump(schema(args.name), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0
