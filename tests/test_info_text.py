"""``gpu-tui info`` as people read it: fitted to the terminal, and one full sheet for a set of
identical GPUs (run through ``main`` over the simulated driver under the real binding)."""

from __future__ import annotations

import json
import re

import pytest

from gpu_tui.cli import main
from tests.conftest import SimulatedNvml

HGX = ("hgx_h100_8gpu", ("hgx_h100_8gpu_topology", "hgx_h100_8gpu_training"))


def info(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["info", *args]) == 0
    return capsys.readouterr().out


@pytest.fixture
def hgx(simulated_nvml: SimulatedNvml) -> None:
    simulated_nvml(HGX[0], add=HGX[1])


@pytest.mark.usefixtures("hgx")
def test_every_line_fits_80_columns_but_a_word_longer_than_the_room(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    lines = info(capsys).splitlines()
    assert all(len(line) <= 80 for line in lines)  # a long URL too: it folds after a /
    links = lines.index(next(line for line in lines if line.startswith("GPU0 links")))
    assert lines[links : links + 2] == [
        "GPU0 links        18/18 NVLinks active (NVLink 4.0) through NVSwitch ·",
        "                  PCIe Gen5 x16 · NUMA node 0 · CPUs 0-47,96-143",
    ]
    url = "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
    start = lines.index(" " * 22 + "https://resources.nvidia.com/en-us-tensor-core/")
    assert lines[start + 1] == " " * 22 + "nvidia-tensor-core-gpu-datasheet"  # under its column
    assert "".join(line.strip() for line in lines[start : start + 2]) == url


def test_the_fix_for_a_missing_driver_wraps_under_its_value(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    lines = info(capsys).splitlines()  # this machine: no NVIDIA driver
    fix = lines.index(next(line for line in lines if line.startswith("Fix ")))
    assert all(len(line) <= 80 for line in lines)
    assert re.match(r" {8}\S", lines[fix + 1])  # under the value, not the label


def test_a_pipe_without_columns_keeps_each_value_on_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = info(capsys).splitlines()
    assert any(line.startswith("Fix ") and len(line) > 100 for line in lines)


@pytest.mark.usefixtures("hgx")
def test_identical_gpus_after_the_first_show_only_what_tells_them_apart(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = info(capsys)
    blocks = text.split("\n\n")
    gpu1 = next(b for b in blocks if b.startswith("GPU 1 · "))
    assert gpu1.splitlines()[2:] == [
        "PCI bus id  00000000:2A:00.0",
        "UUID        GPU-7c3cadbd-17e5-0913-f69b-c618122ea0cd",
        "Same as GPU 0 otherwise",
    ]
    assert text.count("Same as GPU 0 otherwise") == 7
    assert text.count("FP32 peak clock") == 1
    assert len(text.splitlines()) < 200  # was 622: a full sheet per GPU
    # The topology's legend is said once, not under every GPU.
    assert text.count("NV# = a bonded set") == 1


@pytest.mark.usefixtures("hgx")
def test_the_json_still_lists_every_gpu_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    accelerators = json.loads(info(capsys, "--json"))["accelerators"]
    assert len(accelerators) == 8
    assert {gpu["name"] for gpu in accelerators} == {"NVIDIA H100 80GB HBM3"}
    assert len({gpu["uuid"] for gpu in accelerators}) == 8


def test_a_gpu_that_differs_in_more_than_its_identity_is_shown_in_full(
    simulated_nvml: SimulatedNvml, capsys: pytest.CaptureFixture[str]
) -> None:
    library = simulated_nvml(HGX[0], add=HGX[1])
    library.devices[3]["power_enforced_limit_mw"] = 400_000
    text = info(capsys)
    assert "Same as GPU 0 otherwise" in text
    gpu3 = next(b for b in text.split("\n\n") if b.startswith("GPU 3 · "))
    assert "Power limit" in gpu3
    assert "FP32 peak clock" in gpu3
    assert text.count("Same as GPU 0 otherwise") == 6
