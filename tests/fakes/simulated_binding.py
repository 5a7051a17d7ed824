"""nvidia-ml-py's own ``pynvml`` over the simulated driver, for a subprocess.

A subprocess cannot be handed a driver object, so :func:`install_as_pynvml` writes a
``pynvml.py`` that, imported, loads the real binding from site-packages and installs a
:class:`~tests.fakes.simulated_driver.SimulatedLibrary` under it: put its folder first on
``PYTHONPATH`` (:func:`environment` builds the variables) and choose the reading, branch and
faults with these variables::

    GPU_TUI_SIMULATED_NVML_READING=hgx_h100_8gpu        # the recorded node (default: h200)
    GPU_TUI_SIMULATED_NVML_ADD=hgx_h100_8gpu_topology   # readings merged in (comma-separated)
    GPU_TUI_SIMULATED_NVML_BRANCH=r535                  # default: the one it was recorded on
    GPU_TUI_SIMULATED_NVML_HANG=nvmlInit                # these calls block for good
    GPU_TUI_SIMULATED_NVML_FAULTS='[["lose", 1, {"at_handle": true}],
                                    ["fail", 0, "nvmlDeviceGetName", "NoPermission"]]'
                                                        # SimulatedLibrary fault methods, in
                                                        # order: name, arguments, a dict last
                                                        # for keyword arguments
    GPU_TUI_SIMULATED_NVML_IMPORT=hang                  # `import pynvml` itself blocks for good
    GPU_TUI_SIMULATED_NVML_IMPORT=OSError               # … or raises (OSError, RuntimeError,
                                                        #   SyntaxError, ImportError), as a
                                                        #   broken install does

A hang never ends in a subprocess: the process's exit ends it.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import sys
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from tests.fakes.simulated_driver import SimulatedLibrary, install

READING_VARIABLE = "GPU_TUI_SIMULATED_NVML_READING"
ADD_VARIABLE = "GPU_TUI_SIMULATED_NVML_ADD"
BRANCH_VARIABLE = "GPU_TUI_SIMULATED_NVML_BRANCH"
HANG_VARIABLE = "GPU_TUI_SIMULATED_NVML_HANG"
FAULTS_VARIABLE = "GPU_TUI_SIMULATED_NVML_FAULTS"
IMPORT_VARIABLE = "GPU_TUI_SIMULATED_NVML_IMPORT"
VARIABLES = (
    READING_VARIABLE,
    ADD_VARIABLE,
    BRANCH_VARIABLE,
    HANG_VARIABLE,
    FAULTS_VARIABLE,
    IMPORT_VARIABLE,
)
DEFAULT_READING = "h200"

IMPORT_ERRORS: dict[str, BaseException] = {
    "OSError": OSError(5, "Input/output error", "/usr/lib/python3/dist-packages/pynvml.py"),
    "RuntimeError": RuntimeError("pynvml: cannot load the NVML symbols table"),
    "SyntaxError": SyntaxError(
        "invalid syntax", ("/usr/lib/python3/dist-packages/pynvml.py", 812, 9, "def nvmlInit(:\n")
    ),
    "ImportError": ImportError(
        "cannot import name 'c_nvmlMemory_t' from partially initialized module"
    ),
}
"""What a broken nvidia-ml-py install raises at ``import pynvml``, by kind."""

CHECKOUT = Path(__file__).resolve().parents[2]

_SHIM = '''\
"""nvidia-ml-py's pynvml over a simulated driver (tests/fakes/simulated_binding.py)."""
import sys

if {checkout!r} not in sys.path:
    sys.path.append({checkout!r})

from tests.fakes.simulated_binding import binding_from_environment

sys.modules[__name__] = binding_from_environment({folder!r})
'''


def install_as_pynvml(directory: Path) -> Path:
    """Write ``pynvml.py`` into ``directory``: with that folder first on ``PYTHONPATH`` a
    subprocess's ``import pynvml`` is the real binding over the driver the variables above
    describe."""
    directory.mkdir(parents=True, exist_ok=True)
    shim = directory / "pynvml.py"
    shim.write_text(_SHIM.format(checkout=str(CHECKOUT), folder=str(directory.resolve())))
    return shim


def environment(
    shim_folder: Path,
    *,
    reading: str | None = None,
    add: Iterable[str] = (),
    branch: str | None = None,
    hang: Iterable[str] = (),
    faults: Iterable[Sequence[Any]] = (),
    import_fault: str | None = None,
    base: dict[str, str] | None = None,
) -> dict[str, str]:
    """A subprocess environment (``base``, default ``os.environ``, with any earlier choice of
    these variables left out) whose ``import pynvml`` gives the described driver."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in VARIABLES}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(shim_folder), env.get("PYTHONPATH", "")]))
    chosen = {
        READING_VARIABLE: reading,
        ADD_VARIABLE: ",".join(add),
        BRANCH_VARIABLE: branch,
        HANG_VARIABLE: ",".join(hang),
        FAULTS_VARIABLE: json.dumps([list(fault) for fault in faults]) if faults else None,
        IMPORT_VARIABLE: import_fault,
    }
    return env | {k: v for k, v in chosen.items() if v}


def real_binding(shim_folder: str) -> ModuleType:
    """nvidia-ml-py's ``pynvml``, found on ``sys.path`` past the shim's folder and executed as
    ``sys.modules["pynvml"]`` (the binding looks itself up there to make its error classes)."""
    shim = Path(shim_folder).resolve()
    path = [entry for entry in sys.path if Path(entry or ".").resolve() != shim]
    spec = importlib.machinery.PathFinder.find_spec("pynvml", path)
    if spec is None or spec.loader is None:
        raise ImportError("nvidia-ml-py is not installed: no pynvml past the simulated one")
    module = importlib.util.module_from_spec(spec)
    sys.modules["pynvml"] = module
    spec.loader.exec_module(module)
    return module


def apply_faults(library: SimulatedLibrary, faults: Iterable[Sequence[Any]]) -> None:
    """Call each ``[method, *arguments, {keyword arguments}?]`` on ``library``."""
    for name, *arguments in faults:
        keywords = arguments.pop() if arguments and isinstance(arguments[-1], dict) else {}
        getattr(library, name)(*arguments, **keywords)


def binding_from_environment(shim_folder: str) -> ModuleType:
    """What the written ``pynvml.py`` becomes when imported (it runs inside the import)."""
    fault = os.environ.get(IMPORT_VARIABLE, "")
    if fault == "hang":
        threading.Event().wait()  # an import stuck for good, holding the import lock of pynvml
    if fault:
        raise IMPORT_ERRORS[fault]
    binding = real_binding(shim_folder)
    library = SimulatedLibrary.load(
        os.environ.get(READING_VARIABLE) or DEFAULT_READING,
        os.environ.get(BRANCH_VARIABLE) or None,
    )
    for extra in filter(None, os.environ.get(ADD_VARIABLE, "").split(",")):
        library.add_readings(extra.strip())
    install(binding, library)
    apply_faults(library, json.loads(os.environ.get(FAULTS_VARIABLE) or "[]"))
    for function in filter(None, os.environ.get(HANG_VARIABLE, "").split(",")):
        library.hang(function.strip())
    return binding
