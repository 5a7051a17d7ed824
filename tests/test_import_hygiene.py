"""The core never loads Textual, Rich widgets or torch; the TUI process never loads torch."""

from __future__ import annotations

import json
import subprocess
import sys

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
