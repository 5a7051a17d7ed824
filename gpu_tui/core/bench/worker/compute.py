"""Compute-bound benchmarks: GEMM per dtype, the classic Linear(10000, 10000), MLP, transformer."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from typing import Any

from .context import DTYPES, Context, check
from .cpu_best import let_numpy_threads_sleep, numpy_linear, numpy_matmul, numpy_module

# The rules named in quotes here are stated in the bench package docstring (bench/__init__.py).
# Relative Frobenius error against float64 that each dtype must meet ("Real inputs, checked
# results"). fp8 is compared with the product of its own (quantised) inputs, so only
# accumulation and bf16 output count.
TOLERANCE = {"fp32": 1e-4, "tf32": 1e-2, "fp16": 1e-2, "bf16": 2e-2, "fp8": 3e-2}
CHECK_ROWS = 64
SLOW_CALL_SECONDS = 2.0  # a sweep stops before a size whose single call would take longer
FLUSH_MIN_BYTES = 256_000_000  # triton's do_bench zeroes 256 MB before each call ("cold" rows)
# Caches past L2 that torch does not report: AMD's 256 MB Infinity Cache (MI300X/A, MI350).
EXTRA_CACHE_BYTES = {"gfx942": 256 << 20, "gfx950": 256 << 20}


def flush_bytes(l2_bytes: int | None, gcn_arch: str | None = None) -> int:
    """Flush buffer for "cold" rows: max(256 MB, 2 × the last-level cache) ("Hot or cold
    caches, said which")."""
    extra = EXTRA_CACHE_BYTES.get((gcn_arch or "").split(":")[0], 0)
    return max(FLUSH_MIN_BYTES, 2 * max(l2_bytes or 0, extra))


@contextlib.contextmanager
def fp32_mode(torch: Any, mode: str) -> Iterator[None]:
    """Set CUDA fp32 matmul precision ("ieee" or "tf32") explicitly, restore it after ("fp32
    precision set and recorded")."""
    matmul = torch.backends.cuda.matmul
    try:
        previous = matmul.fp32_precision  # torch >= 2.9
    except AttributeError:
        previous = None
    if previous is not None:
        matmul.fp32_precision = mode
        try:
            yield
        finally:
            matmul.fp32_precision = previous
        return
    legacy = matmul.allow_tf32
    matmul.allow_tf32 = mode == "tf32"
    try:
        yield
    finally:
        matmul.allow_tf32 = legacy


def unsupported(ctx: Context, device: str, dtype: str) -> str | None:
    """Why ``dtype`` GEMM cannot run on ``device``, or None."""
    torch = ctx.torch
    if not ctx.is_cuda(device):
        if dtype in ("tf32", "fp8"):
            return f"{dtype} is a GPU tensor-core format"
        return None
    major, minor = torch.cuda.get_device_capability(device)
    if dtype in ("tf32", "bf16") and major < 8:
        return f"{dtype} needs compute capability 8.0+, this GPU is {major}.{minor}"
    if dtype == "fp8" and ((major, minor) < (8, 9) or not hasattr(torch, "_scaled_mm")):
        return f"fp8 needs compute capability 8.9+ and torch._scaled_mm (GPU is {major}.{minor})"
    return None


def _gemm_operation(ctx: Context, device: str, dtype: str, n: int) -> tuple[Any, Any, Any]:
    """The timed callable, its output getter and the float64 reference of the first rows."""
    torch = ctx.torch
    rows = min(n, CHECK_ROWS)
    if dtype == "fp8":
        a = ctx.randn((n, n), device).to(torch.float8_e4m3fn)
        # _scaled_mm wants B column-major: transpose of a contiguous transpose
        b = ctx.randn((n, n), device).to(torch.float8_e4m3fn).t().contiguous().t()
        one = torch.ones((), device=device, dtype=torch.float32)

        def run() -> Any:
            return torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)

        return run, run, a[:rows].double() @ b.double()
    a = ctx.randn((n, n), device, DTYPES[dtype])
    b = ctx.randn((n, n), device, DTYPES[dtype])
    out = torch.empty((n, n), device=device, dtype=a.dtype)

    def mm() -> Any:
        return torch.mm(a, b, out=out)

    return mm, lambda: out, a[:rows].double() @ b.double()


