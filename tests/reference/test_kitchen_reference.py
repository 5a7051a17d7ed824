"""The Kitchen's words about real hardware, each number beside the document it comes from.

Every figure is checked against the ``says`` text of its source (the document named in the
test), and every derived number (the headline's real ratios, the all-reduce bytes, the vector
add's crossover) is recomputed here by hand from those figures, exactly, in Fractions.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from gpu_tui.core.kitchen import figures, hardware_facts, model
from gpu_tui.core.kitchen.hardware_facts import Tier, crossover_elements
from gpu_tui.core.kitchen.measurement import real_check
from gpu_tui.core.kitchen.report import build_report, render_text
from gpu_tui.core.kitchen.scenarios import SCENARIOS

GIGA, TERA, MIB = 10**9, 10**12, 1 << 20
H100_HBM = Fraction(335, 100) * TERA  # "3.35TB/s" (NVIDIA's H100 datasheet)
EPYC_DRAM = Fraction(12 * 4800 * 10**6 * 8)  # 12 channels × DDR5-4800 × 8 B (AMD's page)
LAUNCH = Fraction(3, 10**6)  # "about 3 microseconds" (NVIDIA Developer Forums)


# -- each figure beside its source -----------------------------------------------------------------


def test_launch_is_a_few_microseconds_as_the_nvidia_forum_measures_a_null_kernel() -> None:
    source = figures.NULL_KERNEL_LAUNCH
    assert source.url.startswith("https://forums.developer.nvidia.com/")
    assert "about 3 microseconds" in source.says
    assert figures.NULL_KERNEL_LAUNCH_SECONDS == LAUNCH
    # the CUDA Programming Guide: the cost is per kernel, and a graph pays it once
    assert "paid once for the entire graph" in figures.CUDA_GRAPHS.says
    assert figures.CUDA_GRAPHS.primary
    # NVIDIA's Nsight blog: through PyTorch a launch is ~20 µs, so "a few µs" is the bare floor
    assert "about 20 µs of launch latency" in figures.FRAMEWORK_LAUNCH.says


def test_h100_figures_are_nvidias_datasheet_and_whitepaper() -> None:
    gpu = figures.H100_SXM
    whitepaper, datasheet = figures.H100_TABLE.says, figures.H100_SPECS.says
    assert gpu.fp32_lanes == 16_896
    assert "FP32 Cores / GPU 16896" in whitepaper
    assert "SMs 132; FP32 Cores / SM 128" in whitepaper
    # 1.98 GHz is the FP32 rated clock: the one at which 16,896 lanes give the datasheet's 67
    assert gpu.clock_hz == Fraction(198, 100) * GIGA
    assert gpu.memory_bytes_per_s == H100_HBM
    assert "bandwidth 3.35TB/s" in datasheet
    peak = hardware_facts.fp32_flops(gpu.fp32_lanes, gpu.clock_hz)
    assert peak == 2 * 16_896 * Fraction(198, 100) * GIGA
    assert round(peak / TERA, 1) == Fraction(669, 10)
    assert "FP32 67 | 51 teraFLOPS" in datasheet
    # links, per direction: "900GB/s" NVLink and "128GB/s" PCIe Gen5 count both directions
    links = figures.H100_LINKS.says
    assert gpu.peer_link_bytes_per_s == 450 * GIGA
    assert "NVIDIA NVLink: 900GB/s" in links
    assert gpu.host_link_bytes_per_s == 64 * GIGA
    assert "PCIe Gen5: 128GB/s" in links
    assert all(source.primary for source in figures.H100_SOURCES)


def test_epyc_9654_figures_are_amds_page_and_the_zen_fma_measurement() -> None:
    cpu, says = figures.EPYC_9654, figures.EPYC_TABLE.says
    assert figures.EPYC_TABLE.url.startswith("https://www.amd.com/")
    assert "# of CPU Cores 96" in says
    assert "Base Clock 2.4GHz" in says
    assert "Max. Boost Clock Up to 3.7GHz" in says
    assert (cpu.cores, cpu.base_hz, cpu.boost_hz) == (96, 24 * GIGA / 10, 37 * GIGA / 10)
    assert cpu.dram_bytes_per_s == EPYC_DRAM == Fraction(4608, 10) * GIGA
    assert "Per Socket Mem BW 460.8 GB/s" in says
    # two 256-bit FMA pipes (flatlib's vfpbench) × 8 FP32 lanes (an FMA is 2 FLOP)
    assert "256bit の乗算(積和) x2" in figures.ZEN_FMA_PIPES.says
    assert cpu.fp32_fma_lanes == 2 * (256 // 32) == 16
    l2, l3 = cpu.caches
    assert (l2.capacity_bytes, l3.capacity_bytes) == (96 * MIB, 384 * MIB)
    assert "L2 Cache 96MB" in figures.GENOA_L2.says
    assert "L3 Cache 384MB" in says
    # per-core read rates measured on Zen (Mynavi): the floor the caches stream at
    assert (l2.bytes_per_core_cycle, l3.bytes_per_core_cycle) == (24, 20)
    assert "L2で24Bytes/cycle、L3で20Bytes/cycle" in figures.ZEN_CACHE_RATES.says


def test_every_real_life_figure_names_its_source() -> None:
    for scenario in SCENARIOS.values():
        assert scenario.sources, scenario.name
        for source in scenario.sources:
            assert source.url.startswith("https://")
            assert source.says
            assert source.title
    weak = {s.url for s in SCENARIOS["onions"].sources if not s.primary}
    assert figures.CUDA_GRAPHS.url not in weak  # NVIDIA's own guide is primary
    assert figures.EPYC_TABLE.url not in weak  # AMD's own page
    assert figures.ZEN_CACHE_RATES.url in weak  # a magazine's measurement is not, and says so


# -- the onions' headline: one core, and a whole server CPU ----------------------------------------


def test_onions_headline_is_one_cpu_core_against_one_gpu() -> None:
    onions = SCENARIOS["onions"]
    p = onions.params
    assert model.chef_seconds(p) / model.brigade_seconds(p) == 20_000 / Fraction(20) == 1000
    assert "One chef (one CPU core) races one brigade (one GPU)" in onions.caption
    report = build_report(onions, p)
    assert "chef (1 CPU core) ÷ brigade (1 GPU)" in render_text(report)


def test_real_ratio_one_core_and_whole_server_cpu_by_hand() -> None:
    gpu_flops = 2 * 16_896 * Fraction(198, 100) * GIGA  # H100 SXM FP32
    one_core = 2 * 16 * Fraction(37, 10) * GIGA  # one EPYC 9654 core at its 3.7 GHz boost
    all_boost = 96 * one_core  # every core at 3.7 GHz: flatters the CPU
    all_base = 2 * 16 * 96 * Fraction(24, 10) * GIGA  # every core at the 2.4 GHz base
    assert hardware_facts.one_core_ratio() == gpu_flops / one_core == Fraction(20_908_800, 37_000)
    assert hardware_facts.whole_cpu_ratios() == (gpu_flops / all_boost, gpu_flops / all_base)
    assert round(float(gpu_flops / one_core)) == 565
    assert round(float(gpu_flops / all_boost), 1) == 5.9
    assert gpu_flops / all_base == Fraction(363, 40)  # 9.075
    comparison = SCENARIOS["onions"].comparison
    assert comparison == (
        "Real FP32 peaks: H100 = 565× one EPYC 9654 core, only 5.9–9.1× all 96 cores"
    )
    onions = SCENARIOS["onions"]
    assert comparison in render_text(build_report(onions, onions.params))


# -- the hallway: the bytes a data-parallel step sends ---------------------------------------------


@pytest.mark.parametrize(
    ("parameters", "gpus", "bytes_per_gradient", "payload", "per_gpu"),
    [
        (7 * 10**9, 8, 4, 28 * GIGA, 49 * GIGA),  # DDP + AMP: fp32 grads; 2·7/8 × 28 GB
        (7 * 10**9, 8, 2, 14 * GIGA, Fraction(49, 2) * GIGA),  # bf16 reduce (FSDP/ZeRO)
        (10**9, 2, 4, 4 * GIGA, 4 * GIGA),  # the slow hallway's example: 2·1/2 × 4 GB
        (10**9, 1, 4, 4 * GIGA, 0),  # one GPU sends nothing
    ],
)
def test_allreduce_bytes_by_hand(
    parameters: int, gpus: int, bytes_per_gradient: int, payload: int, per_gpu: Fraction
) -> None:
    assert hardware_facts.gradient_bytes(parameters, bytes_per_gradient) == payload
    assert hardware_facts.ring_bytes_per_gpu(payload, gpus) == per_gpu
    # the kitchen's hallway moves the same share: 2(K−1)/K · S / β (plus the latency steps)
    assert model.hallway_seconds(gpus, Fraction(0), Fraction(GIGA), Fraction(payload)) == (
        Fraction(per_gpu, GIGA)
    )


def test_ddp_under_amp_reduces_fp32_gradients_as_pytorch_documents() -> None:
    assert figures.DDP_AMP_GRADIENT_BYTES == 4  # fp32: AMP leaves the weights in fp32 ...
    assert "You should not call ``half()`` or ``bfloat16()``" in figures.AMP_KEEPS_FP32_WEIGHTS.says
    # ... and DDP reduces the gradients in their own dtype unless a hook compresses them
    assert "assumed to be ``torch.float32``" in figures.DDP_REDUCES_GRADIENT_DTYPE.says
    assert figures.BF16_REDUCE_GRADIENT_BYTES == 2
    assert "dtype for gradient reduction" in figures.FSDP_REDUCE_DTYPE.says
    assert "2*(n-1)/n" in figures.NCCL_BUS_BANDWIDTH.says


def test_slow_hallway_words_say_which_case_and_the_seconds_by_hand() -> None:
    text = SCENARIOS["slow-hallway"].in_real_life
    per_gpu = Fraction(2 * 1, 2) * 10**9 * 4  # 4 GB
    assert per_gpu / (450 * GIGA) == Fraction(2, 225)  # 8.9 ms
    assert per_gpu / (Fraction(100, 8) * GIGA) == Fraction(32, 100)
    assert "4 B each with PyTorch DDP + AMP (fp32 weights)" in text
    assert "2(K-1)/K of it per GPU" in text
    assert "1B parameters on 2 GPUs send 4 GB each, 8.9 ms over NVLink, 0.32 s over 100 GbE" in text
    assert "bf16" not in text  # the old line claimed bf16 gradients for this case


# -- the vector add's crossover, caches included ---------------------------------------------------


def hand_crossover_from_dram(launch: Fraction) -> int:
    """⌊L / (12 · (1/B_dram − 1/B_hbm))⌋ + 1: the GPU's first win when the CPU streams DRAM."""
    return math.floor(launch / (12 * (1 / EPYC_DRAM - 1 / H100_HBM))) + 1


