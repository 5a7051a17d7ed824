"""The Guide's fit and cost results as JSON (schema_version 1) and as plain text lines."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from gpu_tui.core.devices.sources import Source
from gpu_tui.core.guide import cost, fit
from gpu_tui.core.guide.lineup import counted
from gpu_tui.core.guide.models import SOURCE_MLA_CACHE, SOURCE_WINDOW_CACHE
from gpu_tui.core.guide.prices import seen_date
from gpu_tui.core.units import (
    format_gigabytes,
    format_parameters,
    format_percent,
    gigabyte_meaning,
)

SCHEMA_VERSION = 1


def _short(name: str, width: int) -> str:
    """Fit a device name in ``width``; a SIMULATED label is never the part cut off."""
    if len(name) <= width:
        return name
    suffix = " (SIMULATED)" if name.endswith(" (SIMULATED)") else ""
    return name[: width - len(suffix) - 1].rstrip() + "…" + suffix


def _opt(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _source(source: Source) -> dict[str, Any]:
    return {
        "title": source.title,
        "url": source.url,
        "says": source.says,
        "primary": source.primary,
    }


def formula_sources(result: fit.FitResult) -> dict[str, Source]:
    """The sources of the formulas this result used, by what they give."""
    shape = result.shape.shape
    sources = {
        "weights": fit.SOURCE_WEIGHTS,
        "kv_cache": fit.SOURCE_KV,
        "decode": fit.SOURCE_DECODE,
        "flops": fit.SOURCE_FLOPS,
        "memory_unit": fit.SOURCE_MEMORY_UNIT,
        "driver_memory": fit.SOURCE_DRIVER_MEMORY,
    }
    if shape.moe:
        sources["moe"] = fit.SOURCE_MOE
    # MLA's and the sliding window's cache layouts are in the models' own code.
    if shape.mla:
        sources["kv_cache"] = SOURCE_MLA_CACHE
    elif shape.window_layers:
        sources["kv_cache"] = SOURCE_WINDOW_CACHE
    return sources


def size(value: float | None) -> str:
    """Bytes in the size unit shown, one decimal: ``79.6 GiB`` (``85.5 GB`` in decimal units);
    every size in the fit is shown this way."""
    return format_gigabytes(value, ",.1f", unknown="—")


def kv_formula(result: fit.FitResult, *, short: bool = False) -> str:
    """How the KV cache was counted, with the model's numbers in it."""
    shape = result.shape.shape
    width = fit.DTYPE_BYTES[result.kv_dtype]
    dims, tokens = ("", "tok") if short else (" dims", "tokens")
    # The batch says what it counts: a bare "× 1" at the end read as nothing in particular.
    sequences = f"{result.batch} {'seq' if short else 'sequence'}"
    sequences += "" if short or result.batch == 1 else "s"
    tail = f"{result.context:,} {tokens} × {sequences}"
    # The short form stays one 80-column line up to 3-digit layer counts, 6-digit contexts and
    # 1-digit batches: its products of two figures are written tight ("8×128 KV").
    if shape.mla:
        latent = f"{shape.kv_lora_rank}{'+' if short else ' + '}{shape.rope_head_dim}"
        return f"{shape.layers} layers × ({latent}) latent × {width:g} B × {tail}"
    heads = (
        f"{shape.kv_heads}×{shape.head_dim} KV"
        if short
        else f"{shape.kv_heads} KV heads × {shape.head_dim}{dims}"
    )
    if shape.window_layers:
        full = shape.layers - shape.window_layers
        window = min(result.context, shape.window)
        if short:
            return (
                f"2 × {width:g} B × {heads} × ({full}×{result.context:,} + "
                f"{shape.window_layers}×{window:,}) tok × {sequences}"
            )
        return (
            f"2 × {width:g} B × {heads} × ({full} layers × {result.context:,} + "
            f"{shape.window_layers} windowed × {window:,}) {tokens} × {sequences}"
        )
    return f"2 × {width:g} B × {shape.layers} layers × {heads} × {tail}"


def read_formula(result: fit.FitResult) -> str:
    """What one decode step reads: the weights it touches and every sequence's KV cache."""
    shape = result.shape.shape
    weights = size(result.weight_bytes_read_per_step)
    if shape.moe:
        touched = (
            f"{format_parameters(result.active_params)} active; {result.experts_read} of "
            f"{shape.experts} experts per layer for {result.batch} sequence"
            f"{'' if result.batch == 1 else 's'} → {format_parameters(result.params_read_per_step)}"
        )
    else:
        touched = f"all {format_parameters(result.params)} parameters"
    return f"{weights} of weights ({touched}) + {size(result.kv_cache_bytes)} of KV cache"