def gemm(ctx: Context, device: str, params: dict[str, Any]) -> None:
    torch = ctx.torch
    for dtype, sizes in params["dtypes"].items():
        why = unsupported(ctx, device, dtype)
        if why:
            ctx.skip("gemm", device, why, dtype=dtype)
            continue
        last: tuple[int, float] | None = None
        for n in sizes:
            if last is not None and last[1] * (n / last[0]) ** 3 > max(
                SLOW_CALL_SECONDS, ctx.budget
            ):
                ctx.skip(
                    "gemm",
                    device,
                    f"one call would take ~{last[1] * (n / last[0]) ** 3:.0f} s",
                    dtype=dtype,
                    n=n,
                )
                break
            element = (
                1
                if dtype == "fp8"
                else torch.empty((), dtype=getattr(torch, DTYPES[dtype])).element_size()
            )
            if not ctx.fits(device, 3 * n * n * max(element, 2) + CHECK_ROWS * n * 8 * 2):
                ctx.skip("gemm", device, "not enough free memory (25 % margin)", dtype=dtype, n=n)
                break
            ctx.progress(f"GEMM {dtype} n={n} on {device}")
            mode = "tf32" if dtype == "tf32" else "ieee"
            with fp32_mode(torch, mode) if ctx.is_cuda(device) else contextlib.nullcontext():
                run, output, reference = _gemm_operation(ctx, device, dtype, n)
                measured = ctx.time(device, run)
                got = output()[: min(n, CHECK_ROWS)]
                checks = check(torch, got, reference, TOLERANCE[dtype])
                ctx.result(
                    "gemm", "mm", device, dtype, {"m": n, "n": n, "k": n}, measured, checks=checks
                )
                if device == "cpu" and dtype == "fp32" and params.get("numpy"):
                    _gemm_numpy(ctx, n, reference)
            last = (n, measured[0].median)
            run = output = reference = None  # free this size before allocating the next
    gemm_cold(ctx, device, params.get("cold") or {})


def _gemm_numpy(ctx: Context, n: int, reference: Any) -> None:
    """The same fp32 GEMM through numpy's BLAS, so the report can name the "CPU best"."""
    numpy = numpy_module()
    if numpy is None:
        ctx.skip("gemm", "cpu", "numpy is not installed: no numpy row", dtype="fp32", n=n)
        return
    torch = ctx.torch
    ctx.progress(f"GEMM fp32 n={n} on cpu (numpy)")
    run, out = numpy_matmul(numpy, ctx.randn((n, n), "cpu"), ctx.randn((n, n), "cpu"))
    measured = ctx.time("cpu", run)
    let_numpy_threads_sleep()
    got = torch.from_numpy(out[: min(n, CHECK_ROWS)])
    checks = check(torch, got, reference, TOLERANCE["fp32"])
    ctx.result("gemm", "mm-numpy", "cpu", "fp32", {"m": n, "n": n, "k": n}, measured, checks=checks)


def gemm_cold(ctx: Context, device: str, sizes_by_dtype: dict[str, list[int]]) -> None:
    """ "Cold" GEMM rows ("Hot or cold caches, said which"): caches flushed before every
    call, outside the events. GPU only: from torch a CPU's caches cannot be flushed without
    timing the flush too."""
    if not sizes_by_dtype:
        return
    torch = ctx.torch
    if not ctx.is_cuda(device):
        ctx.skip("gemm", device, "cold-cache rows are GPU only", cache="cold")
        return
    props = torch.cuda.get_device_properties(device)
    size = flush_bytes(getattr(props, "L2_cache_size", 0), getattr(props, "gcnArchName", None))
    for dtype, sizes in sizes_by_dtype.items():
        why = unsupported(ctx, device, dtype)
        for n in sizes:
            element = torch.empty((), dtype=getattr(torch, DTYPES.get(dtype, "float32")))
            if why or not ctx.fits(device, size + 3 * n * n * element.element_size()):
                reason = why or "not enough free memory for the flush buffer (25 % margin)"
                ctx.skip("gemm", device, reason, dtype=dtype, n=n, cache="cold")
                continue
            ctx.progress(f"GEMM {dtype} n={n} cold (flush {size >> 20} MiB) on {device}")
            flush = torch.empty(size, dtype=torch.uint8, device=device)
            with fp32_mode(torch, "tf32" if dtype == "tf32" else "ieee"):
                run, output, reference = _gemm_operation(ctx, device, dtype, n)
                measured = ctx.time(device, run, flush=flush)
                checks = check(torch, output()[: min(n, CHECK_ROWS)], reference, TOLERANCE[dtype])
            ctx.result(
                "gemm",
                "mm-cold",
                device,
                dtype,
                {"m": n, "n": n, "k": n, "flush_bytes": size},
                measured,
                checks=checks,
                cache="cold",
            )
            run = output = reference = flush = None


