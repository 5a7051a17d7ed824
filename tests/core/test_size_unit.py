"""Sizes in the unit the user chose: the formatters in binary (the default, as before) and in
decimal, the text that follows them, ``gpu-tui watch``'s text in GB while its JSON keeps bytes,
and a unit not one of them refused in one line."""

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
def decimal() -> Iterator[None]:
    units.set_size_unit("decimal")
    yield
    units.set_size_unit("binary")


def test_binary_is_the_default_and_reads_as_before() -> None:
    assert units.size_unit() == "binary"
    assert units.format_bytes(34359738368) == "32.0 GiB"
    assert units.format_bytes(1023) == "1023 B"
    assert units.format_bytes_short(12.3 * 2**30) == "12.3G"
    assert units.format_bytes_exact(1536 << 20) == "1536 MiB"
    assert units.format_bytes_exact(1500) == "1500 B"  # no binary unit divides it: whole bytes
    assert units.format_bytes_trimmed(1_879_048_192) == "1.75 GiB"
    assert units.format_gigabytes(60 << 30) == "60.0 GiB"
    assert units.gigabyte_symbol() == "GiB"


@pytest.mark.usefixtures("decimal")
@pytest.mark.parametrize(
    ("value", "text"),
    [
        (999, "999 B"),
        (1000, "1.0 kB"),
        (999 * 10**6, "999.0 MB"),  # a unit from one of it up: 999 MB stays MB …
        (10**9, "1.0 GB"),  # … and 1000 MB is 1.0 GB
        (10**9 - 1, "1.0 GB"),  # as written: "1000.0 MB" would read as the wrong unit
        (34359738368, "34.4 GB"),  # 32 GiB
        (5 * 10**12, "5.0 TB"),
        (10**16, "10000.0 TB"),  # the largest unit takes everything above it
    ],
)
def test_decimal_format_bytes_steps_by_a_thousand(value: int, text: str) -> None:
    assert units.format_bytes(value) == text


@pytest.mark.usefixtures("decimal")
@pytest.mark.parametrize(
    ("value", "short", "exact", "trimmed"),
    [
        (512, "512B", "512 B", "512 B"),
        (1000, "1.0k", "1 kB", "1 kB"),
        (4096, "4.1k", "4.1 kB", "4.096 kB"),  # a binary size: no whole decimal form
        (4 << 20, "4.2M", "4.19 MB", "4.1943 MB"),
        (64 * 10**6, "64.0M", "64 MB", "64 MB"),
        (1 << 30, "1.1G", "1.07 GB", "1.07374 GB"),
        (3 * 10**12, "3.0T", "3 TB", "3 TB"),
    ],
)
def test_decimal_short_exact_and_trimmed(value: int, short: str, exact: str, trimmed: str) -> None:
    assert units.format_bytes_short(value) == short
    assert units.format_bytes_exact(value) == exact
    assert units.format_bytes_trimmed(value) == trimmed


@pytest.mark.usefixtures("decimal")
def test_decimal_gigabytes_and_a_size_kept_in_binary_for_a_stored_text() -> None:
    assert units.gigabyte_symbol() == "GB"
    assert units.format_gigabytes(60 << 30) == "64.4 GB"
    assert units.format_gigabytes(80 << 30, ".0f", gap="") == "86GB"
    assert units.format_gigabytes(60 << 30, symbol=False) == "64.4"
    assert units.format_gigabytes(Unknown("not supported")) == "–"
    assert units.format_gigabytes(None, unknown="?") == "?"
    assert units.format_bytes_exact(4 << 20, unit="binary") == "4 MiB"


def test_a_byte_axis_ticks_at_round_sizes_of_the_unit_shown(decimal: None) -> None:
    assert units.byte_ticks(8, 1 << 30) == (10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9)
    assert [units.format_byte_tick(t) for t in (10, 1e3, 1e6, 1e9)] == ["10", "1k", "1M", "1G"]
    units.set_size_unit("binary")
    assert units.byte_ticks(8, 1 << 30) == (8, 128, 2048, 32768, 524288, 8 << 20, 128 << 20)
    assert [units.format_byte_tick(t) for t in (8, 2048, 8 << 20)] == ["8", "2K", "8M"]


@pytest.mark.usefixtures("decimal")
def test_counts_keep_their_prefixes_whatever_the_size_unit() -> None:
    assert units.format_binary_count(4096) == "4K"  # a matrix's n, not bytes
    assert units.format_si_count(2500) == "2.5k"


def test_an_unknown_unit_is_refused_and_the_unit_kept() -> None:
    with pytest.raises(ValueError, match="metric"):
        units.set_size_unit("metric")
    assert units.size_unit() == "binary"


@pytest.mark.usefixtures("decimal")
def test_watch_text_in_decimal() -> None:
    line = watch_text.human_line(a_sample(a_gpu()))
    assert "mem  4.3/17.2GB swap 0.0/2.1GB" in line  # 4 of 16 GiB, 2 GiB of swap
    assert "64.4/85.9GB  71 °C" in line  # 60 of 80 GiB
    assert "GiB" not in line