def fit_json(result: fit.FitResult) -> dict[str, Any]:
    """``gpu-tui guide --fit --json``: bytes as integers, rates with units in the names."""
    shape = result.shape.shape
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "fit",
        "units": "sizes in bytes; the text shows them in GiB or GB (--size-unit)",
        "params": result.params,
        "active_params": result.active_params,
        "dtype": result.dtype,
        "kv_dtype": result.kv_dtype,
        "context_tokens": result.context,
        "batch": result.batch,
        "shape": {
            "name": shape.name,
            "key": shape.key or None,
            "exact": result.shape.exact,
            "how": result.shape.how,
            "attention": "mla" if shape.mla else "gqa",
            "layers": shape.layers,
            "hidden": shape.hidden,
            "heads": shape.heads,
            "kv_heads": shape.kv_heads,
            "head_dim": shape.head_dim,
            "kv_lora_rank": shape.kv_lora_rank,
            "rope_head_dim": shape.rope_head_dim,
            "window_layers": shape.window_layers,
            "window_tokens": shape.window,
            "experts": shape.experts,
            "active_experts": shape.active_experts,
            "sources": [_source(s) for s in shape.sources],
        },
        "weight_bytes": round(result.weight_bytes),
        "kv_cache_bytes": round(result.kv_cache_bytes),
        "kv_cache_bytes_per_sequence": round(result.kv_cache_bytes / result.batch),
        "kv_cache_bytes_per_token": round(result.kv_bytes_per_token),
        "total_bytes": round(result.total_bytes),
        "params_read_per_step": result.params_read_per_step,
        "experts_read_per_layer": result.experts_read,
        "weight_bytes_read_per_step": round(result.weight_bytes_read_per_step),
        "bytes_read_per_step": round(result.bytes_read_per_step),
        "flops_per_token": result.flops_per_token,
        "sources": {name: _source(s) for name, s in formula_sources(result).items()},
        "note": " ".join(
            [
                fit.units_note(),
                fit.CAPACITY_NOTE,
                fit.DECODE_NOTE,
                *([fit.MOE_NOTE] if shape.moe else []),
            ]
        ),
        "devices": [
            {
                "name": p.target.name,
                "local": p.target.local,
                "memory_bytes": None
                if p.target.memory_bytes is None
                else round(p.target.memory_bytes),
                "memory_basis": p.target.memory_basis,
                "bandwidth_bytes_per_second": _opt(p.target.bandwidth_bytes_per_second, 0),
                "devices_needed": p.devices_needed,
                "fraction_of_one_device": _opt(p.fraction_of_one, 4),
                "decode_tokens_per_second_max": _opt(p.decode_tokens_per_second_max, 2),
                "decode_tokens_per_second_max_all_sequences": _opt(
                    None
                    if p.decode_tokens_per_second_max is None
                    else p.decode_tokens_per_second_max * result.batch,
                    2,
                ),
                "source": p.target.source,
            }
            for p in result.placements
        ],
        "this_machine": fit.this_machine(result),
    }


SHARE_SHOWN_UP_TO = 10.0
"""Ten devices' worth: past it the share is a figure nobody reads (1,164,165.5 %); the count of
devices needed says it."""


def needed_text(devices: int | None) -> str:
    """How many devices a model needs, with thousands separators; ``—`` where memory is unknown."""
    return "—" if devices is None else f"{devices:,}"


def share_text(fraction: float | None) -> str:
    """The share of one device's memory the model takes: one decimal, so "100.2 %" shows why a
    model just over one device's memory needs two; ``> 1,000 %`` past ten devices' worth."""
    if fraction is None:
        return "—"
    if fraction > SHARE_SHOWN_UP_TO:
        return f"> {format_percent(SHARE_SHOWN_UP_TO, 0)}"
    return format_percent(fraction)


