"""Cloud vs on-prem: fixed and power cost per GPU-year, break-even utilisation, $/useful hour."""

from __future__ import annotations

from dataclasses import dataclass, fields

from gpu_tui.core.devices.sources import Source
from gpu_tui.core.guide.prices import PRICES, PriceRow, seen_date
from gpu_tui.core.limits import Limit

HOURS_PER_YEAR = 8760

SOURCE_FORMULAS = (
    "gpu-tui's own arithmetic: break-even is where a year of cloud hours at utilisation u costs "
    "what the owned GPU costs that year (fixed + power × u); no outside formula is used"
)


@dataclass(frozen=True)
class CostInputs:
    """On-prem inputs, per node unless the name says otherwise.

    The defaults describe one 8-GPU H100 node (sources per field in ``INPUT_SOURCES``).
    """

    hardware_usd: float = 300_000.0
    install_usd: float = 30_000.0
    gpus_per_node: int = 8
    life_years: float = 4.0
    maintenance_fraction_per_year: float = 0.10
    staff_usd_per_year: float = 25_000.0
    colo_usd_per_kw_year: float = 700.0
    node_kw: float = 10.2
    idle_power_fraction: float = 0.30
    pue: float = 1.56
    usd_per_kwh: float = 0.12


INPUT_SOURCES: dict[str, str] = {
    "hardware_usd": "assumption inside published estimates for an 8×H100 node: ~$270k "
    "(SemiAnalysis, via https://github.com/epoch-research/training-cost-trends), ~$200k list + "
    "support (https://supercluster.blog/p/4-nvidia-dgx-h100-hardware), $300–400k "
    "(https://www.technolynx.com/post/cloud-gpu-vs-on-premise-ai-accelerators-total-cost-"
    "analysis); all secondary",
    "install_usd": "assumption, no published source: $30k per node for networking and "
    "installation, about 10 % of the hardware",
    "gpus_per_node": "an HGX/DGX H100 node holds 8 GPUs (NVIDIA DGX H100 user guide, "
    "https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html)",
    "life_years": "assumption inside the 3–5 year depreciation range (secondary: "
    "https://alpineblockchain.com/comparing-cloud-vs-on-prem-hpc-cost-performance)",
    "maintenance_fraction_per_year": "maintenance contracts ≈10 %/yr (secondary: "
    "https://alpineblockchain.com/comparing-cloud-vs-on-prem-hpc-cost-performance)",
    "staff_usd_per_year": "inside 0.25–0.5 of a full-time person (FTE), $20–50k per node-year "
    "(secondary: https://vultrbonus.com.br/es/blog/cloud-gpu-vs-on-prem)",
    "colo_usd_per_kw_year": "inside $450–900 per kW-year (secondary: "
    "https://disintermediate.global/insights/on-prem-vs-cloud-gpu)",
    "node_kw": 'NVIDIA DGX H100 user guide, power specifications: "10.2 kW max." '
    "(https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html)",
    "idle_power_fraction": "assumption, no published source: an idle node still draws 30 % of "
    "its maximum power",
    "pue": "Uptime Institute Global Data Center Survey 2024 average (1.55–1.59 since 2020; the "
    "2025 survey reports 1.54: https://datacenter.uptimeinstitute.com/rs/711-RIA-145/images/"
    "2025.Annual.Survey.Report.pdf)",
    "usd_per_kwh": "inside EIA state commercial averages, ~9.8–24.5 ¢/kWh in April 2025 "
    "(EIA Electric Power Monthly Table 5.6.A, "
    "https://www.eia.gov/electricity/monthly/epm_table_grapher.php?t=epmt_5_6_a)",
}


