"""numpy beside torch on the CPU: "CPU best" is the faster of the two (the rule is stated in
the bench package docstring, ``gpu_tui/core/bench/__init__.py``).

The two libraries often link different BLAS builds (torch: MKL; numpy: OpenBLAS), and on some
CPUs the one a user did not expect wins by 25 % or more. A CPU-vs-GPU comparison is only fair
against the faster. numpy is optional: without it the torch rows stand alone and the
environment record says numpy was not there.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import time
from collections.abc import Callable
from typing import Any

OPENBLAS_IDLE_SECONDS = 0.2
"""After a call, OpenBLAS's threads spin for about 2^28 cycles (~0.1 s) before they sleep."""


def let_numpy_threads_sleep() -> None:
    """Wait until numpy's BLAS threads have stopped spinning before torch is timed again.

    On a 2-vCPU VM a torch 512³ GEMM measured 8.0 ms instead of 0.75 ms when it followed numpy
    rows, every time: the spinning OpenBLAS threads held the cores torch's OpenMP threads
    needed, and as threads of our own process they do not show as foreign load. Waiting keeps
    both libraries' settings as a user has them (OPENBLAS_THREAD_TIMEOUT=4 also cured it, but
    would time numpy as nobody runs it)."""
    time.sleep(OPENBLAS_IDLE_SECONDS)


def numpy_module() -> Any | None:
    """numpy if this interpreter has it (the worker may run under a foreign ``--bench-python``)."""
    try:
        return importlib.import_module("numpy")
    except ImportError:
        return None


def numpy_blas(numpy: Any) -> str | None:
    """The BLAS numpy was built with ("scipy-openblas 0.3.31", "accelerate", ...), or None."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # older numpy prints as well
            config = numpy.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
    except Exception:  # numpy < 1.25 has no "dicts" mode; the layout is not a stable API
        return None
    name, version = blas.get("name"), blas.get("version")
    if not name:
        return None
    return f"{name} {version}" if version else str(name)


def numpy_record() -> dict[str, Any]:
    """What the environment record says about numpy ("One environment record per run")."""
    numpy = numpy_module()
    if numpy is None:
        return {"numpy_version": None, "numpy_blas": None}
    return {"numpy_version": numpy.__version__, "numpy_blas": numpy_blas(numpy)}


def numpy_matmul(numpy: Any, a: Any, b: Any) -> tuple[Callable[[], Any], Any]:
    """``a @ b`` in numpy on the same float32 values as the torch tensors ``a``, ``b``, into a
    preallocated output: the timed callable and the output array."""
    a_np, b_np = a.numpy(), b.numpy()
    out = numpy.empty((a_np.shape[0], b_np.shape[1]), dtype=a_np.dtype)

    def run() -> Any:
        return numpy.matmul(a_np, b_np, out=out)

    return run, out


def numpy_linear(numpy: Any, x: Any, weight: Any, bias: Any) -> tuple[Callable[[], Any], Any]:
    """``x @ Wᵀ + b`` (what ``nn.Linear`` computes) in numpy, into a preallocated output."""
    x_np = x.detach().numpy()
    weight_t = numpy.ascontiguousarray(weight.detach().numpy().T)  # as torch's addmm reads it
    bias_np = bias.detach().numpy()
    out = numpy.empty((x_np.shape[0], weight_t.shape[1]), dtype=x_np.dtype)

    def run() -> Any:
        numpy.matmul(x_np, weight_t, out=out)
        return numpy.add(out, bias_np, out=out)

    return run, out
