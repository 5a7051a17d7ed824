"""Cloud $/GPU-hour snapshot (list prices), each row with its price page and the date it was seen.

A price is the provider's own: ``source`` is the provider's price page, with the price as that
page printed it. The date is the day a public snapshot recorded it (``seen_via``), since price
pages change without notice; where only an aggregate or a press report gives the price, the
source itself is secondary and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpu_tui.core.devices.sources import Source

# Public snapshots that recorded the prices on a date (read from the repositories named).
_SILYBENCH = Source(
    "https://github.com/tgarg01/silybench-data/blob/main/derived/csv/gpu_prices.csv",
    "provider, gpu_type, usd_per_gpu_hour, source (the price page), checked_at",
    "tgarg01/silybench-data price snapshot",
    primary=False,
)
_DATA_RECEIPTS = Source(
    "https://raw.githubusercontent.com/datareceipts/data-receipts/main/109-gpu-pricing/compare.json",
    "per-GPU on-demand prices by provider and instance, dated",
    "datareceipts/data-receipts GPU price comparison",
    primary=False,
)
_SCREENER = Source(
    "https://raw.githubusercontent.com/renshuBTC/compute-screener/main/data/gpu_providers_latest.csv",
    "cross-provider average $/GPU-hour per provider, dated",
    "renshuBTC/compute-screener provider averages",
    primary=False,
)


def _page(url: str, title: str, says: str) -> Source:
    return Source(url, says, title)


_RUNPOD = "https://www.runpod.io/pricing"
_LAMBDA = "https://lambda.ai/pricing"
_NEBIUS = "https://nebius.com/prices"
_AWS_ON_DEMAND = "https://aws.amazon.com/ec2/pricing/on-demand/"
_AZURE = "https://azure.microsoft.com/en-us/pricing/details/virtual-machines/linux/"
_CAPACITY_BLOCKS = "https://aws.amazon.com/ec2/capacityblocks/pricing/"
_GCP_CATALOG = "https://cloud.google.com/billing/v1/how-tos/catalog-api"


@dataclass(frozen=True)
class PriceRow:
    """One provider's price for one GPU at one date; never show the price without the date."""

    gpu: str
    provider: str
    usd_per_gpu_hour: float
    date: str
    """When the price was seen (recorded by ``seen_via``, or printed by ``source``), as
    precisely as the record says: ``2026-09-25``, ``2026-11``, ``late 2024``; shown by
    :func:`seen_date`."""
    source: Source
    """Where the price is published, with the price as printed there."""
    kind: str = "on-demand"
    """``on-demand``, ``capacity block`` (a reserved window) or ``serverless`` (per second)."""
    usd_high: float | None = None
    """Upper end when the source gives a range for one provider."""
    note: str = ""
    seen_via: Source | None = None
    """The public snapshot that recorded the price on ``date``, when it was not read directly."""


def _runpod(says: str) -> Source:
    return _page(_RUNPOD, "RunPod pricing", says)


def _lambda(says: str) -> Source:
    return _page(_LAMBDA, "Lambda pricing", says)


def _nebius(says: str) -> Source:
    return _page(_NEBIUS, "Nebius prices", says)


def _aws(says: str) -> Source:
    return _page(_AWS_ON_DEMAND, "Amazon EC2 On-Demand pricing", says)


def _azure(says: str) -> Source:
    return _page(_AZURE, "Azure Linux virtual machines pricing", says)


def _blocks(says: str) -> Source:
    return _page(_CAPACITY_BLOCKS, "Amazon EC2 Capacity Blocks for ML pricing", says)


