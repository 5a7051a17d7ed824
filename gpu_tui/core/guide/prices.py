"""Cloud $/GPU-hour snapshot (list prices), each row with the date its source printed."""

from __future__ import annotations

from dataclasses import dataclass

_SILY = "tgarg01/silybench-data: derived/csv/gpu_prices.csv"
_RECEIPTS = "datareceipts/data-receipts: 109-gpu-pricing/compare.json"
_SCREENER = "renshuBTC/compute-screener: data/gpu_providers_latest.csv"
_BLOCKS = "AWS EC2 Capacity Blocks pricing page (mirror: sibshop.uat.jiralog.com)"


@dataclass(frozen=True)
class PriceRow:
    """One provider's price for one GPU at one date; never show the price without the date."""

    gpu: str
    provider: str
    usd_per_gpu_hour: float
    date: str
    source: str
    kind: str = "on-demand"
    """``on-demand``, ``capacity block`` (a reserved window) or ``serverless`` (per second)."""
    usd_high: float | None = None
    """Upper end when the source gives a range for one provider."""
    note: str = ""


# fmt: off
PRICES: tuple[PriceRow, ...] = (
    PriceRow("H100 SXM", "RunPod Community", 2.69, "2026-09-25", _SILY),
    PriceRow("H100 SXM", "RunPod Secure", 3.49, "2026-09-25", _SILY),
    PriceRow("H100 SXM", "Lambda 8×", 3.99, "2026-09-25", _SILY),
    PriceRow("H100 SXM", "Lambda 1×", 4.29, "2026-09-25", _SILY),
    PriceRow("H100", "Nebius HGX", 3.85, "2026-09-25", _SILY),
    PriceRow("H100", "GCP a3-highgpu-1g (us-central1)", 10.98, "2026-09-26", _SILY,
             note="on-demand equivalent including vCPU + RAM"),
    PriceRow("H100 SXM", "AWS p5", 6.88, "2026-11-09", _RECEIPTS,
             note="after the June 2025 price cut"),
    PriceRow("H100 SXM", "Azure", 12.29, "2026-11-09", _RECEIPTS),
    PriceRow("H100", "AWS p5.48xlarge ($98.32/h for 8)", 12.29, "2023",
             "nextplatform.com (2023-07-27); usage.ai (June 2025 cut)",
             note="before the ~44–45 % cut of June 2025"),
    PriceRow("H100", "AWS EC2 Capacity Blocks", 4.916, "late 2024", _BLOCKS,
             kind="capacity block", note="valid to 2025-01-01"),
    PriceRow("H100", "Akash (cross-provider low)", 2.58, "2026-10-24", _SCREENER),
    PriceRow("H100", "CoreWeave (cross-provider high)", 6.155, "2026-10-24", _SCREENER),
    PriceRow("H100", "Modal", 3.95, "2026-05-07",
             "techbytes.app/posts/serverless-gpu-pricing-matrix-modal-replicate-lambda-2026/",
             kind="serverless"),
    PriceRow("H200", "RunPod Community", 3.59, "2026-09-25", _SILY),
    PriceRow("H200", "RunPod Secure", 4.59, "2026-09-25", _SILY),
    PriceRow("H200", "Nebius", 4.50, "2026-09-25", _SILY),
    PriceRow("H200", "Civo (cross-provider low)", 3.45, "2026-10-24", _SCREENER),
    PriceRow("H200", "CoreWeave (cross-provider high)", 6.305, "2026-10-24", _SCREENER),
    PriceRow("H200", "AWS Capacity Blocks (p5e)", 5.408, "late 2024", _BLOCKS,
             kind="capacity block"),
    PriceRow("H200", "Google Cloud", 10.0, "2025-08", "jax-ml/scaling-book: gpus.md",
             note="approximate (~$10)"),
    PriceRow("A100 80GB", "RunPod SXM Community", 1.39, "2026-09-25", _SILY),
    PriceRow("A100 80GB", "RunPod SXM Secure", 1.59, "2026-09-25", _SILY),
    PriceRow("A100 80GB", "Lambda 8× SXM", 2.79, "2026-09-25", _SILY),
    PriceRow("A100 80GB", "AWS p4de", 3.43, "2026-11-09", _RECEIPTS),
    PriceRow("A100 40GB", "Lambda 1×", 1.99, "2026-11", _RECEIPTS),
    PriceRow("A100 40GB", "AWS p4d", 2.74, "2026-11", _RECEIPTS),
    PriceRow("A100 40GB", "Azure ND96asr v4", 3.40, "2026-11", _RECEIPTS),
    PriceRow("A100 40GB", "AWS Capacity Blocks (p4d)", 1.844, "late 2024", _BLOCKS,
             kind="capacity block"),
    PriceRow("B200", "RunPod", 5.98, "2026-09-25", _SILY, usd_high=6.79),
    PriceRow("B200", "Lambda", 6.99, "2026-09-25", _SILY),
    PriceRow("B200", "Nebius", 7.15, "2026-09-25", _SILY),
)
# fmt: on

SUMMARY = (
    "Late-2026 snapshots: A100 $1.4–3.4, H100 $2.6–12.3 (neoclouds $2.6–4.3, hyperscalers "
    "$6.9–12.3), H200 $3.5–10 per GPU-hour. AWS's H100 price roughly halved in 2025."
)


def prices_for(gpu: str) -> tuple[PriceRow, ...]:
    """Rows whose GPU starts with ``gpu`` (``H100`` matches ``H100 SXM``), cheapest first."""
    wanted = gpu.strip().lower()
    rows = (row for row in PRICES if row.gpu.lower().startswith(wanted))
    return tuple(sorted(rows, key=lambda row: row.usd_per_gpu_hour))