def test_crossover_without_cache_by_hand() -> None:
    assert hand_crossover_from_dram(LAUNCH) == 133_574
    gpu = hardware_facts.gpu_seconds_per_byte()
    assert crossover_elements(hardware_facts.dram_only(), gpu, LAUNCH) == 133_574
    # the old "~445,000 elements" is this formula with a 10 µs launch: 3.3× the launch today
    assert hand_crossover_from_dram(Fraction(10, 10**6)) == 445_245


def test_crossover_waits_for_the_data_to_spill_out_of_the_cpu_cache() -> None:
    l2, l3 = hardware_facts.cpu_tiers()[:2]
    # each cache, every core reading at its per-core rate at 2.4 GHz, outruns HBM's 3.35 TB/s
    assert l2.bytes_per_s == 96 * 24 * Fraction(24, 10) * GIGA == Fraction(55_296, 10) * TERA / 1000
    assert l3.bytes_per_s == 96 * 20 * Fraction(24, 10) * GIGA > H100_HBM
    cached, dram, end_to_end = hardware_facts.vector_add_crossovers()
    assert cached == 384 * MIB // 12 + 1 == 33_554_433  # the first size past the L3
    assert dram == 133_574
    assert end_to_end is None  # PCIe (64 GB/s) is slower per byte than the CPU's own DRAM
    text = SCENARIOS["onions"].in_real_life
    assert "only once the arrays outgrow its 384 MiB L3: from 33,554,433 elements" in text
    assert "(133,574 with no cache)" in text
    assert text.startswith("An H100 with the data on it (3.35 TB/s, 3 µs launch)")
    assert "445,000" not in text


