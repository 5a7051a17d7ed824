"""Rich text for the Guide's cost view: the verdict, the per-GPU-year split and dated prices."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from gpu_tui.core.guide import cost
from gpu_tui.core.guide.prices import PRICES, SUMMARY, cite, seen_date
from gpu_tui.core.units import format_percent


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
            return f"{price.label}; seen {seen_date(price.date)}; {price.source}"
    return "given by you (reference prices and their dates are listed on the right)"


def verdict(year: cost.GpuYear, choice: CloudChoice, styles: dict[str, str]) -> Text:
    """Break-even utilisation, then what one useful GPU-hour costs each way at the chosen u."""
    u_star = cost.break_even_utilization(year, choice.usd_per_hour)
    seen = seen_date(choice.date) if choice.date else "date not given"
    price = f"${choice.usd_per_hour:,.2f}/GPU-h (seen {seen})"
    text = Text()
    if u_star is None:
        text.append("Break-even: never", style=f"bold {styles['text-warning']}")
        text.append(f"\ncloud at {price} is cheaper even at {format_percent(1, 0)} utilisation.\n")
    else:
        text.append(
            f"Break-even {format_percent(u_star)} utilisation",
            style=f"bold {styles['text-accent']}",
        )
        text.append(
            f"\nOn-prem beats {price} only when the GPU does useful work more than "
            f"{format_percent(u_star)} of the hours ({u_star * cost.HOURS_PER_YEAR:,.0f} h/yr).\n"
        )
    onprem = cost.onprem_usd_per_useful_hour(year, choice.utilization)
    cheaper = "on-prem" if onprem < choice.usd_per_hour else "cloud"
    roi = cost.roi(year, choice.usd_per_hour, choice.utilization)
    text.append(f"At {format_percent(choice.utilization, None)}: ", style="bold")
    text.append(f"on-prem ${onprem:,.2f} per useful GPU-hour vs cloud ${choice.usd_per_hour:,.2f}")
    text.append(f" → {cheaper} is cheaper", style="bold")
    roi_text = format_percent(roi, 0, signed=True)
    text.append(f" (return on investment of owning: {roi_text} over the life).\n")
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


WIDE = 72
"""Cells from which a price table keeps its text in a column beside the figures; narrower
(the results beside the form at 80×24), that column would be squeezed to a few letters and
split every word, so the text goes on its own lines under each row's figures."""


class ByWidth:
    """A Rich renderable drawn one way where ``at`` cells or more are free, another below."""

    def __init__(
        self, wide: Callable[[], RenderableType], narrow: Callable[[], RenderableType], at: int
    ) -> None:
        self.wide, self.narrow, self.at = wide, narrow, at

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.wide() if options.max_width >= self.at else self.narrow()


def _stacked(
    title: str, header: list[tuple[str, int, bool]], rows: list[tuple[list[str], Text]]
) -> Group:
    """Figures in columns of the given widths (right-aligned where marked), each row's text
    under its figures, indented, with the whole width to wrap in at its words."""

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.rjust(width) if right else cell.ljust(width)
            for cell, (_, width, right) in zip(cells, header, strict=True)
        ).rstrip()

    parts: list[RenderableType] = [
        Text(title, style="bold"),
        Text(line([name for name, _, _ in header]), style="bold"),
    ]
    for cells, what in rows:
        parts += [Text(line(cells)), Padding(what, (0, 0, 0, 2))]
    return Group(*parts)


def _widths(names: list[str], rows: list[list[str]]) -> list[int]:
    return [max(len(name), *(len(r[i]) for r in rows)) for i, name in enumerate(names)]


REFERENCE_TITLE = "Break-even against H100 cloud prices"


def reference_table(year: cost.GpuYear) -> RenderableType:
    """Four H100 cloud price scenarios, each with its break-even, its date and its pages."""
    figures, texts = [], []
    for price in cost.REFERENCE_PRICES:
        u_star = cost.break_even_utilization(year, price.usd_per_gpu_hour)
        figures.append(
            [
                f"{price.usd_per_gpu_hour:.2f}",
                "never" if u_star is None else format_percent(u_star),
                seen_date(price.date),
            ]
        )
        texts.append((price.label, price.source))
    names = ["$/GPU-h", "break-even", "seen"]

    def wide() -> Table:
        table = _wide_table(REFERENCE_TITLE)
        table.add_column(names[0], justify="right", no_wrap=True)
        table.add_column(names[1], justify="right", no_wrap=True)
        table.add_column(names[2], no_wrap=True)
        # An address longer than the column folds onto the next line rather than losing its end.
        table.add_column("what (source)", ratio=1, overflow="fold")
        for cells, (label, source) in zip(figures, texts, strict=True):
            table.add_row(*cells, Text(f"{label} ({source})"))
        return table

    def narrow() -> Group:
        widths = _widths(names, figures)
        header = [(n, w, r) for n, w, r in zip(names, widths, (True, True, False), strict=True)]
        # The label, then its pages on lines of their own.
        rows = [
            (cells, Text.assemble(label, "\n", (source, "italic")))
            for cells, (label, source) in zip(figures, texts, strict=True)
        ]
        return _stacked(REFERENCE_TITLE, header, rows)

    return ByWidth(wide, narrow, WIDE)


def _wide_table(title: str, caption: str | None = None) -> Table:
    """A wide layout's table: the title left and bold, no box, a cell of space between columns."""
    return Table(
        title=title,
        title_justify="left",
        expand=True,
        box=None,
        padding=(0, 1),
        title_style="bold",
        caption=caption,
        caption_justify="left",
    )


SNAPSHOT_TITLE = "Cloud list prices, $/GPU-hour, each with the day it was seen"


def snapshot_table() -> RenderableType:
    """Provider list prices, every one with the date its source printed it."""
    figures, providers, notes = [], [], []
    for row in PRICES:
        usd = f"{row.usd_per_gpu_hour:.2f}"
        if row.usd_high is not None:
            usd += f"–{row.usd_high:.2f}"
        kind = "" if row.kind == "on-demand" else f" [{row.kind}]"
        note = f"; {row.note}" if row.note else ""
        figures.append([row.gpu, usd, seen_date(row.date)])
        providers.append(f"{row.provider}{kind}")
        notes.append((note, cite(row)))
    names = ["GPU", "$/h", "seen"]

    def wide() -> Table:
        table = _wide_table(SNAPSHOT_TITLE, caption=SUMMARY)
        table.add_column(names[0], no_wrap=True)
        table.add_column("provider", ratio=1, overflow="fold")
        table.add_column(names[1], justify="right", no_wrap=True)
        table.add_column(names[2], no_wrap=True)
        for (gpu, usd, seen), provider, note in zip(figures, providers, notes, strict=True):
            table.add_row(gpu, Text(f"{provider}{note[0]} ({note[1]})"), usd, seen)
        return table

    def narrow() -> Group:
        widths = _widths(names, figures)
        header = [(n, w, r) for n, w, r in zip(names, widths, (False, True, False), strict=True)]
        rows = [
            (cells, Text.assemble((provider, "bold"), note, "\n", (source, "italic")))
            for cells, provider, (note, source) in zip(figures, providers, notes, strict=True)
        ]
        return Group(_stacked(SNAPSHOT_TITLE, header, rows), Text(SUMMARY))

    return ByWidth(wide, narrow, WIDE)


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
