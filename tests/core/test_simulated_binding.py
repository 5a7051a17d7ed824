"""A subprocess's ``import pynvml`` is nvidia-ml-py's own binding over the simulated driver, with
the reading, branch, faults and import failures its environment names."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.simulated_binding import IMPORT_ERRORS, environment, install_as_pynvml

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_SECONDS = 60


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_as_pynvml(tmp_path_factory.mktemp("simulated-pynvml")).parent


def python(script: str, env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
    )


def answers(script: str, env: dict[str, str], cwd: Path = ROOT) -> Any:
    done = python(script, env, cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


READ = """
    import json, pynvml
    pynvml.nvmlInit()
    handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())]

    def outcome(call):
        try:
            return call()
        except pynvml.NVMLError as error:
            return type(error).__name__
        except pynvml.NVMLLibraryMismatchError:
            return "NVMLLibraryMismatchError"

    print(json.dumps({
        "file": pynvml.__file__,
        "driver": pynvml.nvmlSystemGetDriverVersion(),
        "names": [outcome(lambda h=h: pynvml.nvmlDeviceGetName(h)) for h in handles],
        "power": [outcome(lambda h=h: pynvml.nvmlDeviceGetPowerUsage(h)) for h in handles],
        "levels": [outcome(lambda h=h: pynvml.nvmlDeviceGetTopologyCommonAncestor(handles[0], h))
                   for h in handles],
        "processes": outcome(lambda: len(pynvml.nvmlDeviceGetComputeRunningProcesses(handles[0]))),
    }))
"""


def test_the_real_binding_reads_the_recorded_h200_by_default(shim: Path) -> None:
    got = answers(READ, environment(shim))
    assert Path(got["file"]).parent.name == "site-packages"  # nvidia-ml-py's own module
    assert got["driver"] == "550.90.12"
    assert got["names"] == ["NVIDIA H200"]
    assert got["power"] == [74580]


def test_the_environment_names_the_reading_branch_and_faults(shim: Path, tmp_path: Path) -> None:
    env = environment(
        shim,
        reading="hgx_h100_8gpu",
        add=["hgx_h100_8gpu_topology"],
        branch="r535.98",
        faults=[
            ("fail", 1, "nvmlDeviceGetName", "NoPermission"),
            ("not_supported", None, "nvmlDeviceGetPowerUsage"),
            ("set_processes", 0, {"compute": [{"pid": 42, "used_memory_bytes": 1 << 30}]}),
        ],
    )
    got = answers(READ, env, cwd=tmp_path)  # the checkout need not be the working directory
    assert got["driver"] == "535.183.01"
    assert got["names"][0] == "NVIDIA H100 80GB HBM3"
    assert got["names"][1] == "NVMLError_NoPermission"
    assert got["power"] == ["NVMLError_NotSupported"] * 8
    assert got["levels"] == [0, 40, 40, 40, 50, 50, 50, 50]
    assert got["processes"] == "NVMLLibraryMismatchError"  # 535.98 has no _v3


def test_a_gpu_lost_at_its_handle(shim: Path) -> None:
    env = environment(shim, reading="hgx_h100_8gpu", faults=[("lose", 2, {"at_handle": True})])
    script = """
        import pynvml
        pynvml.nvmlInit()
        try:
            pynvml.nvmlDeviceGetHandleByIndex(2)
        except pynvml.NVMLError_GpuIsLost:
            print("lost")
    """
    done = python(script, env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "lost\n", "")


STUCK = """
    import threading
    thread = threading.Thread(target=lambda: {call}, daemon=True)
    thread.start()
    thread.join(0.5)
    print("stuck" if thread.is_alive() else "returned")
"""


@pytest.mark.parametrize(
    ("choice", "call"),
    [
        ({"hang": ["nvmlInit"]}, "__import__('pynvml').nvmlInit()"),
        ({"import_fault": "hang"}, "__import__('pynvml')"),
    ],
    ids=["nvmlInit", "import"],
)
def test_a_hang_lasts_until_the_process_ends(shim: Path, choice: dict[str, Any], call: str) -> None:
    done = python(STUCK.format(call=call), environment(shim, **choice))
    assert (done.returncode, done.stdout) == (0, "stuck\n"), done.stderr


@pytest.mark.parametrize("kind", IMPORT_ERRORS)
def test_a_broken_install_fails_at_import(shim: Path, kind: str) -> None:
    script = """
        try:
            import pynvml
        except BaseException as error:
            print(type(error).__name__, error, sep=": ")
    """
    done = python(script, environment(shim, import_fault=kind))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{kind}: {IMPORT_ERRORS[kind]}\n"


def test_gpu_tui_info_reads_the_simulated_node(shim: Path) -> None:
    env = environment(shim, reading="hgx_h100_8gpu", faults=[("lose", 7, {"at_handle": True})])
    done = subprocess.run(
        [sys.executable, "-m", "gpu_tui", "info", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    nvml = document["backends"]["nvml"]
    assert nvml["available"] is True
    assert nvml["details"]["driver_version"] == "565.57.01"
    accelerators = document["accelerators"]
    assert len(accelerators) == 8
    assert accelerators[0]["pci_bus_id"] == "00000000:18:00.0"
    assert accelerators[0]["memory_bus_width_bits"] == 5120
    assert (accelerators[7]["name"], accelerators[7]["uuid"]) == ("GPU 7: lost", None)


def test_environment_leaves_out_an_earlier_choice(shim: Path) -> None:
    base = {"GPU_TUI_SIMULATED_NVML_HANG": "nvmlInit", "PYTHONPATH": "/elsewhere", "HOME": "/h"}
    env = environment(shim, reading="h200", base=base)
    assert "GPU_TUI_SIMULATED_NVML_HANG" not in env
    assert env["PYTHONPATH"].split(":") == [str(shim), "/elsewhere"]
    assert env["GPU_TUI_SIMULATED_NVML_READING"] == "h200"
    assert env["HOME"] == "/h"
