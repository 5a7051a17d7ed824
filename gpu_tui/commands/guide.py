"""``gpu-tui guide --fit PARAMS`` / ``--cost``: the Guide's will-it-fit and cost answers."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TypeVar

from gpu_tui.commands.options import for_flag
from gpu_tui.commands.terminal_text import fit_to_terminal
from gpu_tui.core.errors import UsageError

T = TypeVar("T")

NAME = "guide"
HELP = "will a model fit (--fit MODEL), and cloud vs on-prem cost (--cost)"

# Cost inputs settable from the command line: flag → CostInputs field.
_COST_FLAGS: dict[str, tuple[str, str]] = {
    "--hardware-usd": ("hardware_usd", "node purchase price, $"),
    "--install-usd": ("install_usd", "networking + installation per node, $"),
    "--gpus-per-node": ("gpus_per_node", "GPUs per node"),
    "--life-years": ("life_years", "years of use"),
    "--maintenance": (
        "maintenance_fraction_per_year",
        "maintenance per year, fraction of hardware",
    ),
    "--staff-usd": ("staff_usd_per_year", "staff per node-year, $"),
    "--colo-usd-per-kw-year": ("colo_usd_per_kw_year", "colocation, $ per kW-year"),
    "--node-kw": ("node_kw", "node maximum power, kW"),
    "--idle-fraction": ("idle_power_fraction", "idle power as a fraction of max"),
    "--pue": ("pue", "PUE, power usage effectiveness: site power ÷ IT power"),
    "--usd-per-kwh": ("usd_per_kwh", "electricity, $/kWh"),
}
_FIT_ONLY = ("dtype", "kv_dtype", "context", "batch")
_COST_ONLY = (
    "cloud_price",
    "price_date",
    "utilization",
    "measured_tflops",
    "measured_source",
    *(field for field, _ in _COST_FLAGS.values()),
)


def checked(parse: Callable[[str], T]) -> Callable[[str], T]:
    """An argparse ``type=`` from a core parser: its one-line message (which states the range)
    becomes argparse's, so the error names the flag; the TUI forms call the same parsers.
    """

    def convert(text: str) -> T:
        try:
            return parse(text)
        except UsageError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    convert.__name__ = parse.__name__  # argparse names the type in some of its messages
    return convert


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # The ranges live in the core, next to the arithmetic they keep finite.
    from gpu_tui.core.guide import cost, fit
    from gpu_tui.core.guide.shapes import model_names, parse_params

    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--fit",
        type=checked(parse_params),
        metavar="MODEL",
        help=f"a named model ({model_names()}), or a bare size (8B, 70e9, 1.5T) with an "
        "assumed shape",
    )
    mode.add_argument("--cost", action="store_true", help="cloud vs on-prem for one GPU")
    parser.add_argument("--json", action="store_true", help="print JSON (schema_version 1)")
    fit_options = parser.add_argument_group("will it fit (--fit)")
    dtypes = ("fp32", "bf16", "fp16", "fp8", "int4")
    fit_options.add_argument("--dtype", choices=dtypes, help="weight format (default bf16)")
    fit_options.add_argument(
        "--kv-dtype", choices=dtypes, help="KV-cache format (default: as weights; bf16 for int4)"
    )
    fit_options.add_argument(
        "--context",
        type=checked(for_flag(fit.CONTEXT).parse_whole),
        metavar="N",
        help=f"tokens per sequence, 0 to {fit.MAX_CONTEXT:,} (default {fit.DEFAULT_CONTEXT})",
    )
    fit_options.add_argument(
        "--batch",
        type=checked(for_flag(fit.BATCH).parse_whole),
        metavar="N",
        help=f"sequences at once, 1 to {fit.MAX_BATCH:,} (default {fit.DEFAULT_BATCH})",
    )
    cost_options = parser.add_argument_group(
        "cloud vs on-prem (--cost); defaults: a worked H100 example"
    )
    cost_options.add_argument(
        "--cloud-price",
        type=checked(for_flag(cost.PRICE).parse),
        metavar="USD",
        help="cloud $/GPU-hour (default: four reference prices, late 2026)",
    )
    cost_options.add_argument("--price-date", metavar="DATE", help="when --cloud-price was seen")
    cost_options.add_argument(
        # Spelt as everything gpu-tui shows; the first spelling it had is kept for scripts.
        "--utilisation",
        "--utilization",
        dest="utilization",
        type=checked(for_flag(cost.UTILIZATION).parse),
        metavar="U",
        help="on-prem utilisation, 0.5 or 50%% (default: 30, 50, 70 and 90 %%)",
    )
    cost_options.add_argument(
        "--measured-tflops",
        type=checked(for_flag(cost.MEASURED_TFLOPS).parse),
        metavar="T",
        help="a measured TFLOP/s, for $ per TFLOP/s-hour",
    )
    cost_options.add_argument(
        "--measured-source", metavar="TEXT", help="where --measured-tflops came from"
    )
    defaults = cost.CostInputs()
    for flag, (field, text) in _COST_FLAGS.items():
        limit = for_flag(cost.INPUT_LIMITS[field])
        kind = limit.parse_whole if limit.whole else limit.parse
        help_text = f"{text} (default {getattr(defaults, field):g})"
        cost_options.add_argument(flag, dest=field, type=checked(kind), metavar="X", help=help_text)


def _refuse_other_mode(args: argparse.Namespace, names: tuple[str, ...], mode: str) -> None:
    """Options of the other mode are refused rather than silently ignored."""
    flags = {field: flag for flag, (field, _) in _COST_FLAGS.items()} | {
        "utilization": "--utilisation"
    }
    for name in names:
        if getattr(args, name) is not None:
            flag = flags.get(name, "--" + name.replace("_", "-"))
            raise UsageError(f"{flag} does not apply to {mode}")


def run(args: argparse.Namespace) -> int:
    if args.cost:
        _refuse_other_mode(args, _FIT_ONLY, "--cost")
        return _run_cost(args)
    _refuse_other_mode(args, _COST_ONLY, "--fit")
    return _run_fit(args)


def _run_fit(args: argparse.Namespace) -> int:
    from gpu_tui.core.devices import discover
    from gpu_tui.core.guide import fit
    from gpu_tui.core.guide.report import fit_json, fit_lines

    params, shape = args.fit  # parsed and range-checked by argparse
    result = fit.fit(
        params,
        args.dtype or "bf16",
        context=fit.DEFAULT_CONTEXT if args.context is None else args.context,
        batch=fit.DEFAULT_BATCH if args.batch is None else args.batch,
        kv_dtype=args.kv_dtype,
        shape=shape,
    )
    # Input is checked above, before discovery (which may take a while on a GPU server).
    # This machine's devices come first (marked local), then every reference accelerator;
    # the text ends with the answer for this machine.
    local = fit.machine_targets(discover(demo=args.demo))
    result = fit.with_targets(result, local + fit.catalog_targets())
    print(
        _strict_json(fit_json(result))
        if args.json
        else fit_to_terminal("\n".join(fit_lines(result)))
    )
    return 0


def _run_cost(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from gpu_tui.core.guide import cost
    from gpu_tui.core.guide.report import cost_json, cost_lines

    overrides = {
        field: getattr(args, field)
        for field, _ in _COST_FLAGS.values()
        if getattr(args, field) is not None
    }
    inputs = replace(cost.CostInputs(), **overrides)
    prices = cost.REFERENCE_PRICES
    if args.cloud_price is not None:
        date = args.price_date or "date not given"
        prices = (cost.CloudPrice(args.cloud_price, "given on the command line", date, "user"),)
    elif args.price_date is not None:
        raise UsageError("--price-date needs --cloud-price")
    if args.measured_source is not None and args.measured_tflops is None:
        raise UsageError("--measured-source needs --measured-tflops")
    utilizations = cost.REFERENCE_UTILIZATIONS
    if args.utilization is not None:
        utilizations = (args.utilization,)
    report = cost.cost_report(
        inputs, prices, utilizations, args.measured_tflops, args.measured_source
    )
    print(
        _strict_json(cost_json(report))
        if args.json
        else fit_to_terminal("\n".join(cost_lines(report)))
    )
    return 0


def _strict_json(data: object) -> str:
    """JSON that every parser accepts: the inputs' ranges keep each result finite, and should
    one ever not be, this raises rather than print the non-standard ``Infinity`` or ``NaN``.
    """
    return json.dumps(data, indent=2, allow_nan=False)