def linear(ctx: Context, device: str, params: dict[str, Any]) -> None:
    """The tutorial's Linear(10000, 10000) on a batch of 1000, done right: a separate model per
    device (``.to()`` would move the CPU one), inference mode, warm-up, sync, named precision."""
    torch = ctx.torch
    batch, width = params["batch"], params["features"]
    for dtype in params["dtypes"]:
        why = unsupported(ctx, device, dtype)
        if why:
            ctx.skip("linear", device, why, dtype=dtype)
            continue
        if not ctx.fits(device, (width * width + 2 * batch * width) * 4 * 2):
            ctx.skip("linear", device, "not enough free memory (25 % margin)", dtype=dtype)
            continue
        ctx.progress(f"Linear({width}, {width}) batch {batch} {dtype} on {device}")
        torch.manual_seed(0)
        model = torch.nn.Linear(width, width).eval()
        x = ctx.randn((batch, width), "cpu")
        rows = min(batch, 8)
        with torch.inference_mode():
            reference = (x[:rows].double() @ model.weight.double().t()) + model.bias.double()
        model = model.to(device=device, dtype=getattr(torch, DTYPES[dtype]))
        x = x.to(device=device, dtype=getattr(torch, DTYPES[dtype]))
        mode = "tf32" if dtype == "tf32" else "ieee"
        with (
            torch.inference_mode(),
            fp32_mode(torch, mode) if ctx.is_cuda(device) else contextlib.nullcontext(),
        ):
            measured = ctx.time(device, functools.partial(model, x))
            checks = check(torch, model(x[:rows]), reference, TOLERANCE[dtype])
        params_out = {
            "batch": batch,
            "in_features": width,
            "out_features": width,
            "threads": torch.get_num_threads() if device == "cpu" else None,
        }
        ctx.result("linear", "forward", device, dtype, params_out, measured, checks=checks)
        if device == "cpu" and dtype == "fp32" and params.get("numpy"):
            _linear_numpy(ctx, model, x, reference, params_out)


def _linear_numpy(
    ctx: Context, model: Any, x: Any, reference: Any, params_out: dict[str, Any]
) -> None:
    """The same Linear through numpy's BLAS: the CPU side of the speedup is the faster of the
    two ("CPU best")."""
    numpy = numpy_module()
    if numpy is None:
        ctx.skip("linear", "cpu", "numpy is not installed: no numpy row", dtype="fp32")
        return
    ctx.progress(f"Linear({params_out['in_features']}, {params_out['out_features']}) numpy")
    run, out = numpy_linear(numpy, x, model.weight, model.bias)
    measured = ctx.time("cpu", run)
    let_numpy_threads_sleep()
    got = ctx.torch.from_numpy(out[: len(reference)])
    checks = check(ctx.torch, got, reference, TOLERANCE["fp32"])
    ctx.result("linear", "forward-numpy", "cpu", "fp32", params_out, measured, checks=checks)


def mlp(ctx: Context, device: str, params: dict[str, Any]) -> None:
    """Linear(d, 4d) → GELU → Linear(4d, d) at several batch sizes: the batching lesson."""
    torch = ctx.torch
    d = params["d"]
    for dtype in params["dtypes"]:
        why = unsupported(ctx, device, dtype)
        if why:
            ctx.skip("mlp", device, why, dtype=dtype)
            continue
        torch.manual_seed(0)
        kind = getattr(torch, DTYPES[dtype])
        model = (
            torch.nn.Sequential(
                torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d)
            )
            .eval()
            .to(device=device, dtype=kind)
        )
        for batch in params["batches"]:
            ctx.progress(f"MLP d={d} batch {batch} {dtype} on {device}")
            x = ctx.randn((batch, d), device, DTYPES[dtype])
            with torch.inference_mode():
                measured = ctx.time(device, functools.partial(model, x), budget=ctx.budget / 2)
            ctx.result("mlp", "forward", device, dtype, {"d": d, "batch": batch}, measured)


def transformer(ctx: Context, device: str, params: dict[str, Any]) -> None:
    """One nn.TransformerEncoderLayer forward pass (eval, inference mode)."""
    torch = ctx.torch
    d, heads, seq = params["d"], params["heads"], params["seq"]
    for dtype in params["dtypes"]:
        why = unsupported(ctx, device, dtype)
        if why:
            ctx.skip("transformer", device, why, dtype=dtype)
            continue
        torch.manual_seed(0)
        layer = torch.nn.TransformerEncoderLayer(d, heads, 4 * d, batch_first=True, dropout=0.0)
        layer = layer.eval().to(device=device, dtype=getattr(torch, DTYPES[dtype]))
        for batch in params["batches"]:
            ctx.progress(f"Transformer layer d={d} S={seq} batch {batch} {dtype} on {device}")
            x = ctx.randn((batch, seq, d), device, DTYPES[dtype])
            with torch.inference_mode():
                measured = ctx.time(device, functools.partial(layer, x), budget=ctx.budget / 2)
            ctx.result(
                "transformer",
                "encoder-layer",
                device,
                dtype,
                {"d": d, "heads": heads, "seq": seq, "batch": batch},
                measured,
            )
