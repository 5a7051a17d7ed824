"""NVML failures in plain words, each with its fix; and a check for the wrong ``pynvml`` package."""

from __future__ import annotations

from types import ModuleType

from gpu_tui.core.devices.nvml_guard import IMPORT_CALL, NotAnsweringError

# Error codes as nvidia-ml-py defines them (NVML_ERROR_*). We match on the code, not the class,
# so this works for the real binding and the test double alike and never imports pynvml.
UNINITIALIZED = 1
NOT_SUPPORTED = 3
NO_PERMISSION = 4
NOT_IN_JOB = (
    "not in this job: NVML counts it, but this process may not open it (a Slurm cgroup, or a "
    "container that was not given this GPU)"
)
"""Why a GPU whose handle NVML refuses with NO_PERMISSION is shown but not read: under Slurm's
``ConstrainDevices`` or a container, ``nvmlDeviceGetCount`` still counts every GPU in the box."""
DRIVER_NOT_LOADED = 9
TIMEOUT = 10
LIBRARY_NOT_FOUND = 12
FUNCTION_NOT_FOUND = 13
GPU_IS_LOST = 15
RESET_REQUIRED = 16
LIB_RM_VERSION_MISMATCH = 18
UNKNOWN = 999

_EXPLAIN: dict[int, tuple[str, str]] = {
    LIBRARY_NOT_FOUND: (
        "the NVIDIA driver library (libnvidia-ml.so.1) was not found: this machine has no NVIDIA "
        "driver, or this container was started without GPU access",
        "install the NVIDIA driver; in Docker, install the NVIDIA Container Toolkit and run with "
        "--gpus all; check with `ldconfig -p | grep libnvidia-ml`. Try `gpu-tui --demo` meanwhile",
    ),
    LIB_RM_VERSION_MISMATCH: (
        "the NVIDIA driver library and the loaded kernel module are different versions "
        "(this happens after a driver upgrade without a reboot)",
        "reboot, or reload the kernel module: stop GPU processes, then "
        "`sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia`",
    ),
    DRIVER_NOT_LOADED: (
        "the NVIDIA kernel driver is not loaded",
        "run `sudo modprobe nvidia` and check `dmesg | grep -i nvidia`; with Secure Boot on, the "
        "module must be signed; reinstalling the driver usually fixes a broken install",
    ),
    NO_PERMISSION: (
        "this user may not talk to the GPU driver (permissions on /dev/nvidia*)",
        "check `ls -l /dev/nvidia*`; add your user to the group that owns them (often `video`), "
        "or pass the devices into the container",
    ),
    GPU_IS_LOST: (
        "the GPU stopped responding (it fell off the bus; look for Xid 79 in the kernel log)",
        "check `dmesg | grep -i xid`, power and cooling; the GPU needs a reset "
        "(`nvidia-smi -r`) or a reboot",
    ),
    FUNCTION_NOT_FOUND: (
        "the driver lacks a function that nvidia-ml-py called (the binding is newer than the "
        "driver)",
        "upgrade the NVIDIA driver, or install an nvidia-ml-py release that matches it",
    ),
    TIMEOUT: (
        "the driver did not answer in time",
        "check `dmesg` and `nvidia-smi`; a busy or failing GPU can stall the driver",
    ),
    RESET_REQUIRED: (
        "the GPU needs a reset before it can be used again",
        "stop the processes on it and run `sudo nvidia-smi -r -i <index>`, or reboot",
    ),
    UNINITIALIZED: (
        "NVML was used before it was initialised (a bug in gpu-tui)",
        "please report it with the output of `gpu-tui info --json`",
    ),
    UNKNOWN: (
        "NVML reported an unknown error",
        "run `nvidia-smi` to see whether the driver works at all; check `dmesg | grep -i nvidia`",
    ),
}

# Short reasons for one field that could not be read (shown as "unknown (<reason>)").
_FIELD_REASON: dict[int, str] = {
    NOT_SUPPORTED: "not supported on this GPU or driver",
    NO_PERMISSION: "needs more permissions",
    FUNCTION_NOT_FOUND: "this driver lacks the function (nvidia-ml-py is newer than the driver)",
    GPU_IS_LOST: "the GPU is lost",
    TIMEOUT: "the driver did not answer in time",
    UNKNOWN: "NVML reported an unknown error",
}


