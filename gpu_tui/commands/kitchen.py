"""``gpu-tui kitchen``: a kitchen scenario's parameters and results, headless (or ``--json``)."""

from __future__ import annotations

import argparse
import json

from gpu_tui.core.errors import UsageError

NAME = "kitchen"
HELP = "run a chef-vs-brigade kitchen scenario and print the model's numbers"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scenario",
        metavar="NAME",
        help="onions, complex-recipe, pantry-bound, slow-hallway or scaling",
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a parameter (repeatable; names as in the table), e.g. --set cooks=64",
    )
    parser.add_argument("--list", action="store_true", help="list the scenarios")
    parser.add_argument("--json", action="store_true", help="print JSON (schema_version 1)")


def run(args: argparse.Namespace) -> int:
    # Imported here so that `gpu-tui --help` does not pay for the model.
    from gpu_tui.core.kitchen.params import parse_assignments
    from gpu_tui.core.kitchen.report import SCHEMA_VERSION, build_report, render_text
    from gpu_tui.core.kitchen.scenarios import SCENARIOS, get_scenario

    if args.list:
        if args.scenario or args.overrides:
            raise UsageError("--list takes no --scenario or --set")
        if args.json:
            listing = [
                {"name": s.name, "title": s.title, "caption": s.caption} for s in SCENARIOS.values()
            ]
            print(json.dumps({"schema_version": SCHEMA_VERSION, "scenarios": listing}, indent=2))
        else:
            width = max(len(name) for name in SCENARIOS)
            for s in SCENARIOS.values():
                print(f"{s.name:<{width}}  {s.title} - {s.caption}")
        return 0
    if not args.scenario:
        raise UsageError("kitchen needs --scenario NAME or --list")
    scenario = get_scenario(args.scenario)
    params = scenario.with_overrides(parse_assignments(args.overrides))
    report = build_report(scenario, params)
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else render_text(report))
    return 0
