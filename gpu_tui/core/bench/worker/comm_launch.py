"""Entry script of the comm suite: ``comm_launch.py TORCHRUN-ARGS...`` runs the launcher, and the
launcher starts this script again as ``comm_launch.py rank`` for each rank.

Like ``launch.py``, it loads this folder as a package under a private name, so that our module
names never shadow a library torch imports.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

PACKAGE = "gpu_tui_bench_worker"


def _package() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == here:
        del sys.path[0]
    spec = importlib.util.spec_from_file_location(
        PACKAGE, os.path.join(here, "__init__.py"), submodule_search_locations=[here]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"gpu-tui comm worker: cannot load {here}")
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    spec.loader.exec_module(package)


def _run() -> int:
    _package()
    if sys.argv[1:] == ["rank"]:
        return int(importlib.import_module(PACKAGE + ".comm_rank").main())
    agent = importlib.import_module(PACKAGE + ".comm_agent")
    return int(agent.main(sys.argv[1:], os.path.abspath(__file__)))


if __name__ == "__main__":
    sys.exit(_run())
