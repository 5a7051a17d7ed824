"""Which CUDA a Python's torch was built for, read from torch's ``version.py`` without importing
torch: an import takes seconds and sets CUDA up, in a process (the TUI's) that has no use for it."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
from pathlib import Path

from gpu_tui.core.devices.fields import Unknown

FIND_TORCH = (
    "import importlib.util as u; s = u.find_spec('torch'); "
    "print(*((s.submodule_search_locations or ()) if s else ()), sep='\\n')"
)
"""Run by another Python: where its torch is, found without importing it."""


def torch_cuda(python: str | None = None) -> str | Unknown | None:
    """The CUDA version torch was built for (None: a CPU build; Unknown: no torch, or it could
    not be told). ``python``: another interpreter's torch (``--bench-python``), asked where its
    torch lies; left out, this process's."""
    folders = _folders(python)
    if isinstance(folders, Unknown):
        return folders
    if not folders:
        return Unknown("torch is not installed")
    try:
        tree = ast.parse((Path(folders[0]) / "version.py").read_text())
    except (OSError, SyntaxError, ValueError):
        return Unknown("torch's version file could not be read")
    for node in tree.body:
        target: ast.expr | None = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and target.id == "cuda" and isinstance(value, ast.Constant):
            return None if value.value is None else str(value.value)
    return Unknown("torch's version file names no CUDA version")


def _folders(python: str | None) -> list[str] | Unknown:
    if python is None:
        try:
            spec = importlib.util.find_spec("torch")
        except (ImportError, ValueError):
            spec = None
        return list(spec.submodule_search_locations or ()) if spec is not None else []
    try:
        found = subprocess.run(
            [python, "-c", FIND_TORCH], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.SubprocessError) as error:
        return Unknown(f"{python} could not be asked where its torch is ({error})")
    if found.returncode != 0:
        return Unknown(f"{python} could not be asked where its torch is")
    return [line for line in found.stdout.splitlines() if line.strip()]
