"""GPU-to-GPU copies as a matrix: every ordered pair of GPUs, with and without P2P, and the host.

The worker (``worker/copy_matrix.py``) reports one result per copy: benchmark ``copies``, the
path as the variant (``p2p``: ``dst.copy_(src)`` between GPUs with peer access; ``staged``:
through pinned host memory, as a copy without P2P goes; ``h2d`` / ``d2h``: pinned host memory to
or from one GPU), ``params`` ``src``, ``dst``, ``bytes`` and ``role`` (``bandwidth`` for the large
copy, ``latency`` for the 4-byte one). Those results are the record; everything here is derived
from them: the matrix the Bench pane and ``gpu-tui bench`` show, the ``copies`` object of the run
document's JSON, and the figure of each result.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gpu_tui.core.bench.formulas import GB
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.comm.links import NVLINK, PCIE
from gpu_tui.core.units import format_bytes_exact, format_number, format_reading_percent

COPIES = "copies"
"""The benchmark's name in results, and the word ``--only`` takes for it."""
MODES = ("p2p", "staged")
"""The two GPU-to-GPU matrices; the host row and column (h2d, d2h) belong to both."""
ROLES = ("bandwidth", "latency")
HOST = "host"
LATENCY_BYTES = 4
BANDWIDTH_BYTES = 256 << 20
"""Large enough that a copy over 18 NVLinks (about 0.7 ms) dwarfs its launch."""
COLOUR_NOTE = "colour: against the best of its kind"
"""GPU pairs against the best GPU pair, host copies against the best host copy."""
MODE_TITLES = {
    "p2p": "P2P: direct peer copies",
    "staged": "without P2P: staged through pinned host memory",
}
DEFINITIONS = (
    "rows copy from, columns copy to; GB/s = bytes / median time per copy (GB = 10^9 bytes), "
    "one direction, one copy at a time; p2p = dst.copy_(src) between GPUs with peer access; "
    "staged = src -> pinned host -> dst in chunks, two in flight (what a copy without P2P "
    "does); h2d / d2h = pinned host memory to / from one GPU; latency = time per 4-byte copy; "
    "% of link peak against the NVLink or PCIe link from the topology (links), null where unknown"
)


def copy_results(results: Iterable[BenchResult]) -> list[BenchResult]:
    return [r for r in results if r.benchmark == COPIES]


def _order(name: str) -> tuple[int, int, str]:
    if name == HOST:
        return (2, 0, name)
    found = re.fullmatch(r"[a-z]+:(\d+)", name)
    return (0, int(found.group(1)), name) if found else (1, 0, name)


def short(name: str) -> str:
    """``cuda:3`` → ``GPU3``: headings narrow enough for nine columns in 60."""
    found = re.fullmatch(r"cuda:(\d+)", name)
    return f"GPU{found.group(1)}" if found else name


