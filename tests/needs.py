"""What a test needs that a developer's machine may lack: skipped there with the reason, but in
CI (``CI=true``, which installs everything) a missing piece fails, so no test skips its way to
green."""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import NoReturn

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def missing(reason: str) -> NoReturn:
    """Skip with ``reason``, or fail with it in CI."""
    if in_ci():
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(reason)


def module(name: str, why: str = "the [torch] extra") -> ModuleType:
    """Import ``name`` (``pytest.importorskip``, but failing in CI)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        missing(f"{name} is not installed ({why})")
