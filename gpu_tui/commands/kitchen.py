"""``gpu-tui kitchen``: a kitchen scenario's parameters and results, headless (or ``--json``)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from gpu_tui.commands.terminal_text import fit_to_terminal
from gpu_tui.core.errors import UsageError

if TYPE_CHECKING:
    from fractions import Fraction

NAME = "kitchen"
HELP = "run a chef-vs-brigade kitchen scenario and print the model's numbers"


def assignment(text: str) -> tuple[str, int | Fraction]:
    """``--set KEY=VALUE``, checked as it is parsed so a bad value names the flag and its range.

    The range is the model's own (``gpu_tui.core.kitchen.params``), the same one the pane's knobs
    obey; argparse shows only an ``ArgumentTypeError``'s message, hence the translation.
    """
    from gpu_tui.core.kitchen.params import parse_assignment

    try:
        return parse_assignment(text)
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scenario",
        metavar="NAME",
        help="onions, complex-recipe, pantry-bound, slow-hallway or scaling (default: onions, "
        "the pane's first)",
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        type=assignment,
        metavar="KEY=VALUE",
        help="change a parameter (repeatable; names as in the table), e.g. --set cooks=64",
    )
    parser.add_argument("--list", action="store_true", help="list the scenarios")
    parser.add_argument("--json", action="store_true", help="print JSON (schema_version 1)")


def run(args: argparse.Namespace) -> int:
    # Imported here so that `gpu-tui --help` does not pay for the model.
    from gpu_tui.core.kitchen.report import SCHEMA_VERSION, build_report, render_text
    from gpu_tui.core.kitchen.scenarios import SCENARIOS, get_scenario

    if args.list:
        if args.scenario or args.overrides:
            raise UsageError("--list takes no --scenario or --set")
        if args.json:
            listing = [
                {"name": s.name, "title": s.title, "caption": s.caption} for s in SCENARIOS.values()
            ]
            listing_json = {"schema_version": SCHEMA_VERSION, "scenarios": listing}
            print(json.dumps(listing_json, indent=2, allow_nan=False))
        else:
            width = max(len(name) for name in SCENARIOS)
            for s in SCENARIOS.values():
                print(fit_to_terminal(f"{s.name:<{width}}  {s.title} · {s.caption}"))
        return 0
    scenario = get_scenario(args.scenario or next(iter(SCENARIOS)))
    params = scenario.with_overrides(dict(args.overrides))  # the last value of a key wins
    report = build_report(scenario, params)
    # Strict JSON: every input is range-checked so no result can be inf or nan, and if one ever
    # were, failing here beats printing "Infinity", which JSON parsers in other languages reject.
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False))
    else:
        print(fit_to_terminal(render_text(report)))
    return 0
