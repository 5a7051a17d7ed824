"""Memory-bound benchmarks: STREAM-style bandwidth, host↔device copies, kernel-launch latency.

**STREAM kernels into preallocated arrays** — bandwidth is measured with STREAM's four
kernels (copy, scale, add, triad) writing into arrays allocated once before timing, so no
allocation is timed, and bytes are counted as STREAM counts them. The other rules quoted here
are stated in the bench package docstring, ``gpu_tui/core/bench/__init__.py``.
"""

from __future__ import annotations

import functools
from typing import Any

from .context import Context, check
from .sysinfo import last_level_cache_bytes

STREAM_SCALAR = 3.0
CHECK_ELEMENTS = 4096


def _cache_bytes(ctx: Context, device: str) -> int:
    if ctx.is_cuda(device):
        return int(getattr(ctx.torch.cuda.get_device_properties(device), "L2_cache_size", 0) or 0)
    return last_level_cache_bytes() or 0


def bandwidth(ctx: Context, device: str, params: dict[str, Any]) -> None:
    """STREAM copy/scale/add/triad into preallocated arrays, each ≥ 4× the last cache ("Hot or
    cold caches, said which")."""
    torch = ctx.torch
    cache = _cache_bytes(ctx, device)
    # an explicit size wins (tests, small machines); otherwise ≥ 4× the cache and ≥ 64 MiB
    size = int(params.get("array_bytes") or max(4 * cache, 64 << 20))
    while size > (1 << 20) and not ctx.fits(device, 3 * size):
        size //= 2
    warnings = []
    if size < 4 * cache:
        warnings.append(f"arrays of {size >> 20} MiB are under 4x the {cache >> 20} MiB cache")
    count = size // 4
    ctx.progress(f"memory bandwidth, 3 x {size >> 20} MiB on {device}")
    a, b, c = (torch.empty(count, device=device).uniform_() for _ in range(3))
    kernels = {
        "copy": functools.partial(c.copy_, a),
        "scale": functools.partial(torch.mul, c, STREAM_SCALAR, out=b),
        "add": functools.partial(torch.add, a, b, out=c),
        "triad": functools.partial(torch.add, b, c, alpha=STREAM_SCALAR, out=a),
    }
    outputs = {"copy": c, "scale": b, "add": c, "triad": a}
    for name in params["kernels"]:
        ctx.progress(f"memory bandwidth: {name} on {device}")
        measured = ctx.time(device, kernels[name])
        # every kernel leaves its inputs unchanged, so the check holds after any number of runs
        a64, b64, c64 = (x[:CHECK_ELEMENTS].double() for x in (a, b, c))
        expected = {
            "copy": a64,
            "scale": STREAM_SCALAR * c64,
            "add": a64 + b64,
            "triad": b64 + STREAM_SCALAR * c64,
        }[name]
        checks = check(torch, outputs[name][:CHECK_ELEMENTS], expected, 1e-6)
        ctx.result(
            "bandwidth",
            name,
            device,
            "fp32",
            {"array_bytes": size},
            measured,
            checks=checks,
            warnings=warnings,
        )


def transfer(ctx: Context, device: str, params: dict[str, Any]) -> None:
    """Host↔device copies over a size sweep, pinned and pageable, each direction
    ("Host↔device copies, pinned and pageable")."""
    torch = ctx.torch
    sizes = [s for s in params["sizes"] if ctx.fits(device, s) and ctx.fits("cpu", 2 * s)]
    for dropped in sorted(set(params["sizes"]) - set(sizes)):
        ctx.skip("transfer", device, "not enough free memory (25 % margin)", bytes=dropped)
    if not sizes:
        return
    largest = max(sizes) // 4
    # pinned memory is allocated once: page-locking per call would be timed otherwise
    pinned = torch.empty(largest, pin_memory=True).uniform_()
    pageable = torch.empty(largest).uniform_()
    on_device = torch.empty(largest, device=device)
    for size in sizes:
        count = size // 4
        for memory, host in (("pinned", pinned[:count]), ("pageable", pageable[:count])):
            target = on_device[:count]
            asynchronous = memory == "pinned"  # non_blocking from pageable memory is synchronous
            for direction in ("h2d", "d2h"):
                ctx.progress(f"{direction} {memory} {size} bytes on {device}")
                if direction == "h2d":

                    def run(t: Any = target, h: Any = host, nb: bool = asynchronous) -> Any:
                        return t.copy_(h, non_blocking=nb)
                else:

                    def run(t: Any = target, h: Any = host, nb: bool = asynchronous) -> Any:
                        return h.copy_(t, non_blocking=nb)

                measured = ctx.time(device, run, budget=ctx.budget / 4)
                ctx.result(
                    "transfer",
                    f"{direction}-{memory}",
                    device,
                    None,
                    {"bytes": size},
                    measured,
                    scope="transfer",
                )


def launch(ctx: Context, device: str, params: dict[str, Any]) -> None:
    """The fixed cost of one tiny operation: dispatch on CPU; enqueue, round trip, graph replay
    and ``.item()`` on a GPU (reference: kernel-launch latency)."""
    torch = ctx.torch
    t = torch.zeros(1, device=device)
    if device == "cpu":
        ctx.progress("op dispatch on cpu")
        measured = ctx.time(device, lambda: t.add_(1.0), budget=ctx.budget / 2)
        ctx.result("launch", "dispatch", device, "fp32", {"kernels": 1}, measured, scope="host")
        return
    ctx.progress(f"launch latency on {device}")

    def round_trip() -> None:
        t.add_(1.0)
        ctx.sync(device)

    rows = [
        ("enqueue", lambda: t.add_(1.0)),  # the host clock syncs only at block edges: enqueue cost
        ("round-trip", round_trip),
        ("item", lambda: t.add_(1.0).item()),
    ]
    for variant, fn in rows:
        measured = ctx.time(device, fn, host=True, budget=ctx.budget / 4)
        ctx.result("launch", variant, device, "fp32", {"kernels": 1}, measured, scope="host")
    if ctx.is_cuda(device):
        kernels = int(params.get("graph_kernels", 100))
        stream = torch.cuda.Stream(device)
        stream.wait_stream(torch.cuda.current_stream(device))
        with torch.cuda.stream(stream):  # warm up on a side stream before capture, as documented
            t.add_(1.0)
        torch.cuda.current_stream(device).wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(kernels):
                t.add_(1.0)
        measured = ctx.time(device, graph.replay, budget=ctx.budget / 4)
        ctx.result("launch", "graph-replay", device, "fp32", {"kernels": kernels}, measured)
