"""``gpu-tui guide``: the --fit and --cost contract, JSON schema, and one-line errors (exit 2)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gpu_tui.cli import main
from gpu_tui.core import units
from gpu_tui.core.devices.model import Accelerator
from tests.core.guide.fakes import make_device


class FakeDiscovery:
    """Stands in for ``gpu_tui.core.devices.discover``: no driver is touched in these tests."""

    def __init__(self) -> None:
        self.accelerators: tuple[Accelerator, ...] = ()
        self.calls: list[bool] = []

    def __call__(self, *, demo: bool = False) -> SimpleNamespace:
        self.calls.append(demo)
        return SimpleNamespace(
            accelerators=self.accelerators,
            cpu=SimpleNamespace(model="Test CPU"),
            memory=SimpleNamespace(total_bytes=24 * 2**30),
        )


@pytest.fixture(autouse=True)
def binary_after() -> Iterator[None]:
    """``--size-unit`` sets the process's unit: put the default back for the tests after."""
    yield
    units.set_size_unit("binary")


@pytest.fixture(autouse=True)
def discovery(monkeypatch: pytest.MonkeyPatch) -> FakeDiscovery:
    fake = FakeDiscovery()
    monkeypatch.setattr("gpu_tui.core.devices.discover", fake)
    return fake


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(["guide", *argv])
    except SystemExit as stop:  # argparse's own errors exit from inside parse_args
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run([*argv, "--json"], capsys)
    assert (code, err) == (0, "")
    data: dict[str, Any] = json.loads(out)
    return data


