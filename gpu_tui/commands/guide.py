"""``gpu-tui guide --fit PARAMS`` / ``--cost``: the Guide's will-it-fit and cost answers."""

from __future__ import annotations

import argparse
import json
import re

from gpu_tui.core.errors import UsageError

NAME = "guide"
HELP = "will a model fit (--fit PARAMS), and cloud vs on-prem cost (--cost)"

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
    "--pue": ("pue", "power usage effectiveness"),
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


def utilization(text: str) -> float:
    """``0.5``, ``50%`` or ``50 %`` → 0.5 (a bare number above 1 is ambiguous, so refused)."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(%?)\s*", text)
    if match is None:
        raise argparse.ArgumentTypeError(f"not a utilisation: {text!r} (use 0.5 or 50%)")
    value = float(match.group(1)) / (100 if match.group(2) else 1)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(
            f"utilisation must be above 0 and at most 100%, got {text}"
        )
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--fit",
        metavar="PARAMS",
        help="model size: 8B, 70e9, 1.5T, or a known model (llama-3.1-70b, ...)",
    )
    mode.add_argument("--cost", action="store_true", help="cloud vs on-prem for one GPU")
    parser.add_argument("--json", action="store_true", help="print JSON (schema_version 1)")
    fit = parser.add_argument_group("will it fit (--fit)")
    dtypes = ("fp32", "bf16", "fp16", "fp8", "int4")
    fit.add_argument("--dtype", choices=dtypes, help="weight format (default bf16)")
    fit.add_argument(
        "--kv-dtype", choices=dtypes, help="KV-cache format (default: as weights; bf16 for int4)"
    )
    fit.add_argument("--context", type=int, metavar="N", help="tokens per sequence (default 4096)")
    fit.add_argument("--batch", type=int, metavar="N", help="sequences at once (default 1)")
    cost = parser.add_argument_group("cloud vs on-prem (--cost); defaults: a worked H100 example")
    cost.add_argument(
        "--cloud-price",
        type=float,
        metavar="USD",
        help="cloud $/GPU-hour (default: four reference prices, late 2026)",
    )
    cost.add_argument("--price-date", metavar="DATE", help="when --cloud-price was seen")
    cost.add_argument(
        "--utilization",
        type=utilization,
        metavar="U",
        help="on-prem utilisation, 0.5 or 50%% (default: 30, 50, 70 and 90%%)",
    )
    cost.add_argument(
        "--measured-tflops", type=float, metavar="T", help="a measured TFLOP/s, for $/TFLOP-hour"
    )
    cost.add_argument("--measured-source", metavar="TEXT", help="where --measured-tflops came from")
    from gpu_tui.core.guide.cost import CostInputs

    defaults = CostInputs()
    for flag, (field, text) in _COST_FLAGS.items():
        kind = int if field == "gpus_per_node" else float
        help_text = f"{text} (default {getattr(defaults, field):g})"
        cost.add_argument(flag, dest=field, type=kind, metavar="X", help=help_text)


def _refuse_other_mode(args: argparse.Namespace, names: tuple[str, ...], mode: str) -> None:
    """Options of the other mode are refused rather than silently ignored."""
    flags = {field: flag for flag, (field, _) in _COST_FLAGS.items()}
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
    from gpu_tui.core.guide import fit as f
    from gpu_tui.core.guide.report import fit_json, fit_lines
    from gpu_tui.core.guide.shapes import parse_params

    params, shape = parse_params(args.fit)
    result = f.fit(
        params,
        args.dtype or "bf16",
        context=f.DEFAULT_CONTEXT if args.context is None else args.context,
        batch=f.DEFAULT_BATCH if args.batch is None else args.batch,
        kv_dtype=args.kv_dtype,
        shape=shape,
    )
    # Input is checked above, before discovery (which may take a while on a GPU server).
    # This machine's devices come first (marked local), then every reference accelerator.
    found = discover(demo=args.demo).accelerators
    local = tuple(f.accelerator_target(device) for device in found if not device.lost)
    result = f.with_targets(result, local + f.catalog_targets())
    print(json.dumps(fit_json(result), indent=2) if args.json else "\n".join(fit_lines(result)))
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
    print(json.dumps(cost_json(report), indent=2) if args.json else "\n".join(cost_lines(report)))
    return 0
