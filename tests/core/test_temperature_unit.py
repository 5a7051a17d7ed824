"""Temperatures in the unit the user chose: the formatter's conversions, and ``gpu-tui watch``'s
text in °F while its JSON keeps °C."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpu_tui.commands import watch_text
from gpu_tui.core import units
from gpu_tui.core.devices.fields import Unknown
from tests.core.test_watch import a_gpu, a_sample

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fahrenheit() -> Iterator[None]:
    units.set_temperature_unit("fahrenheit")
    yield
    units.set_temperature_unit("celsius")


def test_celsius_is_the_default_and_reads_as_before() -> None:
    assert units.temperature_unit() == "celsius"
    assert units.format_temperature(63.4) == "63 °C"
    assert units.format_temperature(87) == "87 °C"
    assert units.format_temperature(63.4, gap="") == "63°C"
    assert units.format_temperature(63.4, symbol=False) == "63"
    assert units.format_temperature_difference(5) == "5 °C"


@pytest.mark.usefixtures("fahrenheit")
@pytest.mark.parametrize(
    ("celsius", "text"),
    [(0, "32 °F"), (100, "212 °F"), (-40, "-40 °F"), (37, "99 °F"), (87, "189 °F")],
)
def test_fahrenheit_converts(celsius: float, text: str) -> None:
    assert units.format_temperature(celsius) == text


@pytest.mark.usefixtures("fahrenheit")
def test_fahrenheit_leaves_unknown_unknown_and_scales_a_difference_without_offset() -> None:
    assert units.temperature_symbol() == "°F"
    assert units.format_temperature(Unknown("not supported")) == "–"
    assert units.format_temperature(None, unknown="?") == "?"
    assert units.format_temperature(36.6, ".1f") == "97.9 °F"
    assert units.format_temperature_difference(5) == "9 °F"


def test_an_unknown_unit_is_refused_and_the_unit_kept() -> None:
    with pytest.raises(ValueError, match="kelvin"):
        units.set_temperature_unit("kelvin")
    assert units.temperature_unit() == "celsius"


@pytest.mark.usefixtures("fahrenheit")
def test_watch_text_in_fahrenheit() -> None:
    line = watch_text.human_line(a_sample(a_gpu()))
    assert "60.0/80.0GiB 160 °F 655/700W" in line  # 71 °C, in a column as wide as 212 °F
    assert "°C" not in line


def run_watch(config: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpu_tui", "--demo", "watch", "--count", "1", *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XDG_CONFIG_HOME": str(config)},
    )


def test_the_config_file_sets_watch_text_and_its_json_keeps_celsius(tmp_path: Path) -> None:
    (tmp_path / "gpu-tui").mkdir()
    (tmp_path / "gpu-tui" / "config.toml").write_text('temperature_unit = "fahrenheit"\n')
    text = run_watch(tmp_path)
    assert text.returncode == 0, text.stderr
    assert "SIMULATED" in text.stdout
    assert "°F" in text.stdout
    assert "°C" not in text.stdout
    flag = run_watch(tmp_path, "--temperature-unit", "celsius")  # the flag wins over the file
    assert "°C" in flag.stdout
    assert "°F" not in flag.stdout
    as_json = run_watch(tmp_path, "--json")
    assert as_json.returncode == 0, as_json.stderr
    (gpu,) = json.loads(as_json.stdout.splitlines()[0])["gpus"]
    assert 32 <= gpu["temperature_c"] <= 77  # the simulated GPU's range in °C (90 °F and up)
    assert "°F" not in as_json.stdout


@pytest.mark.usefixtures("fahrenheit")
def test_the_fleet_grid_heading_follows_the_unit_and_its_key_does_not() -> None:
    from gpu_tui.core.fleet.grid import HEADERS, header_labels

    assert "Max°F" in header_labels()
    assert "Max°C" in HEADERS  # the column's key, which sorting and updates use