@dataclass(frozen=True)
class CopyMatrix:
    """One matrix: ``mode`` ``p2p`` or ``staged``, ``role`` ``bandwidth`` or ``latency``."""

    mode: str
    role: str
    names: tuple[str, ...]
    """Sources and destinations alike: the GPUs in order, then ``host`` when it was measured."""
    cells: dict[tuple[str, str], BenchResult] = field(default_factory=dict)

    @property
    def unit(self) -> str:
        return "GB/s" if self.role == "bandwidth" else "µs"

    @property
    def title(self) -> str:
        what = "bandwidth" if self.role == "bandwidth" else "latency"
        return f"Copies {what}, {MODE_TITLES[self.mode]}"

    @property
    def short_title(self) -> str:
        """Short enough for a border 62 columns wide: ``Copies GB/s, P2P``."""
        what = "GB/s" if self.role == "bandwidth" else "latency µs"
        how = "P2P" if self.mode == "p2p" else "no P2P (staged via host)"
        return f"Copies {what}, {how}"

    @property
    def size(self) -> int | None:
        sizes = [int(r.params.get("bytes", 0)) for r in self.cells.values()]
        return max(sizes) if sizes else None

    def result(self, src: str, dst: str) -> BenchResult | None:
        return self.cells.get((src, dst))

    def value(self, src: str, dst: str) -> float | None:
        """GB/s for bandwidth (bytes / median time), µs per copy for latency."""
        found = self.cells.get((src, dst))
        if found is None:
            return None
        if self.role == "latency":
            return found.median_seconds * 1e6
        return float(found.params.get("bytes", 0)) / found.median_seconds / GB

    def percent(self, src: str, dst: str) -> float | None:
        found = self.cells.get((src, dst))
        return None if found is None or self.role != "bandwidth" else found.percent_of_peak

    def best(self, host: bool) -> float | None:
        """The highest GB/s (or lowest µs) among the GPU pairs, or (``host``) the host copies."""
        values = [
            v
            for s, d in self.cells
            if (HOST in (s, d)) == host and (v := self.value(s, d)) is not None
        ]
        if not values:
            return None
        return max(values) if self.role == "bandwidth" else min(values)

    def share(self, src: str, dst: str) -> float | None:
        """How a cell compares with the best of its kind (GPU pairs with GPU pairs, host copies
        with host copies: PCIe is not NVLink): 1 for the best, 0.5 for half its GB/s (or twice
        its latency)."""
        value, best = self.value(src, dst), self.best(HOST in (src, dst))
        if value is None or not best:
            return None
        return value / best if self.role == "bandwidth" else best / value

    def links(self) -> list[tuple[str, str, float, str, list[float]]]:
        """Each link the copies crossed, GPU pairs apart from host copies: who (``GPU pairs``
        or ``host``), the link's text, its peak GB/s, its source, and the % of it reached."""
        found: dict[tuple[str, str], tuple[float, str, list[float]]] = {}
        for (src, dst), result in self.cells.items():
            text = result.params.get("link")
            if not isinstance(text, str) or not result.peak:
                continue
            who = "host" if HOST in (src, dst) else "GPU pairs"
            entry = found.setdefault((who, text), (result.peak, _source(text), []))
            if result.percent_of_peak is not None:
                entry[2].append(result.percent_of_peak)
        return [(who, text, *rest) for (who, text), rest in found.items()]

    def note(self) -> str:
        """How to read the matrix, in a line or two: the size, and for bandwidth each link with
        the % of its peak the copies over it reached."""
        size = format_bytes_exact(self.size or 0)
        if self.role == "latency":
            return f"µs per {size} copy, back to back on the source's stream; rows from, columns to"
        parts = [f"{size} copies, rows from, columns to"]
        for who, text, peak, _, shares in self.links():
            # A range shares its unit, as 20-80 GB/s would.
            most = format_reading_percent(max(shares)) if shares else ""
            reached = f"{min(shares):.0f}-{most} of " if shares else ""
            parts.append(f"{who} {reached}{text} = {format_number(peak)} GB/s")
        if len(parts) == 1:
            parts.append("% of link peak: - (link unknown)")
        return " · ".join(parts)


def _source(link_text: str) -> str:
    found = re.search(r"NVLink (\d\.\d)", link_text)
    if found and found.group(1) in NVLINK:
        return NVLINK[found.group(1)].source
    generation = re.search(r"PCIe Gen(\d+)", link_text)
    if generation and int(generation.group(1)) in PCIE:
        return PCIE[int(generation.group(1))].source
    return ""


def _names(results: list[BenchResult]) -> tuple[str, ...]:
    seen = {str(r.params.get(end)) for r in results for end in ("src", "dst")}
    return tuple(sorted(seen, key=_order))


def build_matrix(results: Iterable[BenchResult], mode: str, role: str) -> CopyMatrix | None:
    """The ``mode`` matrix of ``role`` copies, or None when no such copy was measured. A copy
    measured twice (a rerun) shows its latest result."""
    found = [r for r in copy_results(results) if r.params.get("role", "bandwidth") == role]
    if not any(r.variant == mode for r in found):
        return None
    cells = {
        (str(r.params.get("src")), str(r.params.get("dst"))): r
        for r in found
        if r.variant == mode or r.variant in ("h2d", "d2h")
    }
    return CopyMatrix(mode, role, _names(copy_results(results)), cells)


