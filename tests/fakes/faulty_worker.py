"""The real bench worker with faults on cue: crashes, out-of-memory errors, hangs and garbage.

Tests call :func:`install` (or :func:`python`) to get a ``--bench-python`` that answers the
interpreter check like a real Python and otherwise runs this file with the worker's entry script
and arguments. This file runs that script unchanged; as the worker's modules load, it makes the
benchmark or comm rank that ``$GPU_TUI_BENCH_FAULT`` names misbehave:

- ``KIND:BENCHMARK,...``: as BENCHMARK starts, ``crash`` (SIGKILL), ``oom`` (torch's
  out-of-memory error), ``hang`` (sleeps and never looks at the stop flag), ``spin`` (a Python
  loop that never looks at it), ``gil`` (one C call that holds the GIL for hours) or ``garbage``
  (a line that is not JSON, then the benchmark runs).
- ``comm-KIND:RANK@POINT``: comm rank RANK, right after it says it reached point POINT (0 when
  left out): ``crash``, ``hang`` or ``oom``. torchrun starts every rank through the same
  wrapper (its ``PYTHON_EXEC``), so the ranks get their faults too.
- ``comm-free:BYTES``: every comm rank reports BYTES of free memory, so the cap on message
  sizes can be tested on a machine with plenty.
- ``copies-host:DEVICE,DEVICE,...``: the comm suite's copies run between these CPU "devices"
  with the host clock (the same code as on GPUs but the thin CUDA layer), so that a machine
  without a GPU runs them for real.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import runpy
import shlex
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the worker process itself needs only the standard library
    import pytest

FAULT_VARIABLE = "GPU_TUI_BENCH_FAULT"
HERE = Path(__file__).resolve()
Patch = Callable[[ModuleType], None]


def python(folder: Path) -> str:
    """Write the wrapper "Python" into ``folder``; returns the path to pass as ``python`` or
    ``--bench-python``. The faults come from ``$GPU_TUI_BENCH_FAULT`` when the worker starts."""
    wrapper = folder / "faulty-python"
    real, this = shlex.quote(sys.executable), shlex.quote(str(HERE))
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "-c" ]; then exec {real} "$@"; fi\n'
        'if [ "$1" = "-u" ]; then shift; fi\n'
        f"export PYTHON_EXEC={shlex.quote(str(wrapper))}\n"
        f'exec {real} -u {this} "$@"\n'
    )
    wrapper.chmod(0o755)
    return str(wrapper)


def install(tmp_path: Path, faults: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Set the faults for workers this process starts; returns the wrapper to pass as
    ``python``."""
    monkeypatch.setenv(FAULT_VARIABLE, faults)
    return python(tmp_path)


def misbehave(kind: str, out_of_memory: Callable[[], BaseException]) -> None:
    if kind == "crash":
        os.kill(os.getpid(), signal.SIGKILL)
    if kind == "oom":
        raise out_of_memory()
    if kind == "hang":
        while True:  # a stuck driver call: it never looks at the stop flag
            time.sleep(1)
    if kind == "spin":
        while True:  # a long computation in Python that never looks at the stop flag
            pass
    if kind == "gil":
        sum(range(10**13))  # hours inside one C call that never lets other threads run
    if kind == "garbage":
        sys.stdout.write("this is not JSON\n")
        sys.stdout.flush()


def benchmark_faults(spec: str) -> Patch:
    """Wraps each named benchmark of the worker's ``main`` module in its fault."""
    kinds = {name: kind for kind, _, name in (f.partition(":") for f in spec.split(",") if f)}

    def patch(main: ModuleType) -> None:
        for name, kind in kinds.items():
            main.BENCHMARKS[name] = _failing(main.BENCHMARKS[name], kind)

    return patch


def _failing(benchmark: Callable[..., None], kind: str) -> Callable[..., None]:
    def run(ctx: Any, device: str, params: dict[str, Any]) -> None:
        torch = ctx.torch
        message = "CUDA out of memory. Tried to allocate 80.00 GiB (simulated by a test)"
        misbehave(kind, lambda: getattr(torch, "OutOfMemoryError", MemoryError)(message))
        benchmark(ctx, device, params)

    return run


def rank_fault(spec: str) -> Patch:
    """Makes the rank's channel fail right after the rank says it reached the named point."""
    kind, _, where = spec.removeprefix("comm-").partition(":")
    target, _, point = where.partition("@")
    at = {"rank": int(target), "point": int(point or 0)}

    def patch(comm_rank: ModuleType) -> None:
        channel = comm_rank.Channel
        send = channel.send

        def send_then_fail(self: Any, message_type: str, /, **fields: Any) -> None:
            send(self, message_type, **fields)
            if message_type == "rank" and all(fields.get(k) == v for k, v in at.items()):
                misbehave(kind, lambda: MemoryError("simulated by a test: cannot allocate 80 GiB"))

        channel.send = send_then_fail

    return patch


def free_memory(spec: str) -> Patch:
    """Makes every rank report the free memory ``comm-free:BYTES`` names."""
    free = int(spec.removeprefix("comm-free:"))

    def patch(comm_rank: ModuleType) -> None:
        comm_rank._local_free_bytes = lambda torch, device: free

    return patch


def host_copies(spec: str) -> Patch:
    """Makes the copies run between the CPU "devices" ``copies-host:cpu,cpu`` names."""
    devices = spec.removeprefix("copies-host:").split(",")

    def patch(comm_copies: ModuleType) -> None:
        host = comm_copies.copy_matrix.HostBackend
        comm_copies.backend_and_devices = lambda torch, comm: (host(torch), devices)

    return patch


class _Patched(importlib.abc.Loader):
    """The worker module's own loader, then the patch on the module it made."""

    def __init__(self, loader: importlib.abc.Loader, patch: Patch) -> None:
        self.loader, self.patch = loader, patch

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        self.patch(module)


class _Faults(importlib.abc.MetaPathFinder):
    """Finds the worker's modules as the worker would, and patches the ones that get a fault:
    the worker loads its folder under a private package name, known only as it runs."""

    def __init__(self, folder: str, patches: dict[str, Patch]) -> None:
        self.folder, self.patches = folder, patches

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        patch = self.patches.get(fullname.rpartition(".")[2])
        if patch is None or not path or os.path.abspath(path[0]) != self.folder:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Patched(spec.loader, patch)
        return spec


def main() -> None:
    # as the worker's own entry does: nothing in this folder may shadow a module torch imports
    if sys.path and Path(sys.path[0] or os.curdir).resolve() == HERE.parent:
        del sys.path[0]
    script, *arguments = sys.argv[1:]
    spec = os.environ.get(FAULT_VARIABLE, "")
    patches: dict[str, Patch] = {}
    if spec.startswith("copies-host:"):
        patches["comm_copies"] = host_copies(spec)
    elif spec.startswith("comm-"):
        if arguments == ["rank"]:
            fault = free_memory if spec.startswith("comm-free:") else rank_fault
            patches["comm_rank"] = fault(spec)
    elif spec:
        patches["main"] = benchmark_faults(spec)
    sys.meta_path.insert(0, _Faults(os.path.dirname(os.path.abspath(script)), patches))
    sys.argv = [script, *arguments]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
