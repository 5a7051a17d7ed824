"""NVML failures → plain words and a fix; the wrong-``pynvml`` check."""

from __future__ import annotations

import types

import pynvml
import pytest

from gpu_tui.core.devices.doctor import (
    check_binding,
    explain_import_error,
    explain_nvml_error,
    field_reason,
    is_gpu_lost,
    nvml_error_code,
)
from gpu_tui.core.devices.nvml_guard import NotAnsweringError
from tests.fakes.simulated_driver import error_code


def error(short_name: str) -> pynvml.NVMLError:
    """What the real binding raises for the driver's return code ``short_name``."""
    return pynvml.NVMLError(error_code(short_name))


@pytest.mark.parametrize(
    ("short_name", "reason_part", "fix_part"),
    [
        ("LibraryNotFound", "libnvidia-ml.so.1", "--gpus all"),
        ("LibRmVersionMismatch", "different versions", "reboot"),
        ("DriverNotLoaded", "kernel driver is not loaded", "modprobe nvidia"),
        ("NoPermission", "/dev/nvidia*", "group"),
        ("GpuIsLost", "fell off the bus", "nvidia-smi -r"),
        ("FunctionNotFound", "newer than the driver", "upgrade the NVIDIA driver"),
        ("Unknown", "unknown error", "nvidia-smi"),
    ],
)
def test_each_init_failure_has_reason_and_fix(
    short_name: str, reason_part: str, fix_part: str
) -> None:
    reason, fix = explain_nvml_error(error(short_name))
    assert reason_part in reason
    assert fix_part in fix


def test_each_error_is_the_binding_s_own_class_with_its_code() -> None:
    real = error("LibRmVersionMismatch")
    assert type(real).__name__ == "NVMLError_LibRmVersionMismatch"
    assert real.value == pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH
    assert nvml_error_code(pynvml.NVMLError_GpuIsLost()) == 15


def test_missing_package_and_other_errors() -> None:
    reason, fix = explain_nvml_error(ImportError("No module named 'pynvml'"))
    assert "nvidia-ml-py" in reason
    assert fix.startswith("`pip install nvidia-ml-py`")
    reason, _ = explain_nvml_error(RuntimeError("boom"))
    assert reason == "RuntimeError: boom"
    reason, _ = explain_nvml_error(error("InsufficientPower"))
    assert reason.startswith("NVML error 8: ")


@pytest.mark.parametrize(
    "raised",
    [
        OSError(5, "Input/output error", "/usr/lib/python3/dist-packages/pynvml.py"),
        RuntimeError("cannot load the symbols table"),
        SyntaxError("invalid syntax", ("pynvml.py", 812, 9, "def nvmlInit(:\n")),
        ImportError("cannot import name 'c_nvmlMemory_t'"),
        ModuleNotFoundError("No module named 'ctypes'", name="ctypes"),
    ],
)
def test_any_failure_to_import_the_binding_is_a_broken_install(raised: Exception) -> None:
    reason, fix = explain_import_error(raised)
    assert reason == (
        "the nvidia-ml-py package is installed but broken: `import pynvml` failed with "
        f"{type(raised).__name__}: {raised}"
    )
    assert "pip install --force-reinstall nvidia-ml-py" in fix


def test_a_missing_binding_is_still_a_missing_package() -> None:
    missing = ModuleNotFoundError("No module named 'pynvml'", name="pynvml")
    assert explain_import_error(missing) == explain_nvml_error(ImportError("pynvml"))


def test_a_call_that_does_not_return_is_named_with_its_limit() -> None:
    hung = NotAnsweringError("nvmlInit", 5.0)
    reason, fix = explain_nvml_error(hung)
    assert reason == "not answering (NVML call nvmlInit did not return within 5 s)"
    assert "nvidia-smi" in fix
    assert "persistence mode" in fix
    assert field_reason(hung) == reason
    stuck_import = NotAnsweringError("import pynvml", 2.5)
    reason, fix = explain_import_error(stuck_import)
    assert reason == "not answering (import pynvml did not return within 2.5 s)"
    assert "python -c 'import pynvml'" in fix


def test_field_reasons() -> None:
    assert field_reason(error("NotSupported")) == "not supported on this GPU or driver"
    assert field_reason(error("NoPermission")) == "needs more permissions"
    assert field_reason(error("GpuIsLost")) == "the GPU is lost"
    assert field_reason(ValueError("bad")) == "bad"
    assert is_gpu_lost(error("GpuIsLost"))
    assert not is_gpu_lost(error("Unknown"))
    assert nvml_error_code(ValueError()) is None


def test_real_nvidia_ml_py_passes_binding_check() -> None:
    assert check_binding(pynvml) is None


def test_old_pynvml_package_is_detected() -> None:
    old = types.ModuleType("pynvml")
    old.__file__ = "/usr/lib/python3/site-packages/pynvml/__init__.py"
    old.nvmlDeviceGetNumGpuCores = lambda h: 0  # type: ignore[attr-defined]
    found = check_binding(old)
    assert found is not None
    assert "old, unofficial `pynvml` package" in found[0]
    assert "pip uninstall pynvml" in found[1]
    ancient = types.ModuleType("pynvml")
    ancient.__file__ = "/x/pynvml.py"
    assert check_binding(ancient) is not None  # lacks newer functions
