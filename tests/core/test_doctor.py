"""NVML failures → plain words and a fix; the wrong-``pynvml`` check."""

from __future__ import annotations

import types

import pynvml
import pytest

from gpu_tui.core.devices.doctor import (
    check_binding,
    explain_nvml_error,
    field_reason,
    is_gpu_lost,
    nvml_error_code,
)
from tests.fakes.fake_nvml import ERROR_CLASSES, NVMLError, error


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


def test_real_binding_errors_are_explained_the_same_way() -> None:
    # The real nvidia-ml-py classes carry the same codes as the fake's.
    real = pynvml.NVMLError(pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH)
    assert type(real).__name__ == "NVMLError_LibRmVersionMismatch"
    assert explain_nvml_error(real) == explain_nvml_error(error("LibRmVersionMismatch"))
    assert nvml_error_code(pynvml.NVMLError_GpuIsLost()) == 15


def test_fake_error_classes_match_nvidia_ml_py() -> None:
    for name, cls in ERROR_CLASSES.items():
        real = getattr(pynvml, name)
        assert real().value == cls().value, name  # type: ignore[call-arg]
    assert type(NVMLError(12)).__name__ == "NVMLError_LibraryNotFound"
    assert str(NVMLError(18)) == str(pynvml.NVMLError(18))


def test_missing_package_and_other_errors() -> None:
    reason, fix = explain_nvml_error(ImportError("No module named 'pynvml'"))
    assert "nvidia-ml-py" in reason
    assert fix.startswith("`pip install nvidia-ml-py`")
    reason, _ = explain_nvml_error(RuntimeError("boom"))
    assert reason == "RuntimeError: boom"
    reason, _ = explain_nvml_error(error("InsufficientPower"))
    assert reason.startswith("NVML error 8: ")


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
