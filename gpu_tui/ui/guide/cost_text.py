"""Rich text for the Guide's cost view: the verdict, the per-GPU-year split and dated prices."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpu_tui.core.guide import cost
from gpu_tui.core.guide.prices import PRICES, SUMMARY, cite


@dataclass(frozen=True)
class CloudChoice:
    """The cloud price the user compares against, and when it was seen."""

    usd_per_hour: float
    date: str
    utilization: float
    measured_tflops: float | None


def price_source(usd_per_hour: float) -> str:
    """The reference price this is (label and source), or that the user typed it."""
    for price in cost.REFERENCE_PRICES:
        if abs(price.usd_per_gpu_hour - usd_per_hour) < 1e-9:
            return f"{price.label}; seen {price.date}; {price.source}"
    return "given by you (reference prices and their dates are listed on the right)"


def verdict(year: cost.GpuYear, choice: CloudChoice, styles: dict[str, str]) -> Text:
    """Break-even utilisation, then what one useful GPU-hour costs each way at the chosen u."""
    u_star = cost.break_even_utilization(year, choice.usd_per_hour)
    price = f"${choice.usd_per_hour:,.2f}/GPU-h (price of {choice.date or 'date not given'})"
    text = Text()
    if u_star is None:
        text.append("Break-even: never", style=f"bold {styles['text-warning']}")
        text.append(f"\ncloud at {price} is cheaper even at 100 % utilisation.\n")
    else:
        text.append(
            f"Break-even {u_star * 100:.1f} % utilisation", style=f"bold {styles['text-accent']}"
        )
        text.append(
            f"\nOn-prem beats {price} only when the GPU does useful work more than "
            f"{u_star * 100:.1f} % of the hours ({u_star * cost.HOURS_PER_YEAR:,.0f} h/yr).\n"
        )
    onprem = cost.onprem_usd_per_useful_hour(year, choice.utilization)
    cheaper = "on-prem" if onprem < choice.usd_per_hour else "cloud"
    roi = cost.roi(year, choice.usd_per_hour, choice.utilization)
    text.append(f"At {choice.utilization * 100:g} %: ", style="bold")
    text.append(f"on-prem ${onprem:,.2f} per useful GPU-hour vs cloud ${choice.usd_per_hour:,.2f}")
    text.append(f" → {cheaper} is cheaper", style="bold")
    text.append(f" (return on investment of owning: {roi:+.0%} over the life).\n")
    if choice.measured_tflops is not None:
        cloud = cost.usd_per_tflop_hour(choice.usd_per_hour, choice.measured_tflops)
        own = cost.usd_per_tflop_hour(onprem, choice.measured_tflops)
        text.append(
            f"Per TFLOP/s-hour at the measured {choice.measured_tflops:g} TFLOP/s: "
            f"cloud ${cloud:.4f}, on-prem ${own:.4f}.\n"
        )
    return text


def breakdown(year: cost.GpuYear) -> Text:
    """The per-GPU-year split: the fixed parts, then power above idle."""
    parts = (
        ("hardware÷life", year.capex_usd),
        ("maintenance", year.maintenance_usd),
        ("staff", year.staff_usd),
        ("colocation", year.colo_usd),
        ("idle power", year.idle_power_usd),
    )
    text = Text("Per GPU-year: ", style="bold")
    text.append(f"fixed ${year.fixed_usd:,.0f} (")
    text.append(" · ".join(f"{name} ${value:,.0f}" for name, value in parts))
    text.append(f") + power above idle ${year.variable_usd:,.0f} × utilisation.\n")
    text.append(
        "break-even utilisation = fixed ÷ (8760 h × cloud price − power); at utilisation u, "
        f"$ per useful hour = (fixed + power × u) ÷ (8760 h × u). {cost.SOURCE_FORMULAS}.",
        style="italic",
    )
    return text


def reference_table(year: cost.GpuYear) -> Table:
    """Four H100 cloud price scenarios, each with its break-even, its date and its pages."""
    table = Table(
        title="Break-even against H100 cloud prices",
        title_justify="left",
        expand=True,
        box=None,
        padding=(0, 1),
        title_style="bold",
    )
    table.add_column("$/GPU-h", justify="right", no_wrap=True)
    table.add_column("break-even", justify="right", no_wrap=True)
    table.add_column("price of", no_wrap=True)
    # An address longer than the column folds onto the next line rather than losing its end.
    table.add_column("what (source)", ratio=1, overflow="fold")
    for price in cost.REFERENCE_PRICES:
        u_star = cost.break_even_utilization(year, price.usd_per_gpu_hour)
        table.add_row(
            f"{price.usd_per_gpu_hour:.2f}",
            "never" if u_star is None else f"{u_star * 100:.1f} %",
            price.date,
            Text(f"{price.label} ({price.source})"),
        )
    return table


def snapshot_table() -> Table:
    """Provider list prices, every one with the date its source printed it."""
    table = Table(
        title="Cloud list prices, $/GPU-hour, each with the day it was seen",
        title_justify="left",
        expand=True,
        box=None,
        padding=(0, 1),
        title_style="bold",
        caption=SUMMARY,
        caption_justify="left",
    )
    table.add_column("GPU", no_wrap=True)
    table.add_column("provider", ratio=1, overflow="fold")
    table.add_column("$/h", justify="right", no_wrap=True)
    table.add_column("seen on", no_wrap=True)
    for row in PRICES:
        usd = f"{row.usd_per_gpu_hour:.2f}"
        if row.usd_high is not None:
            usd += f"–{row.usd_high:.2f}"
        kind = "" if row.kind == "on-demand" else f" [{row.kind}]"
        note = f"; {row.note}" if row.note else ""
        table.add_row(row.gpu, Text(f"{row.provider}{kind}{note} ({cite(row)})"), usd, row.date)
    return table


def terms() -> Text:
    """The cost words a reader may not know, one line each: the term in bold, its gloss."""
    text = Text()
    for index, (term, gloss) in enumerate(cost.TERMS):
        text.append(("\n" if index else "") + term, style="bold")
        text.append(f": {gloss}.")
    return text


def tables(year: cost.GpuYear) -> RenderableType:
    """Under the verdict: the per-GPU-year split and what it means per hour. The dated prices
    (``snapshot_table``) follow in a box of their own: they do not change with the inputs, and
    drawing their 200-odd lines again on every keystroke made typing lag."""
    return Group(
        breakdown(year),
        Text(""),
        reference_table(year),
        Text(""),
    )
