"""The teaching comparisons: "add up 10,000 numbers" and the CPU/GPU crossover sweep."""

from __future__ import annotations

import contextlib
import functools
import math
import random
from typing import Any

from .compute import fp32_mode
from .context import Context
from .cpu_best import let_numpy_threads_sleep, numpy_module


def reduction(ctx: Context, device: str, params: dict[str, Any]) -> None:
    """Sum N numbers: a Python loop, vectorised CPU code, and on a GPU resident vs end to end."""
    torch = ctx.torch
    n = int(params["n"])
    data = [random.Random(0).uniform(-1.0, 1.0) for _ in range(n)]
    exact = math.fsum(data)
    host64 = torch.tensor(data, dtype=torch.float64)
    tag = {"n": n}

    def report(variant: str, fn: Any, dtype: str, *, on: str, host: bool, scope: str) -> None:
        ctx.progress(f"sum of {n} numbers: {variant}")
        measured = ctx.time(on, fn, host=host, budget=ctx.budget / 2)
        got = float(fn())
        error = abs(got - exact)
        # float32 rounding alone allows ~n·2^-24 of the magnitude summed
        tolerance = (1e-9 if dtype == "fp64" else 1e-6 * n) * max(1.0, sum(map(abs, data[:1000])))
        checks = {"abs_error": error, "tolerance": tolerance, "ok": error <= tolerance}
        ctx.result("reduction", variant, on, dtype, tag, measured, checks=checks, scope=scope)

    if device == "cpu":

        def python_loop() -> float:
            total = 0.0
            for value in data:
                total += value
            return total

        report("python-loop", python_loop, "fp64", on="cpu", host=True, scope="host")
        report("builtin-sum", lambda: sum(data), "fp64", on="cpu", host=True, scope="host")
        report("torch-sum", lambda: host64.sum(), "fp64", on="cpu", host=True, scope="resident")
        numpy = numpy_module()
        if numpy is not None:
            array = numpy.asarray(data, dtype=numpy.float64)
            report("numpy-sum", lambda: array.sum(), "fp64", on="cpu", host=True, scope="resident")
            let_numpy_threads_sleep()
        if params.get("with_conversion"):
            report(
                "list-to-tensor-sum",
                lambda: torch.tensor(data, dtype=torch.float64).sum(),
                "fp64",
                on="cpu",
                host=True,
                scope="end-to-end",
            )
        return
    # MPS has no float64; elsewhere keep float64 so every row adds up the same numbers
    dtype = torch.float32 if device == "mps" else torch.float64
    label = "fp32" if device == "mps" else "fp64"
    resident = host64.to(device=device, dtype=dtype)
    report("gpu-resident", lambda: resident.sum(), label, on=device, host=False, scope="resident")
    report(
        "gpu-resident-item",
        lambda: resident.sum().item(),
        label,
        on=device,
        host=True,
        scope="resident",
    )
    report(
        "gpu-end-to-end",
        lambda: host64.to(device=device, dtype=dtype).sum().item(),
        label,
        on=device,
        host=True,
        scope="end-to-end",
    )


def _mm_synchronised(ctx: Context, device: str, a: Any, b: Any) -> None:
    """Resident time as a user sees it: launch, compute, wait (the ~10 µs floor included)."""
    ctx.torch.mm(a, b)
    ctx.sync(device)


def _mm_end_to_end(torch: Any, device: str, a: Any, b: Any) -> Any:
    """Inputs start on the host and the result comes back (``.cpu()`` waits for it)."""
    return torch.mm(a.to(device), b.to(device)).cpu()


def crossover(ctx: Context, device: str, params: dict[str, Any]) -> None:
    """fp32 GEMM time against size: CPU (torch, numpy) vs GPU resident and end to end.
    gpu-tui finds the crossover (the smallest n where the GPU is faster) from these rows."""
    torch = ctx.torch
    budget = ctx.budget * float(params.get("budget_share", 0.5))
    numpy = numpy_module() if device == "cpu" else None
    for n in params["sizes"]:
        a_host = ctx.randn((n, n), "cpu")
        b_host = ctx.randn((n, n), "cpu")
        ctx.progress(f"crossover GEMM n={n} on {device}")
        size = {"n": n}
        if device == "cpu":
            out = torch.empty((n, n))
            measured = ctx.time(
                "cpu", functools.partial(torch.mm, a_host, b_host, out=out), budget=budget
            )
            ctx.result("crossover", "cpu-torch", "cpu", "fp32", size, measured)
            if numpy is not None:
                a_np, b_np, out_np = a_host.numpy(), b_host.numpy(), numpy.empty((n, n), "float32")
                measured = ctx.time(
                    "cpu", functools.partial(numpy.matmul, a_np, b_np, out=out_np), budget=budget
                )
                let_numpy_threads_sleep()
                ctx.result("crossover", "cpu-numpy", "cpu", "fp32", size, measured)
            continue
        a, b = a_host.to(device), b_host.to(device)
        ieee = fp32_mode(torch, "ieee") if ctx.is_cuda(device) else contextlib.nullcontext()
        # fp32 on both sides, stated: TF32 would be a different row ("A speedup names both
        # sides", in the bench package docstring, bench/__init__.py)
        with ieee:
            resident = functools.partial(_mm_synchronised, ctx, device, a, b)
            measured = ctx.time(device, resident, host=True, budget=budget)
            ctx.result("crossover", "gpu-resident", device, "fp32", size, measured)
            end_to_end = functools.partial(_mm_end_to_end, torch, device, a_host, b_host)
            measured = ctx.time(device, end_to_end, host=True, budget=budget)
            ctx.result(
                "crossover", "gpu-end-to-end", device, "fp32", size, measured, scope="end-to-end"
            )
