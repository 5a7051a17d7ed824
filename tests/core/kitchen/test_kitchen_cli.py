"""The ``gpu-tui kitchen`` contract: JSON fields, human table, --list, and one-line bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpu_tui.cli import main
from gpu_tui.core.kitchen.params import SPECS


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["kitchen", *args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict)
    return data


def test_no_scenario_named_runs_the_panes_first_onions(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_json(capsys)["scenario"] == "onions"


def test_onions_json_matches_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--scenario", "onions")
    assert data["schema_version"] == 1
    assert data["scenario"] == "onions"
    assert data["chef_seconds"] == 20_000
    assert data["brigade_seconds"] == 20
    assert data["brigade_roofline_seconds"] == 15
    assert data["speedup"] == 1000
    assert data["crossover_tasks"] == 8
    assert data["parameters"] == {
        "tasks": 10_000, "chef_seconds": 2.0, "pantry_units": 1.0, "cooks": 10_000,
        "slowdown": 5.0, "launch_seconds": 5.0, "pantry_rate": 2000.0, "chef_pantry_rate": 100.0,
        "kitchens": 1, "hallway_latency_seconds": 0.0, "hallway_rate": 1000.0,
        "sync_units": 0.0, "rounds": 1,
    }  # fmt: skip
    assert "kitchens" not in data  # one kitchen: no series
    # the headline is one CPU core against a GPU; the real-life figures name their documents
    assert data["comparison"].startswith("Real FP32 peaks: H100 = 565× one EPYC 9654 core")
    assert all(s["url"].startswith("https://") and s["says"] for s in data["sources"])


def test_overrides_show_in_parameters_and_results(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--scenario", "onions", "--set", "cooks=5000", "--set", "tasks=20")
    params = data["parameters"]
    assert isinstance(params, dict)
    assert params["cooks"] == 5000
    assert params["tasks"] == 20
    assert data["chef_seconds"] == 40
    # The scenario's own caption tells its own numbers: changed ones get their own story.
    assert data["title"] == "20 onions"
    assert data["caption"] == (
        "Changed: tasks=20 (was 10,000), cooks=5,000 (was 10,000). 5,000 slow cooks beat one "
        "fast chef at 20 independent onions; below 8 the briefing outweighs the work and the "
        "chef wins."
    )
    assert run_json(capsys, "--scenario", "onions")["caption"].startswith("One chef")


def test_multi_kitchen_series(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--scenario", "scaling")
    series = data["kitchens"]
    assert isinstance(series, list)
    assert [p["kitchens"] for p in series] == list(range(1, 33))
    assert set(series[0]) >= {"kitchens", "seconds", "speedup"}
    assert data["best_kitchens"] == 8
    assert data["brigade_seconds"] == series[-1]["seconds"]
    slow = run_json(capsys, "--scenario", "slow-hallway")
    one, two = slow["kitchens"]
    assert two["seconds"] > one["seconds"]
    fast = run_json(capsys, "--scenario", "slow-hallway", "--set", "hallway_rate=1000")
    one, two = fast["kitchens"]
    assert two["seconds"] < one["seconds"]


def test_complex_recipe_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--scenario", "complex-recipe")
    assert data["winner"] == "chef"
    assert "crossover_tasks" not in data
    assert 1 < data["hybrid_speedup"] < 1.1
    assert len(data["parameters"]["phases"]) == 31


def test_human_output_is_an_aligned_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kitchen", "--scenario", "onions"]) == 0
    out = capsys.readouterr().out
    assert "20,000 s (5.56 h)" in out
    assert "1,000×" in out
    assert "In real life:" in out
    assert "chef (1 CPU core) ÷ brigade (1 GPU): brigade wins" in out
    assert "Sources\n  NVIDIA H100 Tensor Core GPU datasheet: https://resources.nvidia.com/" in out
    assert out.count("nvidia-tensor-core-gpu-datasheet") == 1  # a document is listed once
    lines = out.splitlines()
    start = lines.index("Parameters") + 1
    rows = lines[start : lines.index("", start)]
    assert [row.split()[0] for row in rows] == list(SPECS)
    # Right-aligned values: every unit ends in the same column, two spaces before the meaning.
    # The count is in the scenario's own word, as the Kitchen pane says it.
    meaning = {**{k: s.meaning for k, s in SPECS.items()}, "tasks": "onions in the recipe (w)"}
    ends = {row.index(meaning[row.split()[0]]) for row in rows}
    assert len(ends) == 1
    assert "10,000 onions" in rows[0]
    assert "crossover            8 onions" in out
    assert "2,000 units/s" in out


def test_one_task_is_counted_in_the_singular_under_both_its_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["kitchen", "--scenario", "onions", "--set", "tasks=1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Kitchen: onions · 1 onion\n")
    (row,) = [line for line in out.splitlines() if line.startswith("  tasks")]
    assert row.startswith("  tasks (onions)  ")  # as --set names it, and as the pane does
    assert row.endswith(" 1 onion  onions in the recipe (w)")
    assert "1 onions" not in out


def test_a_recipe_of_equal_phases_names_them_as_a_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kitchen", "--scenario", "complex-recipe"]) == 0
    assert "  phases 2–31 " in capsys.readouterr().out


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kitchen", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [
        "onions", "complex-recipe", "pantry-bound", "slow-hallway", "scaling",
    ]  # fmt: skip
    data = run_json(capsys, "--list")
    assert len(data["scenarios"]) == 5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scenario", "onions", "--set", "cooks=0"], "--set: cooks must be a whole"),
        (["--scenario", "onions", "--set", "cooks=many"], "cooks must be a whole number between"),
        (["--scenario", "onions", "--set", "launch_seconds=-2"], "launch_seconds must be 0 or"),
        (["--scenario", "onions", "--set", "spice=3"], "unknown parameter 'spice'"),
        (["--scenario", "onions", "--set", "cooks"], "KEY=VALUE"),
        (["--scenario", "scaling", "--set", "cooks=3"], "scaling does not let you set 'cooks'"),
        (["--scenario", "soup"], "unknown scenario 'soup'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    try:
        code = main(["kitchen", *args, "--json"])
    except SystemExit as stop:  # a bad --set is refused by argparse, as it parses
        code = int(stop.code or 0)
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("gpu-tui")
    assert message in captured.err