@pytest.mark.usefixtures("decimal")
def test_fleet_text_grid_and_node_in_decimal() -> None:
    from gpu_tui.core.fleet.gpu_lines import gpu_line
    from gpu_tui.core.fleet.grid import node_row
    from gpu_tui.core.fleet.model import FleetNode
    from gpu_tui.core.fleet.node_detail import GpuRow
    from tests.fleet.fake_fleet import AT, h100

    gpu = h100("dgx-a", 0, 50.0)  # 40 of 80 GiB used
    line = gpu_line(gpu)
    assert " 43/86GB " in line
    assert "GiB" not in line
    node = node_row(FleetNode("dgx-a", up=True, last_scrape_time=AT, gpus=[gpu, gpu]), AT)
    assert "86/172G" in node.cells()  # the one-letter unit is the same in either
    assert "43/86G" in GpuRow("0", gpu).cells()


@pytest.mark.usefixtures("decimal")
def test_the_guide_catalog_and_the_specs_bars_in_decimal() -> None:
    from gpu_tui.core.devices.compare import compare_accelerator
    from gpu_tui.core.guide.lineup import bar_charts, catalog_rows, header_labels
    from gpu_tui.ui.guide.catalog_view import describe
    from tests.ui.conftest import fixed_inventory

    assert header_labels()[1] == "Mem GB"
    h100 = next(r for r in catalog_rows() if r.name == "H100 SXM")
    assert h100.memory_gib == 80  # kept as published: a vendor's "80 GB" is 80 GiB
    assert " · 85.9 GB HBM3 · " in describe(h100).plain
    memory = bar_charts([h100])[2]
    assert (memory.unit, memory.bars[0].value) == ("GB", 80 * 2**30 / 1e9)
    (gpu,) = fixed_inventory(demo=True).accelerators
    *_, chart = compare_accelerator(gpu)
    assert chart.unit == "GB"
    mine = next(bar for bar in chart.bars if bar.this)
    assert mine.value == gpu.memory_total_bytes / 1e9


def test_comm_point_labels_stay_binary_for_the_run_file(decimal: None) -> None:
    from gpu_tui.core.comm.ranks import point_labels

    comm = {"operations": ["all_reduce"], "dtypes": {"fp32": [8, 3 << 20]}}
    assert point_labels(comm) == ["all_reduce fp32 8 B", "all_reduce fp32 3 MiB"]


def test_the_comm_plot_ticks_its_byte_axis_in_the_unit_shown(decimal: None) -> None:
    from gpu_tui.core.bench.results import BenchResult
    from gpu_tui.ui.bench.comm_plot import comm

    def point(size: int) -> BenchResult:
        seconds = {"median_seconds": 1e-3, "p20_seconds": 1e-3, "p80_seconds": 1e-3}
        return BenchResult(
            **seconds,
            benchmark="comm",
            variant="all_reduce",
            device="cuda",
            dtype="fp32",
            params={"bytes": size},
            repeats=5,
            value=1.0,
            unit="GB/s",
            percent_of_peak=None,
        )

    results = [point(8), point(1 << 30)]
    plot = comm(results, [])
    assert plot.xbytes
    assert plot.xticks == (10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9)
    units.set_size_unit("binary")
    assert comm(results, []).xticks[:3] == (8, 128, 2048)


def run_watch(config: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpu_tui", "--demo", "watch", "--count", "1", *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XDG_CONFIG_HOME": str(config)},
    )


def test_the_config_file_sets_watch_text_and_its_json_keeps_bytes(tmp_path: Path) -> None:
    (tmp_path / "gpu-tui").mkdir()
    (tmp_path / "gpu-tui" / "config.toml").write_text('size_unit = "decimal"\n')
    text = run_watch(tmp_path)
    assert text.returncode == 0, text.stderr
    assert "SIMULATED" in text.stdout
    assert "/85.5GB" in text.stdout  # the simulated H100's 81,559 MiB
    assert "GiB" not in text.stdout
    flag = run_watch(tmp_path, "--size-unit", "binary")  # the flag wins over the file
    assert "/79.6GiB" in flag.stdout
    assert "GB " not in flag.stdout
    as_json = run_watch(tmp_path, "--json")
    assert as_json.returncode == 0, as_json.stderr
    (gpu,) = json.loads(as_json.stdout.splitlines()[0])["gpus"]
    assert gpu["memory_total_bytes"] == 81559 << 20
    assert "GB" not in as_json.stdout.replace("80GB", "")  # the product's name says 80GB


@pytest.mark.parametrize("argv", [("--size-unit", "metric"), ("info", "--size-unit", "si")])
def test_a_bad_size_unit_is_one_line_and_exit_2(argv: tuple[str, ...]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gpu_tui", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("gpu-tui")
    assert "--size-unit: invalid choice" in line
    assert "'binary', 'decimal'" in line