def matrices(results: Iterable[BenchResult]) -> list[CopyMatrix]:
    """Every matrix the results hold: bandwidth P2P, bandwidth staged, then latency."""
    shown = list(results)
    built = (build_matrix(shown, mode, role) for role in ROLES for mode in MODES)
    return [m for m in built if m is not None]


def _grid(matrix: CopyMatrix | None, names: tuple[str, ...], what: str) -> list[list[Any]]:
    def cell(src: str, dst: str) -> Any:
        if matrix is None:
            return None
        if what == "link":
            found = matrix.result(src, dst)
            return None if found is None else found.params.get("link")
        if what == "percent":
            return matrix.percent(src, dst)
        value = matrix.value(src, dst)
        return None if value is None else round(value, 4)

    return [[cell(src, dst) for dst in names] for src in names]


def summary(results: Iterable[BenchResult]) -> dict[str, Any] | None:
    """The ``copies`` object of the run document's JSON (derived from the results, which stay
    the record): rows are sources, columns destinations, in ``devices`` order; null where a
    copy was not measured (the diagonal, a pair without peer access)."""
    copies = copy_results(results)
    if not copies:
        return None
    names = _names(copies)
    built = {(m.mode, m.role): m for m in matrices(copies)}

    def sizes(role: str) -> int | None:
        found = [int(r.params.get("bytes", 0)) for r in copies if r.params.get("role") == role]
        return max(found) if found else None

    return {
        "definitions": DEFINITIONS,
        "devices": list(names),
        "bandwidth_bytes": sizes("bandwidth"),
        "latency_bytes": sizes("latency"),
        "bandwidth_gbps": {m: _grid(built.get((m, "bandwidth")), names, "") for m in MODES},
        "percent_of_link_peak": {
            m: _grid(built.get((m, "bandwidth")), names, "percent") for m in MODES
        },
        "link": {m: _grid(built.get((m, "bandwidth")), names, "link") for m in MODES},
        "latency_us": {m: _grid(built.get((m, "latency")), names, "") for m in MODES},
        "checks_ok": all((r.checks or {}).get("ok", True) for r in copies),
    }


def _table(matrix: CopyMatrix) -> list[str]:
    heads = [short(n) for n in matrix.names]
    rows: list[list[str]] = [["from\\to", *heads]]
    for src in matrix.names:
        cells = []
        for dst in matrix.names:
            value = matrix.value(src, dst)
            if value is None:
                cells.append("-")
                continue
            percent = matrix.percent(src, dst)
            shown = format_number(value) + (
                f" {format_reading_percent(percent)}" if percent is not None else ""
            )
            checks = matrix.cells[(src, dst)].checks or {}
            cells.append(shown + (" WRONG" if checks.get("ok") is False else ""))
        rows.append([short(src), *cells])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]


def report(results: Iterable[BenchResult], skipped: Iterable[dict[str, Any]] = ()) -> list[str]:
    """The matrices as text for ``gpu-tui bench`` (no colour): GB/s with % of link peak, then
    latency, the links they were read against, and why any copy was not measured."""
    lines: list[str] = []
    built = matrices(results)
    for matrix in built:
        what = f"{format_bytes_exact(matrix.size or 0)} per copy, {matrix.unit}"
        if any(matrix.percent(s, d) is not None for s, d in matrix.cells):
            what += " and % of link peak"
        lines += ["", f"{matrix.title} ({what}):", *_table(matrix)]
    links: dict[str, tuple[float, str]] = {}
    for matrix in built:
        for _, text, peak, source, _ in matrix.links():
            links.setdefault(text, (peak, source))
    if built:
        lines.append("")
        lines.append(f"copies: {DEFINITIONS}")
        for text, (peak, source) in links.items():
            lines.append(f"link {text} = {format_number(peak)} GB/s one direction ({source})")
    reasons = dict.fromkeys(
        str(s.get("reason")) for s in skipped if s.get("benchmark") == COPIES and s.get("reason")
    )
    lines.extend(f"copies not measured: {reason}" for reason in reasons)
    return lines
