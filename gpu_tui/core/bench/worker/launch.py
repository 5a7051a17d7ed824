"""Entry script for the bench worker: loads this folder as a package under a private name."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

PACKAGE = "gpu_tui_bench_worker"


def _run() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    # Python put this folder first on sys.path; our module names (stats, timing, ...) must never
    # shadow a library torch imports, so drop it and load the folder under a private package name.
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == here:
        del sys.path[0]
    spec = importlib.util.spec_from_file_location(
        PACKAGE, os.path.join(here, "__init__.py"), submodule_search_locations=[here]
    )
    if spec is None or spec.loader is None:
        sys.stderr.write(f"gpu-tui bench worker: cannot load {here}\n")
        return 4
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    spec.loader.exec_module(package)
    main = importlib.import_module(PACKAGE + ".main")
    return int(main.main())


if __name__ == "__main__":
    sys.exit(_run())
