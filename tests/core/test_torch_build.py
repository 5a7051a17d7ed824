"""torch's CUDA build, read for this Python and for another (``--bench-python``) from torch's
``version.py``, with torch never imported."""

from __future__ import annotations

import sys
from pathlib import Path

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.torch_build import torch_cuda


def python_with_torch(tmp_path: Path, version_py: str) -> str:
    """A "Python" whose torch is a folder holding ``version_py`` (importing it would fail)."""
    torch = tmp_path / "site" / "torch"
    torch.mkdir(parents=True)
    (torch / "__init__.py").write_text("raise ImportError('never imported')\n")
    (torch / "version.py").write_text(version_py)
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={tmp_path / "site"} exec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def test_another_python_s_cpu_and_cuda_builds_are_told_apart(tmp_path: Path) -> None:
    cpu = python_with_torch(tmp_path / "cpu", "__version__ = '2.5.0+cpu'\ncuda = None\n")
    assert torch_cuda(cpu) is None
    cuda = "from typing import Optional\ncuda: Optional[str] = '12.4'\n"
    assert torch_cuda(python_with_torch(tmp_path / "cuda", cuda)) == "12.4"


def test_a_python_without_torch_or_that_does_not_run_is_unknown(tmp_path: Path) -> None:
    assert isinstance(torch_cuda(str(tmp_path / "no-python")), Unknown)
    bare = tmp_path / "bare"
    bare.write_text(f'#!/bin/sh\nexec {sys.executable} -S -I "$@"\n')  # no site-packages
    bare.chmod(0o755)
    found = torch_cuda(str(bare))
    assert isinstance(found, Unknown)
    assert "not installed" in found.reason