def fit_lines(result: fit.FitResult) -> list[str]:
    """The fit as text: the arithmetic, one line per device, the sources, then this machine."""
    shape = result.shape.shape
    model = shape.name if result.shape.exact else f"{format_parameters(result.params)} parameters"
    lines = [
        f"Will it fit: {model}, {result.dtype} weights, {result.kv_dtype} KV cache, "
        f"context {result.context:,}, batch {result.batch} (sizes in {gigabyte_meaning()})",
        f"  weights   {size(result.weight_bytes):>11}  = {result.params:,.0f} parameters × "
        f"{fit.DTYPE_BYTES[result.dtype]:g} B"
        + (" (every expert stays in memory)" if shape.moe else ""),
        f"  KV cache  {size(result.kv_cache_bytes):>11}  = {kv_formula(result)}",
        f"  total     {size(result.total_bytes):>11}  (no activations or framework overhead)",
        f"  read/step {size(result.bytes_read_per_step):>11}  = {read_formula(result)}",
        f"  compute   {result.flops_per_token / 1e9:>7,.1f} GFLOP per token = 2 × "
        f"{format_parameters(result.active_params)} active parameters",
        f"  shape: {result.shape.how}",
        "",
        # Two lines a heading: on one, "memory needed of one decode" read as a phrase.
        f"  {'device':<30} {'memory':>10} {'devices':>8} {'share':>9} {'decode ≤':>10}  src",
        f"  {'':<30} {'each':>10} {'needed':>8} {'of one':>9} {'tok/s/seq':>10}",
    ]
    sources: list[str] = []
    for p, count in fit.grouped(result.placements):
        if p.target.source not in sources:
            sources.append(p.target.source)
        needed = needed_text(p.devices_needed)
        share = share_text(p.fraction_of_one)
        rate = p.decode_tokens_per_second_max
        decode = "—" if rate is None else f"{rate:,.1f}"
        mark = "*" if p.target.local else " "
        name = _short(counted(p.target.name, count), 30)
        lines.append(
            f" {mark}{name:<30} {size(p.target.memory_bytes):>10} {needed:>8} {share:>9} "
            f"{decode:>10}  [{sources.index(p.target.source) + 1}]"
        )
    lines += [
        "",
        f"  * = found on this machine{_counted_key(result)}. '—' = not published. Decode is per "
        "sequence.",
        f"  {fit.DECODE_NOTE}",
        *([f"  {fit.MOE_NOTE}"] if shape.moe else []),
        f"  {fit.units_note()} {fit.CAPACITY_NOTE}",
        "  Formulas:",
        *(f"    {name}: {s.cite()} — {s.url}" for name, s in formula_sources(result).items()),
    ]
    if result.shape.exact:
        lines.append(f"  {shape.name}'s configuration:")
        lines += [f"    {s.cite()} — {s.url}: {s.says}" for s in shape.sources]
    lines.append("  Device sources:")
    lines += [f"  [{i}] {source}" for i, source in enumerate(sources, start=1)]
    lines.append(fit.this_machine(result))
    return lines


def _counted_key(result: fit.FitResult) -> str:
    """The key to a merged row (``8 × H100``), when there is one: its figures are one device's."""
    many = max((n for p, n in fit.grouped(result.placements) if p.target.local), default=1)
    return f" ({many} × = {many} identical devices; the figures are each one's)" if many > 1 else ""


def cost_json(report: cost.CostReport) -> dict[str, Any]:
    """``gpu-tui guide --cost --json``: dollars in ``_usd`` fields, utilisations as 0–1."""
    year = report.year
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "cost",
        "inputs": asdict(report.inputs),
        "input_sources": cost.input_sources(report.inputs),
        "per_gpu_year": {
            "capex_usd": round(year.capex_usd, 2),
            "maintenance_usd": round(year.maintenance_usd, 2),
            "staff_usd": round(year.staff_usd, 2),
            "colo_usd": round(year.colo_usd, 2),
            "idle_power_usd": round(year.idle_power_usd, 2),
            "fixed_usd": round(year.fixed_usd, 2),
            "variable_usd_at_full_utilization": round(year.variable_usd, 2),
        },
        "measured_tflops": report.measured_tflops,
        "measured_source": report.measured_source,
        "cloud_prices": [
            {
                "usd_per_gpu_hour": v.price.usd_per_gpu_hour,
                "label": v.price.label,
                "date": v.price.date,
                "source": v.price.source,
                "break_even_utilization": _opt(v.break_even_utilization, 4),
                "usd_per_tflop_hour": _opt(v.usd_per_tflop_hour, 6),
            }
            for v in report.prices
        ],
        "utilizations": [
            {
                "utilization": row.utilization,
                "onprem_usd_per_useful_gpu_hour": round(row.onprem_usd_per_useful_hour, 4),
                "onprem_usd_per_tflop_hour": _opt(row.usd_per_tflop_hour, 6),
                "roi_vs_cloud_prices": [round(r, 4) for r in row.roi_vs_prices],
            }
            for row in report.utilizations
        ],
        "formulas_source": cost.SOURCE_FORMULAS,
    }


