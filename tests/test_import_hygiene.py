"""Import hygiene. At run time: the core and the test doubles never load Textual, Rich widgets or
torch, and the TUI process never loads torch. In the import graph: the layers import downwards
only, and no modules import one another in a loop (the contracts: ``[tool.importlinter]`` in
pyproject.toml)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

FORBIDDEN_IN_CORE = ("textual", "textual_plotext", "torch", "rich.console", "plotext")


def is_forbidden(module: str) -> bool:
    return any(module == bad or module.startswith(bad + ".") for bad in FORBIDDEN_IN_CORE)


def loaded_modules(code: str) -> set[str]:
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    return set(json.loads(output.splitlines()[-1]))


def test_importing_the_whole_core_loads_no_ui_and_no_torch() -> None:
    code = (
        "import importlib, pkgutil, gpu_tui.core as core\n"
        "for info in pkgutil.walk_packages(core.__path__, 'gpu_tui.core.'):\n"
        "    if not info.name.endswith('.worker'):\n"
        "        importlib.import_module(info.name)\n"
    )
    modules = loaded_modules(code)
    leaked = {m for m in modules if is_forbidden(m)}
    assert not leaked, f"gpu_tui.core imported {sorted(leaked)}"
    assert "gpu_tui.core.devices.cpu" in modules  # the walk really imported the core


def test_the_tui_app_does_not_import_torch() -> None:
    code = (
        "from gpu_tui.ui.app import make_app, AppConfig\n"
        "from gpu_tui.ui.pane_registry import PANES\n"
        "from gpu_tui.ui.app import load_pane\n"
        "for spec in PANES: load_pane(spec)\n"
        "make_app(AppConfig())\n"
    )
    modules = loaded_modules(code)
    assert "textual" in modules
    assert not any(m == "torch" or m.startswith("torch.") for m in modules)


# --- The import graph: the layers import downwards only, and no loops ----------------------------

ROOT = Path(__file__).resolve().parent.parent


def test_the_import_contracts_are_kept() -> None:
    """The contracts in pyproject.toml, checked by import-linter. In a subprocess: its entry point
    configures logging for the whole process and puts the working directory on sys.path."""
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            *("--no-cache", "--no-logo"),  # no cache left in the repository
            *("--config", str(ROOT / "pyproject.toml")),
        ],
        cwd=ROOT,  # the gpu_tui it checks is this checkout's
        capture_output=True,
        text=True,
    )
    if result.returncode:
        pytest.fail(result.stdout + result.stderr, pytrace=False)  # the report, not a traceback


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("gpu_tui", cache_dir=None)


def test_the_graph_sees_deferred_imports(graph: grimp.ImportGraph) -> None:
    """A function-level import counts: ``devices/__init__`` imports its readers inside
    ``discover``. import-linter builds its graph with the same grimp."""
    assert graph.direct_import_exists(
        importer="gpu_tui.core.devices", imported="gpu_tui.core.devices.cpu"
    )


def test_no_import_cycles(graph: grimp.ImportGraph) -> None:
    """Checked here, not as a contract: import-linter's acyclic_siblings squashes each package into
    one node, and the core's packages do import one another (bench and comm, devices and monitor)
    through modules that make no loop."""
    loops = sorted(
        " -> ".join((module, *chain))
        for module in graph.modules
        for imported in graph.find_modules_directly_imported_by(module)
        if (chain := graph.find_shortest_chain(importer=imported, imported=module))
    )
    assert not loops, "modules that import one another in a loop:\n" + "\n".join(loops)
