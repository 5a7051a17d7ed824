"""Human formatting of sizes, rates and clocks (binary bytes for memory, SI for rates)."""

from __future__ import annotations

from gpu_tui.core.fields import Unknown


def format_bytes(value: int | float) -> str:
    """``34359738368`` → ``32.0 GiB`` (memory is sold and reported in binary units)."""
    size = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(size) < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def format_mhz(value: float) -> str:
    """``3500`` → ``3.50 GHz``; ``800`` → ``800 MHz``."""
    return f"{value / 1000:.2f} GHz" if value >= 1000 else f"{value:.0f} MHz"


def format_flops(tflops: float) -> str:
    """Pick TFLOP/s or GFLOP/s so the number reads naturally."""
    if tflops >= 1:
        return f"{tflops:,.1f} TFLOP/s"
    return f"{tflops * 1000:,.1f} GFLOP/s"


def format_bandwidth(gb_per_second: float) -> str:
    """``4917`` → ``4.92 TB/s``; ``47`` → ``47.0 GB/s``."""
    if gb_per_second >= 1000:
        return f"{gb_per_second / 1000:.2f} TB/s"
    return f"{gb_per_second:.1f} GB/s"


def format_seconds(value: float) -> str:
    """``1.5`` → ``1.50 s``; ``0.0042`` → ``4.20 ms``; ``3.1e-6`` → ``3.1 µs``."""
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.1f} µs"


def format_number(value: float) -> str:
    """Three significant figures below 1000, thousands separators above."""
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def or_unknown(value: object, render: str) -> str:
    """``render`` for a known value; a short ``unknown`` marker otherwise."""
    return "unknown" if isinstance(value, Unknown) or value is None else render