INPUT_MEANINGS: dict[str, str] = {
    "hardware_usd": "what one node (its GPUs, CPUs, memory and disks) costs to buy",
    "install_usd": "networking and installation, once per node",
    "gpus_per_node": "the GPUs one node holds: per-node costs are shared among them",
    "life_years": "years the node is used before it is replaced; its price is spread over them",
    "maintenance_fraction_per_year": "support contracts and repairs each year, as a share of "
    "the hardware price",
    "staff_usd_per_year": "the people who run the node, per node and year",
    "colo_usd_per_kw_year": "colocation: rack space, power feeds and cooling rented in another "
    "company's data centre, priced per kW the node can draw",
    "node_kw": "the most power the node draws, at full load",
    "idle_power_fraction": "the power it draws doing nothing, as a share of the most",
    "pue": "PUE (power usage effectiveness): the whole site's power ÷ the computers' own; 1.56 "
    "means cooling and the building add 56 % to the electricity",
    "usd_per_kwh": "the price of a kilowatt-hour of electricity",
}
"""Each input in plain words (the form's labels and the flags are short)."""

TERMS: tuple[tuple[str, str], ...] = (
    (
        "utilisation",
        "the share of the year's hours the GPU does useful work; break-even is the utilisation "
        "above which owning costs less per useful hour than renting",
    ),
    ("fixed costs", "paid whether the GPU works or not: hardware over its life, maintenance, "
     "staff, colocation and idle power"),
    ("PUE", "power usage effectiveness: " + INPUT_MEANINGS["pue"].partition("): ")[2]),
    ("colocation", INPUT_MEANINGS["colo_usd_per_kw_year"].removeprefix("colocation: ")),
    ("GPU clouds", "providers that rent mostly GPUs (RunPod, Lambda, Nebius, Modal, Akash), "
     "cheaper per hour than the big general clouds (AWS, Google Cloud, Azure)"),
    ("ROI", "return on investment: (cloud cost avoided − on-prem cost) ÷ on-prem cost"),
    ("$ per TFLOP/s-hour", "what one hour of one TFLOP/s actually delivered costs (a measured "
     "rate, not the peak): a way to compare GPUs of different speeds"),
)  # fmt: skip
"""The cost words a reader may not know, each with a short gloss (the pane and the text)."""


def input_sources(inputs: CostInputs) -> dict[str, str]:
    """Each input's source for a default value, "given by the user" for a changed one."""
    defaults = CostInputs()
    return {
        name: source if getattr(inputs, name) == getattr(defaults, name) else "given by the user"
        for name, source in INPUT_SOURCES.items()
    }


# Each input's range. The hardware price has a floor above 0 so that on-prem never costs
# nothing: ROI divides by the on-prem cost, and a node for $0 would make it infinite. With
# every input at its worst the per-GPU-year costs stay below about 1e11 dollars.
INPUT_LIMITS: dict[str, Limit] = {
    limit.name: limit
    for limit in (
        Limit("hardware_usd", 100, 1e9, "$"),
        Limit("install_usd", 0, 1e9, "$"),
        Limit("gpus_per_node", 1, 1024, "GPUs", whole=True),
        Limit("life_years", 0.1, 50, "years"),
        Limit("maintenance_fraction_per_year", 0, 1, percent=True),
        Limit("staff_usd_per_year", 0, 1e8, "$"),
        Limit("colo_usd_per_kw_year", 0, 1e6, "$"),
        Limit("node_kw", 0, 1000, "kW"),
        Limit("idle_power_fraction", 0, 1, percent=True),
        Limit("pue", 1, 5),
        Limit("usd_per_kwh", 0, 10, "$"),
    )
}
# A cent an hour (old GPUs on spot markets) to $1000 (a whole rack's worth, per GPU).
PRICE = Limit("cloud price", 0.01, 1000, "$")
# From 0.1 %: below it the fixed cost spread over so few useful hours is meaningless (and at
# 0 it is infinite).
UTILIZATION = Limit("utilisation", 0.001, 1, percent=True)
# A CPU's GFLOP/s to well past any accelerator's peak (a B200 is ~10,000 dense FP4 TFLOP/s).
MEASURED_TFLOPS = Limit("measured TFLOP/s", 0.001, 1e6)


def check_inputs(inputs: CostInputs) -> CostInputs:
    """The inputs unchanged, or ``UsageError`` naming the first one out of range."""
    for item in fields(inputs):
        INPUT_LIMITS[item.name].check(getattr(inputs, item.name))
    return inputs