@pytest.mark.parametrize(
    ("cache_mib", "expected"),
    [
        (0, 133_574),  # no cache: DRAM from the first byte
        (1, 133_574),  # a cache smaller than the DRAM crossover changes nothing
        (32, 32 * MIB // 12 + 1),  # one CCD's L3
        (384, 384 * MIB // 12 + 1),  # the EPYC 9654's L3
        (1152, 1152 * MIB // 12 + 1),  # a 3D V-Cache part's L3
    ],
)
def test_crossover_moves_with_cache_size(cache_mib: int, expected: int) -> None:
    fast = Fraction(4608, 1000) * TERA  # the L3 rate above: faster than HBM
    tiers = (Tier(cache_mib * MIB, fast), Tier(None, EPYC_DRAM))
    assert crossover_elements(tiers, hardware_facts.gpu_seconds_per_byte(), LAUNCH) == expected


def test_a_cache_slower_than_hbm_moves_the_crossover_only_by_its_own_rate() -> None:
    slow = Fraction(1, 1) * TERA  # 1 TB/s: faster than DRAM, slower than HBM
    tiers = (Tier(384 * MIB, slow), Tier(None, EPYC_DRAM))
    by_hand = math.floor(LAUNCH / (12 * (1 / slow - 1 / H100_HBM))) + 1
    assert by_hand == 356_383
    assert crossover_elements(tiers, hardware_facts.gpu_seconds_per_byte(), LAUNCH) == by_hand


def brute_force(tiers: tuple[Tier, ...], gpu: Fraction, launch: Fraction, top: int) -> int | None:
    for n in range(1, top + 1):
        if launch + 12 * n * gpu < hardware_facts.stream_seconds(12 * n, tiers):
            return n
    return None


@pytest.mark.parametrize(
    ("capacities", "rates", "gpu", "launch"),
    [
        ((120, None), (Fraction(5), Fraction(1)), Fraction(1, 3), Fraction(7)),
        ((240, None), (Fraction(5), Fraction(1)), Fraction(1, 3), Fraction(7)),
        ((60, 600, None), (Fraction(2), Fraction(1, 2), Fraction(1, 4)), Fraction(1, 3), 0),
        ((60, None), (Fraction(1, 2), Fraction(1, 4)), Fraction(1, 3), Fraction(50)),
        ((None,), (Fraction(3),), Fraction(1, 3), Fraction(1)),
    ],
)
def test_closed_form_crossover_equals_a_search(
    capacities: tuple[int | None, ...],
    rates: tuple[Fraction, ...],
    gpu: Fraction,
    launch: Fraction,
) -> None:
    tiers = tuple(Tier(c, r) for c, r in zip(capacities, rates, strict=True))
    assert crossover_elements(tiers, gpu, launch) == brute_force(tiers, gpu, launch, 2_000)


# -- launch cost in the words --------------------------------------------------------------------


def test_complex_recipe_and_measure_panel_say_a_bare_launch_is_about_3_us() -> None:
    text = SCENARIOS["complex-recipe"].in_real_life
    assert text.startswith("A bare kernel launch costs ~3 µs (more via PyTorch; CUDA graphs")
    assert "5-20 µs" not in text
    for name in ("onions", "complex-recipe"):
        check = real_check(name, SCENARIOS[name].params)
        assert "~3 µs" in check.analogy
        assert "~10 µs" not in check.analogy + check.without_gpu