_INPUT_LABELS: dict[str, tuple[str, str]] = {
    "hardware_usd": ("hardware", "${:,.0f}"),
    "install_usd": ("networking + installation", "${:,.0f}"),
    "gpus_per_node": ("GPUs per node", "{:g}"),
    "life_years": ("life", "{:g} years"),
    "maintenance_fraction_per_year": ("maintenance", "{:%} of hardware/yr"),
    "staff_usd_per_year": ("staff", "${:,.0f}/yr"),
    "colo_usd_per_kw_year": ("colocation", "${:,.0f}/kW-yr"),
    "node_kw": ("node power (max)", "{:g} kW"),
    "idle_power_fraction": ("idle power", "{:%} of max"),
    "pue": ("PUE (site ÷ IT power)", "{:g}"),
    "usd_per_kwh": ("electricity", "${:g}/kWh"),
}


def cost_lines(report: cost.CostReport) -> list[str]:
    """The cost comparison as text, each input and price with its source or date."""
    year = report.year
    n = report.inputs.gpus_per_node
    lines = [f"Cloud vs on-prem, per GPU (inputs per {n:g}-GPU node)", "  Inputs:"]
    for i, (name, (label, form)) in enumerate(_INPUT_LABELS.items(), start=1):
        value = getattr(report.inputs, name)
        # "{:%}" marks a fraction: written as every percentage the Guide shows ("10 %").
        value = (
            form.replace("{:%}", format_percent(value, None))
            if "{:%}" in form
            else form.format(value)
        )
        lines.append(f"    {label:<26} {value:>22}  [{i}]")
    # The two sums in one column, what each holds after them.
    fixed, variable = (f"${usd:,.0f}" for usd in (year.fixed_usd, year.variable_usd))
    width = max(len(fixed), len(variable))
    lines += [
        "  Per GPU-year:",
        f"    fixed     {fixed:>{width}}                  "
        "hardware÷life, maintenance, staff, colocation, idle power",
        f"    variable  {variable:>{width}} × utilisation    power above idle, with cooling",
        "  Break-even utilisation (on-prem is cheaper above it):",
    ]
    for v in report.prices:
        u_star = v.break_even_utilization
        verdict = (
            f"never (cloud is cheaper even at {format_percent(1, 0)})"
            if u_star is None
            else format_percent(u_star)
        )
        price = f"${v.price.usd_per_gpu_hour:.2f}/GPU-h"
        lines += [
            f"    {price:>14}  {verdict:>8}  {v.price.label}",
            f"    {'':>14}  {'':>8}  seen {seen_date(v.price.date)}; {v.price.source}",
        ]
    prices = " ".join(
        f"{'vs $' + format(v.price.usd_per_gpu_hour, '.2f'):>9}" for v in report.prices
    )
    lines += [
        # One line: the terminal fitting wraps it at the width it has, never mid-sentence.
        "  On-prem cost per useful GPU-hour at a utilisation, and the return on investment (ROI) "
        "of owning over the life against each cloud price:",
        f"    {'util':>5}  {'$/useful h':>10}  {prices}",
    ]
    for row in report.utilizations:
        rois = " ".join(f"{format_percent(r, 0, signed=True):>9}" for r in row.roi_vs_prices)
        util = format_percent(row.utilization, 0)
        lines.append(f"    {util:>5}  {row.onprem_usd_per_useful_hour:>10.2f}  {rois}")
    if report.measured_tflops is not None:
        lines.append(
            f"  Cost per TFLOP/s-hour at a measured {report.measured_tflops:g} TFLOP/s "
            f"({report.measured_source or 'source not given'}):"
        )
        lines += [
            f"    cloud ${v.price.usd_per_gpu_hour:.2f}/h: ${v.usd_per_tflop_hour:.4f}"
            for v in report.prices
            if v.usd_per_tflop_hour is not None
        ]
        lines += [
            f"    on-prem at {format_percent(row.utilization, 0)}: ${row.usd_per_tflop_hour:.4f}"
            for row in report.utilizations
            if row.usd_per_tflop_hour is not None
        ]
    lines += ["  The words used above:"]
    lines += [f"    {term}: {gloss}." for term, gloss in cost.TERMS]
    lines += [f"  Formulas: {cost.SOURCE_FORMULAS}", "  Input sources:"]
    sources = cost.input_sources(report.inputs)
    lines += [f"  [{i}] {sources[name]}" for i, name in enumerate(_INPUT_LABELS, start=1)]
    return lines