# fmt: off
PRICES: tuple[PriceRow, ...] = (
    PriceRow("H100 SXM", "RunPod Community", 2.69, "2026-09-25",
             _runpod("H100 SXM, Community Cloud $2.69/hr"), seen_via=_SILYBENCH),
    PriceRow("H100 SXM", "RunPod Secure", 3.49, "2026-09-25",
             _runpod("H100 SXM, Secure Cloud $3.49/hr"), seen_via=_SILYBENCH),
    PriceRow("H100 SXM", "Lambda 8×", 3.99, "2026-09-25",
             _lambda("8x H100 SXM $3.99 per GPU-hour"), seen_via=_SILYBENCH),
    PriceRow("H100 SXM", "Lambda 1×", 4.29, "2026-09-25",
             _lambda("1x H100 SXM $4.29 per GPU-hour"), seen_via=_SILYBENCH),
    PriceRow("H100", "Nebius HGX", 3.85, "2026-09-25",
             _nebius("HGX H100 $3.85 per GPU-hour"), seen_via=_SILYBENCH),
    PriceRow("H100", "GCP a3-highgpu-1g (us-central1)", 10.98, "2026-09-26",
             _page(_GCP_CATALOG, "Google Cloud Billing catalog (Compute Engine SKUs)",
                   "a3-highgpu-1g, us-central1: GPU $5.8632 + 26 vCPU + 234 GiB = $10.9791/hr"),
             note="on-demand equivalent including vCPU + RAM", seen_via=_SILYBENCH),
    PriceRow("H100 SXM", "AWS p5", 6.88, "2026-11-09",
             _aws("p5.48xlarge (8 × H100) per GPU-hour $6.88"),
             note="after the June 2025 price cut", seen_via=_DATA_RECEIPTS),
    PriceRow("H100 SXM", "Azure", 12.29, "2026-11-09",
             _azure("ND H100 v5 (8 × H100) per GPU-hour $12.29"), seen_via=_DATA_RECEIPTS),
    PriceRow("H100", "AWS p5.48xlarge ($98.32/h for 8)", 12.29, "2023-07-27",
             Source("https://www.nextplatform.com/2023/07/27/h100-gpu-instance-pricing-on-aws-"
                    "grin-and-bear-it/",
                    "p5.48xlarge $98.32 per hour on demand (8 × H100)",
                    "The Next Platform on AWS H100 pricing, 27 Jul 2023", primary=False),
             note="before the ~44–45 % cut of June 2025"),
    PriceRow("H100", "AWS EC2 Capacity Blocks", 4.916, "late 2024",
             _blocks("p5.48xlarge, 8 × H100: $4.916 per GPU-hour"), kind="capacity block",
             note="valid to 1 Jan 2025"),
    PriceRow("H100", "Akash (cross-provider low)", 2.58, "2026-10-24", _SCREENER),
    PriceRow("H100", "CoreWeave (cross-provider high)", 6.155, "2026-10-24", _SCREENER),
    PriceRow("H100", "Modal", 3.95, "2026-05-07",
             _page("https://modal.com/pricing", "Modal pricing",
                   "Nvidia H100 $0.001097 / sec (= $3.95/hr)"),
             kind="serverless",
             seen_via=Source("https://techbytes.app/posts/serverless-gpu-pricing-matrix-modal-"
                             "replicate-lambda-2026/", "Modal H100 $3.95/hr, 2026-05-07",
                             "TechBytes serverless GPU price matrix", primary=False)),
    PriceRow("H200", "RunPod Community", 3.59, "2026-09-25",
             _runpod("H200, Community Cloud $3.59/hr"), seen_via=_SILYBENCH),
    PriceRow("H200", "RunPod Secure", 4.59, "2026-09-25",
             _runpod("H200, Secure Cloud $4.59/hr"), seen_via=_SILYBENCH),
    PriceRow("H200", "Nebius", 4.50, "2026-09-25",
             _nebius("HGX H200 $4.50 per GPU-hour"), seen_via=_SILYBENCH),
    PriceRow("H200", "Civo (cross-provider low)", 3.45, "2026-10-24", _SCREENER),
    PriceRow("H200", "CoreWeave (cross-provider high)", 6.305, "2026-10-24", _SCREENER),
    PriceRow("H200", "AWS Capacity Blocks (p5e)", 5.408, "late 2024",
             _blocks("p5e.48xlarge, 8 × H200: $5.408 per GPU-hour"), kind="capacity block"),
    PriceRow("H200", "Google Cloud", 10.0, "2025-08",
             Source("https://jax-ml.github.io/scaling-book/gpus/",
                    "H200 ~$10/hour on Google Cloud vs TPU v5p $4/hour",
                    "How to Scale Your Model, GPUs chapter (August 2025)", primary=False),
             note="approximate (~$10)"),
    PriceRow("A100 80GB", "RunPod SXM Community", 1.39, "2026-09-25",
             _runpod("A100 SXM, Community Cloud $1.39/hr"), seen_via=_SILYBENCH),
    PriceRow("A100 80GB", "RunPod SXM Secure", 1.59, "2026-09-25",
             _runpod("A100 SXM, Secure Cloud $1.59/hr"), seen_via=_SILYBENCH),
    PriceRow("A100 80GB", "Lambda 8× SXM", 2.79, "2026-09-25",
             _lambda("8x A100 SXM 80GB $2.79 per GPU-hour"), seen_via=_SILYBENCH),
    PriceRow("A100 80GB", "AWS p4de", 3.43, "2026-11-09",
             _aws("p4de.24xlarge (8 × A100 80GB) per GPU-hour $3.43"), seen_via=_DATA_RECEIPTS),
    PriceRow("A100 40GB", "Lambda 1×", 1.99, "2026-09-25",
             _lambda("1x A100 SXM 40GB $1.99 per GPU-hour"), seen_via=_SILYBENCH),
    PriceRow("A100 40GB", "AWS p4d", 2.74, "2026-11",
             _aws("p4d.24xlarge (8 × A100 40GB) per GPU-hour $2.74"), seen_via=_DATA_RECEIPTS),
    PriceRow("A100 40GB", "Azure ND96asr v4", 3.40, "2026-11",
             _azure("ND96asr A100 v4 (8 × A100 40GB) per GPU-hour $3.40"),
             seen_via=_DATA_RECEIPTS),
    PriceRow("A100 40GB", "AWS Capacity Blocks (p4d)", 1.844, "late 2024",
             _blocks("p4d.24xlarge, 8 × A100: $1.844 per GPU-hour"), kind="capacity block"),
    PriceRow("B200", "RunPod", 5.98, "2026-09-25",
             _runpod("B200, Community Cloud $5.98/hr; Secure Cloud $6.79/hr"), usd_high=6.79,
             seen_via=_SILYBENCH),
    PriceRow("B200", "Lambda", 6.99, "2026-09-25",
             _lambda("1x B200 SXM6 $6.99 per GPU-hour"), seen_via=_SILYBENCH),
    PriceRow("B200", "Nebius", 7.15, "2026-09-25",
             _nebius("HGX B200 $7.15 per GPU-hour"), seen_via=_SILYBENCH),
)
# fmt: on

