"""Every ``--json`` output validates against the schema shipped for it (``gpu-tui schema NAME``),
checked with a JSON Schema validator on what the commands really print: over no GPU, the
simulated accelerator and recorded NVIDIA machines under the real binding. The fleet's output is
validated where its tests scrape a real Prometheus (tests/fleet/test_fleet_prometheus.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gpu_tui.core.json_schemas import NAMES, bench_schema, schema
from gpu_tui.core.kitchen.scenarios import SCENARIOS
from tests.fakes import simulated_binding
from tests.helpers.running_app import command, environment

TESTS = Path(__file__).resolve().parent
RUN_FILES = sorted(
    [
        *(TESTS / "ui" / "fixtures" / "bench" / "data" / "results").glob("*.json"),
        TESTS / "fixtures" / "bench" / "comm-copies-hgx-h100-8gpu.json",
    ]
)
MACHINES = [
    ("no GPU", None, ()),
    ("the simulated accelerator", "--demo", ()),
    ("an H200", "h200", ()),
    ("an 8-GPU HGX H100 with its NVLink topology", "hgx_h100_8gpu", ("hgx_h100_8gpu_topology",)),
    ("an A100 split into MIG instances", "a100_80gb_pcie_mig", ()),
    ("a GeForce RTX 4090", "geforce_rtx4090", ()),
]


def validate(document: Any, name: str) -> None:
    """``document`` is valid under the shipped schema ``name`` (the first problem if not)."""
    shipped = schema(name)
    jsonschema.Draft202012Validator.check_schema(shipped)
    jsonschema.Draft202012Validator(shipped).validate(document)


def gpu_tui(tmp_path: Path, machine: str | None, add: tuple[str, ...], *args: str) -> str:
    """stdout of ``gpu-tui ARGS`` on ``machine``: no GPU, ``--demo``, or a recorded reading
    under the real binding."""
    shim = tmp_path / "shim"
    simulated_binding.install_as_pynvml(shim)
    base = environment(tmp_path / "data")
    if machine in (None, "--demo"):  # no NVIDIA driver, whatever this machine has
        no_driver = [["fail_init", "LibraryNotFound"]]
        env = simulated_binding.environment(shim, faults=no_driver, base=base)
    else:
        env = simulated_binding.environment(shim, reading=machine, add=add, base=base)
    demo = ("--demo",) if machine == "--demo" else ()
    done = subprocess.run(
        command(*args, *demo), env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_every_schema_is_a_valid_json_schema_with_a_title() -> None:
    assert len(NAMES) == 8
    for name in NAMES:
        shipped = schema(name)
        jsonschema.Draft202012Validator.check_schema(shipped)
        assert shipped["$id"] == f"urn:gpu-tui:schema:{name}"
        assert shipped["title"].startswith("gpu-tui ")


def test_the_bench_schema_is_what_the_run_file_s_structs_say() -> None:
    """The file a script validates against and the checks gpu-tui applies are one."""
    assert schema("bench") == bench_schema()


@pytest.mark.parametrize(("what", "machine", "add"), MACHINES, ids=[m[0] for m in MACHINES])
def test_info_and_watch_validate_on_every_kind_of_machine(
    tmp_path: Path, what: str, machine: str | None, add: tuple[str, ...]
) -> None:
    validate(json.loads(gpu_tui(tmp_path, machine, add, "info", "--json")), "info")
    lines = gpu_tui(tmp_path, machine, add, "watch", "--json", "--count", "2", "--interval", "0.1")
    ticks = [json.loads(line) for line in lines.splitlines()]
    assert len(ticks) == 2
    for tick in ticks:
        validate(tick, "watch")


FAULTS = {
    "a GPU gpu-tui does not know": [["set_reading", 0, {"name": "NVIDIA Mystery 9000"}]],
    "a GPU lost from the bus": [["lose", 1, {}]],
    "a GPU outside the job's cgroup": [["fail", 3, "nvmlDeviceGetHandleByIndex", "NoPermission"]],
    "process lists refused": [
        ["fail", None, "nvmlDeviceGetComputeRunningProcesses", "NoPermission"],
        ["fail", None, "nvmlDeviceGetGraphicsRunningProcesses", "NoPermission"],
    ],
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_info_and_watch_validate_when_part_of_the_node_cannot_be_read(
    tmp_path: Path, fault: str
) -> None:
    """What is unknown is null (with its reason), at every depth, never a shape of its own."""
    shim = tmp_path / "shim"
    simulated_binding.install_as_pynvml(shim)
    env = simulated_binding.environment(
        shim,
        reading="hgx_h100_8gpu",
        add=("hgx_h100_8gpu_topology",),
        faults=FAULTS[fault],
        base=environment(tmp_path / "data"),
    )
    for args, name in (
        (("info", "--json"), "info"),
        (("watch", "--json", "--count", "1"), "watch"),
    ):
        done = subprocess.run(
            command(*args), env=env, capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, done.stderr
        validate(json.loads(done.stdout.splitlines()[0] if name == "watch" else done.stdout), name)


def test_a_reading_of_the_wrong_kind_is_refused(tmp_path: Path) -> None:
    """The schemas say what a field holds: a figure given as text does not pass."""
    tick = json.loads(gpu_tui(tmp_path, "h200", (), "watch", "--json", "--count", "1"))
    tick["gpus"][0]["power_watts"] = "75 W"
    with pytest.raises(jsonschema.ValidationError, match="'75 W' is not of type"):
        validate(tick, "watch")
    tick["gpus"][0]["power_watts"] = 75.0
    tick["gpus"][0]["power_in_watts"] = 75.0  # a field nobody documented
    with pytest.raises(jsonschema.ValidationError, match="power_in_watts"):
        validate(tick, "watch")


@pytest.mark.parametrize("path", RUN_FILES, ids=[p.name for p in RUN_FILES])
def test_recorded_run_files_validate(path: Path) -> None:
    validate(json.loads(path.read_text()), "bench")


def test_a_run_printed_by_bench_json_validates(tmp_path: Path) -> None:
    printed = gpu_tui(
        tmp_path, None, (), "bench", "--device", "cpu", "--only", "launch", "--budget", "0.02",
        "--json",
    )  # fmt: skip
    document = json.loads(printed)
    assert document["results"], "the run must have measured something"
    validate(document, "bench")


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_every_kitchen_scenario_validates(tmp_path: Path, scenario: str) -> None:
    printed = gpu_tui(tmp_path, None, (), "kitchen", "--scenario", scenario, "--json")
    validate(json.loads(printed), "kitchen")


@pytest.mark.parametrize(
    "args",
    [
        ("--fit", "8B"),
        ("--fit", "70B", "--dtype", "fp8", "--context", "131072", "--batch", "8"),
        ("--fit", "mixtral-8x7b"),
        ("--fit", "deepseek-v3"),
        ("--cost",),
        ("--cost", "--cloud-price", "2.5", "--measured-tflops", "600"),
    ],
    ids=lambda args: " ".join(args),
)
def test_the_guide_s_answers_validate(tmp_path: Path, args: tuple[str, ...]) -> None:
    printed = gpu_tui(tmp_path, "--demo", (), "guide", *args, "--json")
    validate(json.loads(printed), "guide-fit" if args[0] == "--fit" else "guide-cost")


def test_gpu_tui_schema_prints_each_and_refuses_an_unknown_name(tmp_path: Path) -> None:
    listing = gpu_tui(tmp_path, None, (), "schema")
    assert [line.split()[0] for line in listing.splitlines()] == list(NAMES)
    assert json.loads(gpu_tui(tmp_path, None, (), "schema", "watch")) == schema("watch")
    done = subprocess.run(
        command("schema", "infos"), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert done.stderr == (
        "gpu-tui schema: error: no schema named 'infos' (choose from: info, watch, check, "
        "bench, kitchen, guide-fit, guide-cost, fleet) (try 'gpu-tui schema --help')\n"
    )
