"""Cloud vs on-prem: fixed and power cost per GPU-year, break-even utilisation, $/useful hour."""

from __future__ import annotations

from dataclasses import dataclass, fields

from gpu_tui.core.limits import Limit

HOURS_PER_YEAR = 8760

SOURCE_FORMULAS = "shared/reference/accelerators.md, 'ROI / break-even: formula and worked numbers'"


@dataclass(frozen=True)
class CostInputs:
    """On-prem inputs, per node unless the name says otherwise.

    The defaults are the reference's worked example: one 8-GPU H100 node (sources per field in
    ``INPUT_SOURCES``).
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
    "hardware_usd": "within $270k (SemiAnalysis via epoch-research/training-cost-trends), "
    "~$200k list + support (supercluster.blog), $300–400k (technolynx)",
    "install_usd": "unsourced assumption (networking + installation)",
    "gpus_per_node": "an HGX/DGX H100 node holds 8 GPUs",
    "life_years": "assumption inside the 3–5 year depreciation range (alpineblockchain.com)",
    "maintenance_fraction_per_year": "maintenance contracts ≈10 %/yr (alpineblockchain.com)",
    "staff_usd_per_year": "inside 0.25–0.5 FTE, $20–50k per node-year (vultrbonus.com.br)",
    "colo_usd_per_kw_year": "inside $450–900 per kW-year (disintermediate.global)",
    "node_kw": "~10 kW for a DGX H100 (alpineblockchain.com); 10.2 kW datasheet not re-verified",
    "idle_power_fraction": "unsourced assumption",
    "pue": "Uptime Institute 2024 survey average (1.55–1.59 since 2020)",
    "usd_per_kwh": "inside EIA state commercial averages, ~9.8–24.5 ¢/kWh in April 2025 "
    "(eia.gov Electric Power Monthly Table 5.6.A)",
}


def input_sources(inputs: CostInputs) -> dict[str, str]:
    """Each input's source: the reference's for a default value, "given" for a changed one."""
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
    """On-prem cost of one GPU for one year, split as the reference splits it (US dollars)."""

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
    source: str


# The reference's break-even table, each price tied to the snapshot rows it stands for.
REFERENCE_PRICES: tuple[CloudPrice, ...] = (
    CloudPrice(2.50, "H100, neocloud low (RunPod Community 2.69, Akash 2.58)", "2026-09/10",
               "tgarg01/silybench-data gpu_prices.csv; renshuBTC/compute-screener"),
    CloudPrice(4.00, "H100, neocloud typical (Lambda 3.99, Modal 3.95, Nebius 3.85)",
               "2026-05/09", "tgarg01/silybench-data gpu_prices.csv; techbytes.app"),
    CloudPrice(7.00, "H100, AWS p5 after the June 2025 cut (6.88)", "2026-11-09",
               "datareceipts/data-receipts 109-gpu-pricing/compare.json"),
    CloudPrice(11.00, "H100, GCP a3-highgpu-1g on-demand (10.98)", "2026-09-26",
               "tgarg01/silybench-data gpu_prices.csv"),
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