SUMMARY = (
    "Late-2026 snapshots: A100 $1.4–3.4, H100 $2.6–12.3 (GPU clouds $2.6–4.3, the big general "
    "clouds $6.9–12.3), H200 $3.5–10 per GPU-hour. AWS's H100 price roughly halved in 2025."
)


def cite(row: PriceRow) -> str:
    """Where a price was published and, if not read there directly, who recorded it."""
    text = f"{row.source.cite()}, {row.source.url}"
    if row.seen_via is not None:
        text += f"; recorded by {row.seen_via.title}"
    return text


def prices_for(gpu: str) -> tuple[PriceRow, ...]:
    """Rows whose GPU starts with ``gpu`` (``H100`` matches ``H100 SXM``), cheapest first."""
    wanted = gpu.strip().lower()
    rows = (row for row in PRICES if row.gpu.lower().startswith(wanted))
    return tuple(sorted(rows, key=lambda row: row.usd_per_gpu_hour))


_ISO = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2})|/(\d{2}))?")
# English names whatever the locale (``calendar.month_abbr`` follows it): the rest is English.
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def seen_date(date: str) -> str:
    """A price's date in one form whatever its precision: ``2026-09-25`` → ``25 Sep 2026``,
    ``2026-11`` → ``Nov 2026``, and a span of months, ``2026-09/10`` (a price that stands for
    pages seen in September and October), → ``Sep–Oct 2026``. Words (``late 2024``) and
    anything else typed are kept as they are."""
    match = _ISO.fullmatch(date.strip())
    if match is None:
        return date
    year, month, day, until = match.groups()
    months = [int(m) for m in (month, until) if m is not None]
    if not all(1 <= m <= 12 for m in months):
        return date
    names = [_MONTHS[m - 1] for m in months]
    if day is not None:
        return f"{int(day)} {names[0]} {year}"
    return f"{'–'.join(names)} {year}"
