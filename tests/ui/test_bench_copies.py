"""The copies matrix in the Bench pane, from the recorded (modelled) 8×H100 HGX run: p cycles
its four tables in the plot's place, every cell and the note whole at 80×24 and 160×48, cells
coloured against the best of their kind, the cell under the cursor explained."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Static

from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.store import load
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.bench import comm_plot, plot_data
from gpu_tui.ui.bench.bench_plot import BenchPlot
from gpu_tui.ui.bench.copy_table import CopyTable, band, cells
from gpu_tui.ui.bench_pane import BenchPane
from gpu_tui.ui.widgets.reading_box import ReadingBox
from tests.fakes.copies_run import FIXTURE
from tests.polling import until
from tests.ui.conftest import fixed_inventory

SAVED = "bench-20261120T140211Z-comm.json"
TITLES = [
    "1/4 Copies GB/s, P2P",
    "2/4 Copies GB/s, no P2P (staged via host)",
    "3/4 Copies latency µs, P2P",
    "4/4 Copies latency µs, no P2P (staged via host)",
]


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data" / "results").mkdir(parents=True)
    return tmp_path / "data"


def saved(data_dir: Path, slow_pair: bool = False) -> None:
    data = json.loads(FIXTURE.read_text())
    if slow_pair:  # cuda:3 → cuda:5 at 150 GB/s, as a link gone bad would show
        for result in data["results"]:
            p = result["params"]
            if (result["variant"], p["src"], p["dst"], p["role"]) == (
                "p2p",
                "cuda:3",
                "cuda:5",
                "bandwidth",
            ):
                scale = result["value"] / 150.0
                for key in ("median_seconds", "p20_seconds", "p80_seconds"):
                    result[key] *= scale
                result["value"], result["percent_of_peak"] = 150.0, 100 * 150.0 / 450
    (data_dir / "results" / SAVED).write_text(json.dumps(data))


def bench_app() -> GpuTuiApp:
    inventory = fixed_inventory(demo=False)
    return make_app(AppConfig(pane="bench", discover=lambda: inventory, host="test"))


async def shown(pilot: Pilot[Any]) -> BenchPane:
    pane = pilot.app.query_one(BenchPane)
    await until(pilot, lambda: len(pane.results) == 256, "the saved copies run shown")
    await pilot.pause()
    return pane


def title(pane: BenchPane) -> str:
    return str(pane.query_one("#bench-plots").border_title)


def assert_whole(pilot: Pilot[Any], pane: BenchPane) -> None:
    """Every column, row, the title and the note fit the space they get: nothing is cut."""
    table = pane.query_one(CopyTable)
    assert table.display
    assert not pane.query_one(BenchPlot).display
    assert table.virtual_size.width <= table.scrollable_content_region.width
    assert table.virtual_size.height <= table.scrollable_content_region.height
    plots = pane.query_one("#bench-plots")
    assert len(title(pane)) + 4 <= plots.size.width
    assert len(str(plots.border_subtitle)) + 4 <= plots.size.width
    note = pane.query_one("#bench-plot-note", Static)
    lines = Text(str(note.render())).wrap(pilot.app.console, note.size.width)
    assert len(lines) <= note.size.height


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_p_cycles_the_four_matrices_each_whole(data_dir: Path, size: tuple[int, int]) -> None:
    saved(data_dir)
    app = bench_app()
    async with app.run_test(size=size) as pilot:
        pane = await shown(pilot)
        if size[0] < 110:  # one view at a time: p shows the plots' place, then cycles
            await pilot.press("p")
            await pilot.pause()
        seen = []
        for _ in TITLES:
            seen.append(title(pane))
            assert_whole(pilot, pane)
            await pilot.press("p")
            await pilot.pause()
        assert seen == TITLES
        assert title(pane) == TITLES[0]  # round again
        assert pane.query_one("#bench-plots").border_subtitle == (
            "colour: against the best of its kind · p next"
        )
        table = pane.query_one(CopyTable)
        assert table.matrix is not None
        rows = cells(table.matrix)
        assert rows[0] == ["from\\to", *(f"GPU{i}" for i in range(8)), "host"]
        assert rows[1][:3] == ["GPU0", "-", "374"]
        assert rows[9][1] == "53.7"  # host → GPU0
        assert rows[1][9] == "52.8"  # GPU0 → host
        note = str(pane.query_one("#bench-plot-note", Static).render())
        assert "GPU pairs 82-84 % of NV18: 18 × 25 GB/s (NVLink 4.0) = 450 GB/s" in note
        assert "host 84-87 % of PCIe Gen5 x16 = 63 GB/s" in note


async def test_cells_are_coloured_against_the_best_of_their_kind(data_dir: Path) -> None:
    saved(data_dir, slow_pair=True)
    app = bench_app()
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await shown(pilot)
        table = pane.query_one(CopyTable)

        def style(src: str, column: int) -> str:
            return str(table.get_cell(src, str(column)).style)

        def component(name: str) -> str:
            return str(table.get_component_rich_style(f"copy-table--{name}"))

        assert style("cuda:3", 6) == component("poor")  # 150 of the best 378 GB/s
        assert style("cuda:3", 5) == component("good")
        assert style("host", 1) == component("good")  # 53.7 GB/s: PCIe, against PCIe
        assert style("cuda:3", 4) == component("none")  # itself
        assert component("good") != component("poor")
        assert [band(s) for s in (1.0, 0.79, 0.5, 0.3, 0.1, None)] == [
            "good",
            "fair",
            "fair",
            "poor",
            "low",
            None,
        ]
        table.focus()
        table.move_cursor(row=3, column=6)
        await pilot.pause()
        detail = str(pane.query_one("#bench-detail-box", ReadingBox).text.render())
        assert detail.startswith("copy p2p cuda:3→cuda:5 on cuda:3: 150 GB/s")
        assert "33 % of the 450 GB/s peak." in detail


def test_a_comm_run_has_its_busbw_plot_first_then_the_matrices() -> None:
    copies_run = load(FIXTURE).results
    collective = BenchResult(
        "comm",
        "all_reduce",
        "cuda:0",
        "bf16",
        {"bytes": 1 << 20, "ranks": 8},
        1e-4,
        1e-4,
        1e-4,
        10,
        15.0,
        "GB/s",
        None,
    )
    matrices = tuple(f"copies:{m}:{r}" for r in ("bandwidth", "latency") for m in ("p2p", "staged"))
    assert comm_plot.views([collective]) == ("comm",)
    assert comm_plot.views([collective, *copies_run]) == ("comm", *matrices)
    assert comm_plot.views(copies_run) == matrices
    assert comm_plot.is_comm_run([collective, *copies_run])
    assert comm_plot.matrix_for("comm", copies_run) is None
    spec = plot_data.build("gemm", [collective, *copies_run])
    assert spec.view == "comm"  # the busbw plot, of the collectives alone
    assert [s.label for s in spec.series] == ["all_reduce bf16"]