def test_fit_json_for_an_8b_model(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(["--fit", "llama-3.1-8b"], capsys)
    assert data["schema_version"] == 1
    assert data["kind"] == "fit"
    assert (data["params"], data["dtype"], data["kv_dtype"]) == (8.03e9, "bf16", "bf16")
    assert (data["context_tokens"], data["batch"]) == (4096, 1)
    assert data["weight_bytes"] == 16_060_000_000
    assert data["kv_cache_bytes_per_token"] == 131_072
    assert data["kv_cache_bytes"] == 131_072 * 4096
    total = 16_060_000_000 + 131_072 * 4096
    assert data["total_bytes"] == data["bytes_read_per_step"] == total
    assert data["shape"]["name"] == "Llama 3.1 8B"
    assert data["shape"]["exact"] is True
    assert all(s["url"].startswith("https://") for s in data["shape"]["sources"])
    h100 = next(d for d in data["devices"] if d["name"] == "NVIDIA H100 SXM")
    assert h100["devices_needed"] == 1
    assert h100["memory_bytes"] == 80 * 2**30
    assert h100["memory_basis"] == 'published "80 GB" = 80 GiB'
    assert h100["decode_tokens_per_second_max"] == round(3.35e12 / total, 2)
    assert h100["source"]
    assert all(d["source"] for d in data["devices"])
    assert {"weights", "kv_cache", "decode", "memory_unit"} <= set(data["sources"])
    assert data["sources"]["decode"]["url"].startswith("https://jax-ml.github.io/scaling-book")
    # JSON's text keeps binary units, whoever runs it (the sizes themselves are bytes).
    assert data["this_machine"].startswith("On this machine (no GPU found; 24.0 GiB of RAM)")


def test_a_bare_size_is_labelled_assumed(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(["--fit", "8B"], capsys)
    assert data["params"] == 8e9
    assert data["shape"]["exact"] is False
    assert data["shape"]["how"].startswith("assumed shape")
    code, out, _ = run(["--fit", "70B"], capsys)
    assert code == 0
    assert "shape: assumed shape" in out


def test_fit_puts_this_machines_devices_first(
    capsys: pytest.CaptureFixture[str], discovery: FakeDiscovery
) -> None:
    discovery.accelerators = (
        make_device(memory=143_771 * 2**20, bandwidth_gbps=4917.0),
        make_device(memory=None, bandwidth_gbps=None, simulated=True),
    )
    data = run_json(["--demo", "--fit", "70B"], capsys)
    assert discovery.calls == [True]
    mine, simulated, ram = data["devices"][:3]
    assert (mine["name"], mine["local"], mine["devices_needed"]) == ("NVIDIA H200", True, 1)
    assert mine["memory_bytes"] == 143_771 * 2**20
    total = 140e9 + 327_680 * 4096
    assert mine["decode_tokens_per_second_max"] == round(4917e9 / total, 2)
    assert (simulated["name"], simulated["devices_needed"]) == ("NVIDIA H200 (SIMULATED)", None)
    assert (ram["name"], ram["local"]) == ("CPU: Test CPU (RAM)", True)
    assert not any(d["local"] for d in data["devices"][3:])
    code, out, _ = run(["--fit", "70B"], capsys)
    assert code == 0
    assert " *NVIDIA H200 " in out
    assert out.splitlines()[-1] == (
        "On this machine (1 × NVIDIA H200, 140.4 GiB each): fits on one GPU; "
        f"decode ≤ {4917e9 / total:,.1f} tok/s per sequence."
    )


def test_identical_gpus_are_one_text_line_and_each_a_json_entry(
    capsys: pytest.CaptureFixture[str], discovery: FakeDiscovery
) -> None:
    h200 = make_device(memory=143_771 * 2**20, bandwidth_gbps=4917.0)
    discovery.accelerators = tuple(replace(h200, index=i) for i in range(8))
    code, out, _ = run(["--fit", "llama-3.1-405b"], capsys)
    assert code == 0
    mine = [line for line in out.splitlines() if "NVIDIA H200 " in line and "*" in line]
    assert len(mine) == 1
    assert mine[0].startswith(" *8 × NVIDIA H200 ")
    assert "(8 × = 8 identical devices; the figures are each one's)" in out
    assert out.splitlines()[-1].startswith("On this machine (8 × NVIDIA H200, 140.4 GiB each)")
    # JSON keeps one entry per device: a script may address each.
    data = run_json(["--fit", "llama-3.1-405b"], capsys)
    assert sum(d["name"] == "NVIDIA H200" for d in data["devices"]) == 8


def test_bad_fit_input_is_refused_before_touching_the_hardware(
    capsys: pytest.CaptureFixture[str], discovery: FakeDiscovery
) -> None:
    code, _, _ = run(["--fit", "8B", "--batch", "0"], capsys)
    assert code == 2
    assert discovery.calls == []


def test_fit_options_reach_the_arithmetic(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(["--fit", "70e9", "--dtype", "int4", "--context", "0", "--batch", "8"], capsys)
    assert (data["weight_bytes"], data["kv_cache_bytes"], data["kv_dtype"]) == (35e9, 0, "bf16")
    data = run_json(["--fit", "llama-3.1-8b", "--kv-dtype", "fp8", "--context", "1"], capsys)
    assert data["kv_cache_bytes"] == 65_536
    data = run_json(["--fit", "Mixtral-8x7B", "--batch", "2"], capsys)
    assert (data["active_params"], data["experts_read_per_layer"]) == (12.9e9, 4)


def test_fit_text_shows_the_arithmetic_and_numbered_sources(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(["--fit", "70B", "--context", "0"], capsys)
    assert (code, err) == (0, "")
    # Binary units by default: NVIDIA's "141GB" is 141 GiB, and reads so.
    assert "weights     130.4 GiB  = 70,000,000,000 parameters × 2 B" in out
    assert "(sizes in GiB = 2³⁰ bytes)" in out.splitlines()[0]
    h200 = next(line for line in out.splitlines() if "NVIDIA H200 SXM" in line)
    assert h200.split()[3:8] == ["141.0", "GiB", "1", "92.5", "%"]
    assert " GB " not in out.replace('"80 GB"', "")  # every size in GiB (the quote aside)
    assert "Device sources:" in out
    assert "[1] " in out
    assert "https://jax-ml.github.io/scaling-book/inference/" in out
    assert out.splitlines()[-1].startswith("On this machine (no GPU found")


def test_fit_text_follows_the_size_unit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["--fit", "70B", "--context", "0", "--size-unit", "decimal"], capsys)
    assert (code, err) == (0, "")
    assert "weights      140.0 GB  = 70,000,000,000 parameters × 2 B" in out
    assert "(sizes in GB = 10⁹ bytes)" in out.splitlines()[0]
    h200 = next(line for line in out.splitlines() if "NVIDIA H200 SXM" in line)
    assert h200.split()[3:8] == ["151.4", "GB", "1", "92.5", "%"]
    assert "GiB" not in out.replace("80 GiB = 85.9 GB", "")  # the note on makers' "GB"
    assert out.splitlines()[-1].startswith("On this machine (no GPU found; 25.8 GB of RAM)")
    # JSON keeps bytes, and the same numbers, whatever unit the text is in.
    data = run_json(["--fit", "70B", "--context", "0", "--size-unit", "decimal"], capsys)
    assert data == run_json(["--fit", "70B", "--context", "0"], capsys)
    assert data["weight_bytes"] == 140_000_000_000


def test_a_named_model_shows_its_configuration_and_sources(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["--fit", "deepseek-v3", "--dtype", "fp8", "--batch", "8"], capsys)
    assert code == 0
    assert (
        "KV cache      1.1 GiB  = 61 layers × (512 + 64) latent × 1 B × 4,096 tokens × 8 sequences"
        in out
    )
    assert "64 of 256 experts per layer for 8 sequences" in out
    assert "DeepSeek-V3's configuration:" in out
    assert "inference/configs/config_671B.json" in out


def test_cost_json_reproduces_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(["--cost"], capsys)
    assert (data["schema_version"], data["kind"]) == (1, "cost")
    assert round(data["per_gpu_year"]["fixed_usd"]) == 18_707
    assert round(data["per_gpu_year"]["variable_usd_at_full_utilization"]) == 1_464
    prices = data["cloud_prices"]
    assert [p["usd_per_gpu_hour"] for p in prices] == [2.5, 4.0, 7.0, 11.0]
    assert [p["break_even_utilization"] for p in prices] == [0.9154, 0.5572, 0.3125, 0.1971]
    assert all(p["date"] and p["source"] for p in prices)
    rows = data["utilizations"]
    assert [r["utilization"] for r in rows] == [0.3, 0.5, 0.7, 0.9]
    assert [round(r["onprem_usd_per_useful_gpu_hour"], 2) for r in rows] == [7.29, 4.44, 3.22, 2.54]
    assert data["inputs"]["hardware_usd"] == 300_000
    assert all(data["input_sources"].values())


@pytest.mark.parametrize("flag", ["--utilisation", "--utilization"])
def test_utilisation_is_spelt_as_shown_and_as_it_was(
    flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The flag takes the spelling every screen uses; scripts written with the first one work."""
    data = run_json(["--cost", flag, "40%"], capsys)
    assert [r["utilization"] for r in data["utilizations"]] == [0.4]  # JSON keys unchanged


def test_cost_options_reach_the_arithmetic(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        [
            "--cost",
            "--cloud-price",
            "4",
            "--price-date",
            "2026-10-01",
            "--utilization",
            "50%",
            "--measured-tflops",
            "700",
            "--pue",
            "1.2",
        ],
        capsys,
    )
    (price,) = data["cloud_prices"]
    assert (price["usd_per_gpu_hour"], price["date"]) == (4.0, "2026-10-01")
    assert price["usd_per_tflop_hour"] == round(4 / 700, 6)
    assert [r["utilization"] for r in data["utilizations"]] == [0.5]
    assert data["inputs"]["pue"] == 1.2
    assert data["input_sources"]["pue"] == "given by the user"
    assert price["break_even_utilization"] < 0.5572


def test_cost_text_explains_its_words_where_they_first_appear(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A reader who is not in the trade meets no bare PUE, capex, colo, neocloud, u* or ROI."""
    code, out, _ = run(["--cost", "--measured-tflops", "600"], capsys)
    assert code == 0
    for word in ("capex", "neocloud", "u*", "colo ", "colo,", " u  "):
        assert word not in out, word
    # Each abbreviation's first appearance says what it stands for.
    assert out[out.index("PUE") :].startswith("PUE (site ÷ IT power)")
    assert "the return on investment (ROI)" in out.split("ROI", 1)[0] + "ROI)"
    words = out.split("The words used above:\n", 1)[1]
    for term in ("utilisation", "PUE", "colocation", "GPU clouds", "ROI", "TFLOP/s-hour"):
        assert f"{term}: " in words, term
    assert "power usage effectiveness" in words


def test_cost_text_shows_the_break_even_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["--cost"], capsys)
    assert (code, err) == (0, "")
    assert "$18,707" in out
    assert "$1,464 × utilisation" in out
    for percent in ("91.5 %", "55.7 %", "31.3 %", "19.7 %"):
        assert percent in out
    for usd in ("7.29", "4.44", "3.22", "2.54"):
        assert usd in out
    # every source is a public address or a stated assumption, never a file outside the repo
    assert "shared/" not in out
    assert "accelerators.md" not in out
    sources = out.split("Input sources:")[1].strip().splitlines()
    assert len(sources) == 11
    for line in sources:
        assert "https://" in line or "assumption" in line, line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--fit", "8X"], "--fit: model size must be"),
        (["--fit", "8B", "--context", "-5"], "--context must be a whole number between"),
        (["--fit", "8B", "--batch", "0"], "--batch must be a whole number between"),
        (["--fit", "8B", "--dtype", "fp64"], "invalid choice"),
        (["--fit", "8B", "--cloud-price", "3"], "--cloud-price does not apply to --fit"),
        (["--fit", "8B", "--maintenance", "0.2"], "--maintenance does not apply to --fit"),
        (["--cost", "--context", "5"], "--context does not apply to --cost"),
        (["--fit", "8B", "--utilisation", "0.5"], "--utilisation does not apply to --fit"),
        (["--fit", "8B", "--utilization", "0.5"], "--utilisation does not apply to --fit"),
        (["--cost", "--utilisation", "150"], "--utilisation must be"),
        (["--cost", "--utilization", "150"], "--utilisation must be"),
        (["--cost", "--utilization", "abc"], "--utilisation must be between 0.1 % and 100 %"),
        (["--cost", "--pue", "0.5"], "--pue must be between"),
        (["--cost", "--cloud-price", "nan"], "--cloud-price must be"),
        (["--cost", "--price-date", "2026-01-01"], "--price-date needs --cloud-price"),
        (["--cost", "--measured-source", "x"], "--measured-source needs --measured-tflops"),
        (["--cost", "--measured-tflops", "-1"], "--measured-tflops must be between"),
        (["--cost", "--gpus-per-node", "0"], "--gpus-per-node must be a whole number between"),
        ([], "one of the arguments --fit --cost is required"),
        (["--fit", "8B", "--cost"], "not allowed with argument"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("gpu-tui")
    assert message in err


def test_the_installed_entry_point_exits_2_on_bad_input() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gpu_tui", "guide", "--fit", "lots"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("gpu-tui guide: error: --fit: model size must be")
    assert result.stderr.count("\n") == 1


def test_a_long_simulated_name_keeps_its_label_in_text(
    capsys: pytest.CaptureFixture[str], discovery: FakeDiscovery
) -> None:
    device = replace(
        make_device(memory=85 * 10**9, bandwidth_gbps=3352.0, simulated=True),
        name="NVIDIA H100 80GB HBM3 with a long name",
    )
    discovery.accelerators = (device,)
    code, out, _ = run(["--fit", "8B"], capsys)
    assert code == 0
    assert " *NVIDIA H100 80GB… (SIMULATED) " in out


def test_cost_text_at_80_columns_reads_as_one_style(tmp_path: Path) -> None:
    """The real command, piped, at COLUMNS=80: a sentence wraps only where the width ends it,
    every percentage is written one way (a space before %, a true minus), and the fixed and
    variable sums stand in one column."""
    env = {**os.environ, "COLUMNS": "80", "GPU_TUI_DATA_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-m", "gpu_tui", "guide", "--cost"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert max(len(line) for line in out.splitlines() if "https://" not in line) <= 80
    # "…and the return on / investment (ROI) / of owning…": a line ended mid-sentence.
    assert not re.search(r"\(ROI\)\n", out)
    assert not re.search(r"\d%", out), re.findall(r".{20}\d%", out)
    assert not re.search(r"(?<!\w)-\d", out.split("Input sources:")[0])  # "−44 %", never "-44%"
    assert "−66 %" in out
    assert "10 % of hardware/yr" in out
    fixed = next(line for line in out.splitlines() if line.startswith("    fixed "))
    variable = next(line for line in out.splitlines() if line.startswith("    variable "))
    assert fixed.index("$18,707") + len("$18,707") == variable.index("$1,464") + len("$1,464")
