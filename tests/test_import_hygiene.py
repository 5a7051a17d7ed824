"""The core never loads Textual, Rich widgets or torch; the TUI process never loads torch."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

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


def test_the_test_doubles_load_no_ui_and_no_torch() -> None:
    """gpu_tui.testing serves headless tests and scripts too: the core's rule holds for it."""
    code = (
        "import importlib, pkgutil, gpu_tui.testing as testing\n"
        "for info in pkgutil.walk_packages(testing.__path__, 'gpu_tui.testing.'):\n"
        "    importlib.import_module(info.name)\n"
    )
    modules = loaded_modules(code)
    leaked = {m for m in modules if is_forbidden(m)}
    assert not leaked, f"gpu_tui.testing imported {sorted(leaked)}"
    assert "gpu_tui.testing.fake_nvml" in modules  # the walk really imported it


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


# --- The import graph: no loops, and the layers import downwards only ---------------------------

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "gpu_tui"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package_modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


def _owning_module(name: str, modules: dict[str, Path]) -> str | None:
    """The module that defines ``name``: itself, or the nearest enclosing module (so that an
    imported function resolves to the module it comes from)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imported_names(tree: ast.AST, module: str, is_package: bool) -> Iterator[str]:
    """Every absolute name an import statement anywhere in ``tree`` names: at module level,
    inside functions and under ``if TYPE_CHECKING`` alike (a deferred import is still a
    dependency). ``from a import b`` yields ``a.b``: the module ``b`` when there is one, else a
    name that ``_owning_module`` resolves to ``a``."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph() -> dict[str, set[str]]:
    """``gpu_tui`` module → the ``gpu_tui`` modules it imports (itself left out)."""
    modules = _package_modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = set()
        for name in _imported_names(tree, module, path.name == "__init__.py"):
            if name == "gpu_tui" or name.startswith("gpu_tui."):
                owner = _owning_module(name, modules)
                if owner is not None and owner != module:
                    targets.add(owner)
        graph[module] = targets
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, run
    iteratively): each is a set of modules that import one another in a loop."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = lowlink[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = lowlink[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    advanced = True
                    break
                if successor in on_stack:
                    lowlink[node] = min(lowlink[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                lowlink[parent] = min(lowlink[parent], lowlink[node])
            if lowlink[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def _in(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _imports_from(graph: dict[str, set[str]], importers: str, *targets: str) -> list[str]:
    return sorted(
        f"{module} -> {target}"
        for module, imported in graph.items()
        if _in(module, importers)
        for target in imported
        if _in(target, *targets)
    )


def test_the_cycle_finder_finds_a_loop() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]


def test_the_graph_sees_deferred_imports() -> None:
    """A function-level import counts: ``devices/__init__`` imports its readers inside
    ``discover``."""
    assert "gpu_tui.core.devices.cpu" in import_graph()["gpu_tui.core.devices"]


def test_no_import_cycles() -> None:
    cycles = import_cycles(import_graph())
    assert not cycles, "modules that import one another in a loop:\n" + "\n".join(
        " <-> ".join(cycle) for cycle in cycles
    )


def test_the_core_imports_no_layer_above_it() -> None:
    upward = _imports_from(
        import_graph(),
        "gpu_tui.core",
        "gpu_tui.ui",
        "gpu_tui.commands",
        "gpu_tui.cli",
        "gpu_tui.testing",
    )
    assert not upward, "gpu_tui.core imports from above it:\n" + "\n".join(upward)


def test_the_test_doubles_import_only_the_core() -> None:
    graph = import_graph()
    outside = sorted(
        f"{module} -> {target}"
        for module, imported in graph.items()
        if _in(module, "gpu_tui.testing")
        for target in imported
        if not _in(target, "gpu_tui.core", "gpu_tui.testing")
    )
    assert not outside, "gpu_tui.testing imports more than the core:\n" + "\n".join(outside)


def test_commands_and_ui_do_not_import_each_other() -> None:
    graph = import_graph()
    across = _imports_from(graph, "gpu_tui.commands", "gpu_tui.ui") + _imports_from(
        graph, "gpu_tui.ui", "gpu_tui.commands"
    )
    assert not across, "gpu_tui.commands and gpu_tui.ui import each other:\n" + "\n".join(across)


def test_nothing_below_the_cli_imports_it() -> None:
    below = sorted(
        f"{module} -> gpu_tui.cli"
        for module, imported in import_graph().items()
        if module not in ("gpu_tui.cli", "gpu_tui.__main__") and "gpu_tui.cli" in imported
    )
    assert not below, "modules below gpu_tui.cli import it:\n" + "\n".join(below)