NOT_ANSWERING_FIX = (
    "check `dmesg | grep -i -e nvrm -e xid` and whether `nvidia-smi` answers; a hung GPU needs a "
    "reset (`sudo nvidia-smi -r -i <index>`) or a reboot. If `nvidia-smi` answers, only slowly, "
    "enable persistence mode (`sudo nvidia-smi -pm 1`) so the driver stays initialised"
)
IMPORT_HANG_FIX = (
    "loading the nvidia-ml-py module itself stalled (a dead network mount or a stuck disk under "
    "site-packages?): check `python -c 'import pynvml'` and the file system it lives on"
)


def nvml_error_code(error: BaseException) -> int | None:
    """The NVML error code carried by an ``NVMLError`` (its ``value``), or ``None``."""
    value = getattr(error, "value", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def explain_nvml_error(error: BaseException) -> tuple[str, str]:
    """``(reason, fix)`` in plain words for an error raised while starting or using NVML."""
    if isinstance(error, NotAnsweringError):
        return error.reason, IMPORT_HANG_FIX if error.call == IMPORT_CALL else NOT_ANSWERING_FIX
    code = nvml_error_code(error)
    if code is not None and code in _EXPLAIN:
        return _EXPLAIN[code]
    if isinstance(error, ImportError):
        return (
            "the nvidia-ml-py package is not installed, so gpu-tui cannot ask the driver",
            "`pip install nvidia-ml-py` (not the old `pynvml` package)",
        )
    if type(error).__name__ == "NVMLLibraryMismatchError":
        return _EXPLAIN[FUNCTION_NOT_FOUND]
    if code is not None:
        return (f"NVML error {code}: {error}", _EXPLAIN[UNKNOWN][1])
    return (f"{type(error).__name__}: {error}", _EXPLAIN[UNKNOWN][1])


def explain_code(code: int) -> tuple[str, str]:
    """``(reason, fix)`` of an NVML return code this module explains."""
    return _EXPLAIN[code]


def explain_import_error(error: BaseException) -> tuple[str, str]:
    """``(reason, fix)`` when ``import pynvml`` failed, whatever it raised: a missing package, or a
    broken install (OSError from an unreadable file, SyntaxError from a damaged one, …)."""
    if isinstance(error, NotAnsweringError) or nvml_error_code(error) is not None:
        return explain_nvml_error(error)
    if isinstance(error, ModuleNotFoundError) and error.name in ("pynvml", None):
        return explain_nvml_error(error)
    return (
        "the nvidia-ml-py package is installed but broken: `import pynvml` failed with "
        f"{type(error).__name__}: {error}",
        "reinstall it: `pip install --force-reinstall nvidia-ml-py` (and `pip uninstall pynvml` "
        "if the old package is there too); `python -c 'import pynvml'` shows the full error",
    )


def field_reason(error: BaseException) -> str:
    """A short reason for one unreadable field, e.g. ``not supported on this GPU or driver``."""
    if isinstance(error, NotAnsweringError):
        return error.reason
    code = nvml_error_code(error)
    if code is not None and code in _FIELD_REASON:
        return _FIELD_REASON[code]
    if type(error).__name__ == "NVMLLibraryMismatchError":
        return _FIELD_REASON[FUNCTION_NOT_FOUND]
    text = str(error) or type(error).__name__
    return f"NVML error {code}: {text}" if code is not None else text


def is_gpu_lost(error: BaseException) -> bool:
    """True for ``GpuIsLost`` — the device should be shown as lost, the rest kept."""
    return nvml_error_code(error) == GPU_IS_LOST


def check_binding(module: ModuleType) -> tuple[str, str] | None:
    """``(reason, fix)`` when ``import pynvml`` found the old ``pynvml`` package, else ``None``.

    NVIDIA's ``nvidia-ml-py`` ships a single ``pynvml.py``. The unofficial ``pynvml`` package
    (≤ 11.x) ships a ``pynvml/`` directory that shadows it and lacks newer functions; gpustat and
    nvitop both tell users not to install it.
    """
    path = (getattr(module, "__file__", None) or "").replace("\\", "/")
    shadowed = path.endswith("/pynvml/__init__.py")
    outdated = not hasattr(module, "nvmlDeviceGetNumGpuCores")
    if not (shadowed or outdated):
        return None
    return (
        "the `pynvml` module in use is the old, unofficial `pynvml` package, not NVIDIA's "
        "nvidia-ml-py; it lacks functions newer drivers need",
        "`pip uninstall pynvml && pip install --force-reinstall nvidia-ml-py`",
    )