@dataclass(frozen=True)
class GpuYear:
    """On-prem cost of one GPU for one year: fixed parts and power (US dollars)."""

    capex_usd: float
    maintenance_usd: float
    staff_usd: float
    colo_usd: float
    idle_power_usd: float
    """Power drawn even when idle (with cooling): paid at any utilisation, so it is fixed."""
    variable_usd: float
    """Power above idle at 100 % utilisation (with cooling); the bill is ``variable_usd × u``."""

    @property
    def fixed_usd(self) -> float:
        """Everything paid regardless of utilisation."""
        return (
            self.capex_usd + self.maintenance_usd + self.staff_usd + self.colo_usd
        ) + self.idle_power_usd


def gpu_year(inputs: CostInputs) -> GpuYear:
    """Per-GPU yearly costs from per-node inputs."""
    check_inputs(inputs)
    per_gpu = 1 / inputs.gpus_per_node
    kwh_cost_at_full = inputs.node_kw * inputs.pue * HOURS_PER_YEAR * inputs.usd_per_kwh
    return GpuYear(
        capex_usd=(inputs.hardware_usd + inputs.install_usd) / inputs.life_years * per_gpu,
        maintenance_usd=inputs.maintenance_fraction_per_year * inputs.hardware_usd * per_gpu,
        staff_usd=inputs.staff_usd_per_year * per_gpu,
        colo_usd=inputs.colo_usd_per_kw_year * inputs.node_kw * per_gpu,
        idle_power_usd=kwh_cost_at_full * inputs.idle_power_fraction * per_gpu,
        variable_usd=kwh_cost_at_full * (1 - inputs.idle_power_fraction) * per_gpu,
    )


def check_utilization(u: float) -> float:
    """``u`` when it is a fraction from 0.001 to 1, else ``UsageError``."""
    return UTILIZATION.check(u)


def check_price(usd_per_hour: float) -> float:
    """A $/GPU-hour from $0.01 to $1000, else ``UsageError``."""
    return PRICE.check(usd_per_hour)


def break_even_utilization(year: GpuYear, cloud_usd_per_hour: float) -> float | None:
    """u* = Fixed / (8760 · P_cloud − Var); ``None`` when on-prem never wins (u* > 1 or no u*)."""
    margin = HOURS_PER_YEAR * check_price(cloud_usd_per_hour) - year.variable_usd
    if margin <= 0 or year.fixed_usd > margin:
        return None
    return year.fixed_usd / margin


def onprem_usd_per_useful_hour(year: GpuYear, u: float) -> float:
    """(Fixed + Var · u) / (8760 · u): idle hours are paid for by the useful ones."""
    check_utilization(u)
    return (year.fixed_usd + year.variable_usd * u) / (HOURS_PER_YEAR * u)


def roi(year: GpuYear, cloud_usd_per_hour: float, u: float) -> float:
    """(Cloud cost avoided − on-prem cost) / on-prem cost, per year and so over the life."""
    onprem = year.fixed_usd + year.variable_usd * check_utilization(u)
    return (check_price(cloud_usd_per_hour) * HOURS_PER_YEAR * u - onprem) / onprem


def usd_per_tflop_hour(usd_per_hour: float, measured_tflops: float) -> float:
    """Dollars for one hour of one TFLOP/s actually delivered (a measured rate, not the peak)."""
    return usd_per_hour / MEASURED_TFLOPS.check(measured_tflops)


@dataclass(frozen=True)
class CloudPrice:
    """A cloud on-demand price with where and when it was seen."""

    usd_per_gpu_hour: float
    label: str
    date: str
    """When it was seen; ``2026-09/10``: its pages were seen in September and October 2026
    (shown as ``Sep–Oct 2026``)."""
    source: str
    """One line for people: the price pages (titles and addresses) the price stands for."""
    sources: tuple[Source, ...] = ()
    """The same pages as ``Source`` objects, each with the price as it printed it."""


