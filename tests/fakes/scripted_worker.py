"""A stand-in bench worker that replays scripted protocol lines: GPU runs on a machine without one.

Tests call :func:`install` to get a ``--bench-python`` that answers the interpreter check like a
real Python and otherwise runs this file, which reads the plan and replays the script from
``$GPU_TUI_SCRIPTED_WORKER``: each step is a protocol message, ``{"sleep": s}`` or
``{"wait_file": path}`` (waits up to 30 s for the test to create it).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the replay process itself needs only the standard library
    import pytest

SCRIPT_VARIABLE = "GPU_TUI_SCRIPTED_WORKER"
# tests/fakes/nvml_readings/h200.json's UUID, bare as torch reports it
H200_UUID = "cb3dfa52-e2f3-9ca4-a399-7d16041c3732"
WAIT_LIMIT_SECONDS = 30.0


def environment(*devices: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "type": "environment",
        "environment": {"torch_version": "scripted", "cpu_threads": 2, "devices": list(devices)}
        | extra,
    }


def cuda_device(index: int = 0, uuid: str | None = H200_UUID) -> dict[str, Any]:
    return {"device": f"cuda:{index}", "name": "NVIDIA H200", "uuid": uuid}


def gemm_result(
    device: str, n: int, seconds: float, *, wall: float = 0.2, variant: str = "mm"
) -> dict[str, Any]:
    timing = {"median_seconds": seconds, "p20_seconds": seconds, "p80_seconds": seconds}
    return {
        "type": "result",
        "benchmark": "gemm",
        "variant": variant,
        "device": device,
        "dtype": "bf16",
        "params": {"m": n, "n": n, "k": n},
        "timing": timing | {"repeats": 10, "timed_wall_seconds": wall},
        "warnings": [],
        "scope": "resident",
        "cache": "cold" if variant.endswith("cold") else "hot",
        "ended_seconds_ago": 0.001,
    }


def install(tmp_path: Path, script: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> str:
    """Write the script and a wrapper "Python"; returns the path to pass as ``python``."""
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    monkeypatch.setenv(SCRIPT_VARIABLE, str(path))
    wrapper = tmp_path / "scripted-python"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "-c" ]; then exec {sys.executable} "$@"; fi\n'
        f"exec {sys.executable} -u {Path(__file__).resolve()}\n"
    )
    wrapper.chmod(0o755)
    return str(wrapper)


def main() -> None:
    sys.stdin.readline()  # the plan: the script decides what happens
    for step in json.loads(Path(os.environ[SCRIPT_VARIABLE]).read_text()):
        if "sleep" in step:
            time.sleep(step["sleep"])
        elif "wait_file" in step:
            end = time.monotonic() + WAIT_LIMIT_SECONDS
            while not os.path.exists(step["wait_file"]) and time.monotonic() < end:
                time.sleep(0.02)
        else:
            print(json.dumps(step), flush=True)


if __name__ == "__main__":
    main()
