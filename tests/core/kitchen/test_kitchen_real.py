"""Run it for real: each scenario's benchmark plan, and how its results read beside the model."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.kitchen.measurement import (
    BUDGET_SECONDS,
    GEMM_SIZES,
    HALLWAY_SIZES,
    MAX_NUMBERS,
    WARMUP_ARRAY_BYTES,
    WARMUP_SHARE,
    in_warmup,
    numbers_to_add,
    real_check,
    real_plan,
)
from gpu_tui.core.kitchen.measurement_reading import (
    MISSING,
    NO_GPU,
    PENDING,
    model_line,
    read,
)
from gpu_tui.core.kitchen.scenarios import SCENARIOS

ONIONS = SCENARIOS["onions"].params


def result(
    benchmark: str, variant: str, seconds: float, device: str = "cpu", value: float = 0.0, **p: Any
) -> BenchResult:
    times = (seconds, seconds, seconds, 7)
    return BenchResult(benchmark, variant, device, "fp64", p, *times, value, "", None)


@pytest.mark.parametrize(
    ("scenario", "benchmarks"),
    [
        ("onions", ("reduction",)),
        ("complex-recipe", ("launch", "crossover")),
        ("pantry-bound", ("bandwidth",)),
        ("slow-hallway", ("comm",)),
        ("scaling", ("comm",)),
    ],
)
def test_every_scenario_maps_to_a_benchmark_with_one_sentence_on_the_analogy(
    scenario: str, benchmarks: tuple[str, ...]
) -> None:
    check = real_check(scenario, SCENARIOS[scenario].params)
    assert check.benchmarks == benchmarks
    assert check.analogy.startswith("Holds: ")
    assert "; breaks: " in check.analogy
    assert check.analogy.count(". ") == 0  # one sentence
    assert check.without_gpu.startswith("torch sees no GPU here")
    plan = real_plan(check)
    if check.suite == "comm":  # the hallways: an all-reduce between torchrun's ranks
        assert plan["suite"] == "comm"
        assert plan["comm"]["operations"] == ["all_reduce"]
        assert plan["comm"]["dtypes"] == {"fp32": list(HALLWAY_SIZES)}
        assert plan["comm"]["nproc"] == 2
        assert plan["comm"]["loopback"] is True
        assert plan["budget_seconds"] == BUDGET_SECONDS
        return
    # every benchmark twice: an untimed warm-up pass, then the timed one
    assert [b["name"] for b in plan["benchmarks"]] == [*benchmarks, *benchmarks]
    assert plan["budget_seconds"] == BUDGET_SECONDS
    assert plan["devices"] == ["all"]
    assert plan["nice"] == 10


def test_onions_add_up_one_number_per_onion_capped() -> None:
    check = real_check("onions", ONIONS)
    assert check.title.startswith("Add up 10,000 numbers:")
    plan = real_plan(check, budget=0.02, devices=["cpu"])
    warm, spec = plan["benchmarks"]
    assert spec["cpu"]["n"] == spec["gpu"]["n"] == warm["cpu"]["n"] == 10_000
    assert plan["devices"] == ["cpu"]
    assert plan["budget_seconds"] == 0.02
    many = ONIONS.replace({"tasks": 10**8})
    assert numbers_to_add(many) == MAX_NUMBERS
    assert "(capped)" in real_check("onions", many).title
    assert numbers_to_add(ONIONS.replace({"tasks": 3})) == 3


def test_complex_recipe_sweeps_gemm_from_cpu_sized_to_gpu_sized() -> None:
    plan = real_plan(real_check("complex-recipe", SCENARIOS["complex-recipe"].params))
    crossover = plan["benchmarks"][3]
    assert crossover["cpu"]["sizes"] == crossover["gpu"]["sizes"] == list(GEMM_SIZES)
    assert "budget_share" not in crossover["cpu"]  # timed at the suite's share


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_the_warm_up_pass_runs_the_same_work_on_the_same_devices_first(scenario: str) -> None:
    check = real_check(scenario, SCENARIOS[scenario].params)
    if check.suite == "comm":  # the ranks warm up before every size: no second pass
        assert not any(in_warmup(i, 4, check) for i in range(4))
        return
    plan = real_plan(check)
    specs = plan["benchmarks"]
    half = len(specs) // 2
    for warm, timed in zip(specs[:half], specs[half:], strict=True):
        assert warm["name"] == timed["name"]
        for kind in ("cpu", "gpu"):  # the same tasks on each device, so the halves match
            assert (warm[kind] is None) == (timed[kind] is None)
    by_name = {s["name"]: s for s in specs[:half]}
    if "crossover" in by_name:  # the same sizes, a tenth of the time each
        warm = by_name["crossover"]["cpu"]
        assert warm["sizes"] == list(GEMM_SIZES)
        assert warm["budget_share"] == WARMUP_SHARE
    if "bandwidth" in by_name:  # small arrays: start the threads, not a second STREAM run
        assert by_name["bandwidth"]["cpu"]["array_bytes"] == WARMUP_ARRAY_BYTES
        assert by_name["bandwidth"]["cpu"]["kernels"] == ["copy"]
    if "transfer" in by_name:
        assert by_name["transfer"]["gpu"]["sizes"] == [4096, 1 << 20]


def test_the_first_half_of_the_tasks_is_the_warm_up() -> None:
    # one benchmark on cpu and one GPU: tasks 0-1 warm up, 2-3 are timed
    assert [in_warmup(i, 4) for i in range(4)] == [True, True, False, False]
    assert not in_warmup(0, 0)


def test_onions_pending_then_measured_beside_the_model() -> None:
    check = real_check("onions", ONIONS)
    pending = read(check, ONIONS, [])
    assert pending.header == ("", "model", "measured")
    assert pending.rows[0] == ("chef: Python loop, one at a time", "20,000 s (5.56 h)", PENDING)
    assert pending.rows[2][1:] == ("20 s", PENDING)
    assert pending.rows[-1] == ("speed-up: loop ÷ vectorised", "1,000×", PENDING)
    assert pending.measured == ""
    results = [
        result("reduction", "python-loop", 200e-6, n=10_000),
        result("reduction", "builtin-sum", 40e-6, n=10_000),
        result("reduction", "torch-sum", 4e-6, n=10_000),
        result("reduction", "numpy-sum", 2e-6, n=10_000),  # the faster vectorised one counts
    ]
    done = read(check, ONIONS, results, finished=True, no_gpu=True)
    cells = {row[0]: row[1:] for row in done.rows}
    assert cells["chef: Python loop, one at a time"] == ("20,000 s (5.56 h)", "200 µs")
    assert cells["chef in C: built-in sum()"] == ("", "40 µs")
    assert cells["brigade: vectorised, CPU cores"] == ("20 s", "2 µs")
    assert cells["GPU, data already on it"] == ("", NO_GPU)
    assert cells["speed-up: loop ÷ vectorised"] == ("1,000×", "100×")
    assert done.measured == "This machine: vectorised 100× faster than the Python loop"


def test_onions_with_a_gpu_says_whether_it_beat_the_cpu() -> None:
    results = [
        result("reduction", "python-loop", 200e-6),
        result("reduction", "torch-sum", 4e-6),
        result("reduction", "gpu-resident", 9e-6, device="cuda:0"),
        result("reduction", "gpu-end-to-end", 30e-6, device="cuda:0"),
    ]
    done = read(real_check("onions", ONIONS), ONIONS, results, finished=True)
    cells = {row[0]: row[2] for row in done.rows}
    assert cells["GPU, data already on it"] == "9 µs"
    assert cells["GPU end to end (copy, .item())"] == "30 µs"
    assert cells["chef in C: built-in sum()"] == MISSING  # finished without it
    assert done.measured.endswith("; GPU end to end 30 µs, slower than this CPU")


def test_complex_recipe_finds_the_crossover() -> None:
    params = SCENARIOS["complex-recipe"].params
    check = real_check("complex-recipe", params)
    cpu_only = [result("crossover", "cpu-torch", 2e-6, n=16), result("launch", "dispatch", 1e-6)]
    reading = read(check, params, cpu_only, finished=True, no_gpu=True)
    assert reading.rows[0] == ("one tiny op (+1)", "1 µs", NO_GPU, NO_GPU)
    assert reading.rows[1] == ("GEMM n=16", "2 µs", NO_GPU, NO_GPU)
    assert reading.model == "Model: chef 4.82× faster (chef 31.7 min · brigade 2.54 h)"
    # A bare kernel launch is ~3 µs today: 2 µs is less than a GPU's launch alone, 5 µs is not.
    assert reading.measured == (
        "This CPU: GEMM n=16 in 2 µs, less than a bare GPU kernel launch alone (~3 µs)"
    )
    slower = [result("crossover", "cpu-torch", 5e-6, n=16)]
    reading = read(check, params, slower, finished=True, no_gpu=True)
    assert reading.measured.startswith("This CPU: GEMM n=16 in 5 µs, more than a bare GPU kernel")
    both = [
        *(result("crossover", "cpu-torch", 1e-9 * n**2, n=n) for n in GEMM_SIZES),
        *(result("crossover", "gpu-resident", 10e-6, "cuda:0", n=n) for n in GEMM_SIZES),
        *(result("crossover", "gpu-end-to-end", 1.0, "cuda:0", n=n) for n in GEMM_SIZES),
    ]
    reading = read(check, params, both, finished=True)
    assert reading.rows[3] == ("GEMM n=256", "65.5 µs", "10 µs", "1 s")
    assert reading.measured == (
        "This machine: the GPU wins from n=256 with the data on it (never end to end)"
    )


def test_pantry_bound_compares_memory_bandwidth() -> None:
    params = SCENARIOS["pantry-bound"].params
    check = real_check("pantry-bound", params)
    cpu = [result("bandwidth", "triad", 0.01, value=12.0, array_bytes=1 << 27)]
    reading = read(check, params, cpu, finished=True, no_gpu=True)
    assert reading.rows == (("copy", MISSING, NO_GPU), ("triad", "12.0 GB/s", NO_GPU))
    assert reading.model.endswith("; pantry ratio 6.67×")
    assert reading.measured.startswith("This CPU's pantry: 12.0 GB/s (triad)")
    gpu = [*cpu, result("bandwidth", "triad", 0.001, device="cuda:0", value=3000.0)]
    reading = read(check, params, gpu, finished=True)
    assert reading.measured.startswith("This machine: the GPU's pantry is 250× this CPU's")


def test_hallways_read_latency_and_rate_from_an_all_reduce() -> None:
    params = SCENARIOS["slow-hallway"].params
    check = real_check("slow-hallway", params)
    assert model_line(params) == (
        "Model: 2 kitchens run at 0.66× the speed of one; one kitchen is best"
    )
    pending = read(check, params, [])
    assert pending.header == ("all-reduce, 2 ranks", "time", "busbw")
    assert pending.rows[0] == ("8 B", PENDING, PENDING)
    assert read(check, params, [], finished=True).rows[-1] == ("16 MiB", MISSING, MISSING)
    measured = [
        result("comm", "all_reduce", 120e-6, value=6.7e-5, bytes=8, ranks=2),
        result("comm", "all_reduce", 0.016, value=1.05, bytes=16 << 20, ranks=2),
    ]
    reading = read(check, params, measured, finished=True)
    assert reading.rows[0] == ("8 B", "120 µs", "6.7e-05 GB/s")
    assert reading.rows[1] == ("64 KiB", MISSING, MISSING)
    assert reading.rows[3] == ("16 MiB", "16 ms", "1.05 GB/s")
    assert reading.measured == (
        "This machine's hallway: α ≈ 120 µs per all-reduce, β ≈ 1.1 GB/s (bus bandwidth, "
        "nccl-tests' definition)"
    )
    scaling = SCENARIOS["scaling"].params
    assert (
        model_line(scaling)
        == "Model: 32 kitchens run at 1.85× the speed of one; 8 are best (3.77×)"
    )