def _stands_for(*rows: PriceRow) -> tuple[str, tuple[Source, ...]]:
    """The citation line and sources of the snapshot rows a scenario price stands for."""
    line = "; ".join(
        f"{row.source.cite()} {row.source.url} "
        f"(${row.usd_per_gpu_hour:g}, seen {seen_date(row.date)})"
        for row in rows
    )
    return line, tuple(row.source for row in rows)


def _row(provider: str, usd: float) -> PriceRow:
    return next(r for r in PRICES if r.provider == provider and r.usd_per_gpu_hour == usd)


def _price(usd: float, label: str, date: str, *rows: PriceRow) -> CloudPrice:
    line, sources = _stands_for(*rows)
    return CloudPrice(usd, label, date, line, sources)


# Four H100 scenarios, round numbers each tied to the dated snapshot rows it stands for.
REFERENCE_PRICES: tuple[CloudPrice, ...] = (
    _price(2.50, "H100, GPU clouds, low (RunPod Community 2.69, Akash 2.58)", "2026-09/10",
           _row("RunPod Community", 2.69), _row("Akash (cross-provider low)", 2.58)),
    _price(4.00, "H100, GPU clouds, typical (Lambda 3.99, Modal 3.95, Nebius 3.85)", "2026-05/09",
           _row("Lambda 8×", 3.99), _row("Modal", 3.95), _row("Nebius HGX", 3.85)),
    _price(7.00, "H100, AWS p5 after the June 2025 cut (6.88)", "2026-11-09",
           _row("AWS p5", 6.88)),
    _price(11.00, "H100, GCP a3-highgpu-1g on-demand (10.98)", "2026-09-26",
           _row("GCP a3-highgpu-1g (us-central1)", 10.98)),
)  # fmt: skip

REFERENCE_UTILIZATIONS: tuple[float, ...] = (0.3, 0.5, 0.7, 0.9)


@dataclass(frozen=True)
class PriceVerdict:
    """One cloud price against the on-prem node."""

    price: CloudPrice
    break_even_utilization: float | None
    """On-prem is cheaper above this utilisation; ``None``: cloud is cheaper even at 100 %."""
    usd_per_tflop_hour: float | None


@dataclass(frozen=True)
class UtilizationRow:
    """On-prem at one utilisation."""

    utilization: float
    onprem_usd_per_useful_hour: float
    usd_per_tflop_hour: float | None
    roi_vs_prices: tuple[float, ...]
    """ROI over the life against each of the report's prices, in the same order."""


@dataclass(frozen=True)
class CostReport:
    """Everything the Guide's cost view and ``gpu-tui guide --cost`` show."""

    inputs: CostInputs
    year: GpuYear
    prices: tuple[PriceVerdict, ...]
    utilizations: tuple[UtilizationRow, ...]
    measured_tflops: float | None
    measured_source: str | None


def cost_report(
    inputs: CostInputs | None = None,
    prices: tuple[CloudPrice, ...] = REFERENCE_PRICES,
    utilizations: tuple[float, ...] = REFERENCE_UTILIZATIONS,
    measured_tflops: float | None = None,
    measured_source: str | None = None,
) -> CostReport:
    """Break-even per price and cost per useful hour per utilisation; raises ``UsageError``."""
    inputs = CostInputs() if inputs is None else inputs
    year = gpu_year(inputs)

    def per_tflop(usd: float) -> float | None:
        return None if measured_tflops is None else usd_per_tflop_hour(usd, measured_tflops)

    verdicts = tuple(
        PriceVerdict(
            p, break_even_utilization(year, p.usd_per_gpu_hour), per_tflop(p.usd_per_gpu_hour)
        )
        for p in prices
    )
    rows = []
    for u in utilizations:
        hourly = onprem_usd_per_useful_hour(year, u)
        rois = tuple(roi(year, p.usd_per_gpu_hour, u) for p in prices)
        rows.append(UtilizationRow(u, hourly, per_tflop(hourly), rois))
    return CostReport(inputs, year, verdicts, tuple(rows), measured_tflops, measured_source)
