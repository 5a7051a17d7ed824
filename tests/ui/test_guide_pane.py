"""The Guide pane with Pilot at 80×24: sections by key, catalog sort/filter, fit and cost inputs."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, OptionList, Static, TabbedContent

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.outputs import atomic_write
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.store import auto_path
from gpu_tui.core.guide.cost import REFERENCE_PRICES
from gpu_tui.core.guide.lineup import COLUMNS
from gpu_tui.core.guide.metrics import KEY_METRICS
from gpu_tui.core.guide.prices import PRICES
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.guide.bars_view import BarsView
from gpu_tui.ui.guide.catalog_view import CatalogView
from gpu_tui.ui.guide.fit_view import FitView
from gpu_tui.ui.guide_pane import SECTIONS, GuidePane
from gpu_tui.ui.widgets.field import Field
from gpu_tui.ui.widgets.guide_bars import GuideBars
from gpu_tui.ui.widgets.textual_internals import screen_strips
from tests.conftest import SimulatedNvml
from tests.polling import until
from tests.ui.conftest import fixed_inventory
from tests.ui.test_every_word import screen_lines

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _no_saved_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cost view reads saved bench runs: give each test an empty store of its own."""
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(tmp_path / "data"))


def section(app: GpuTuiApp) -> str:
    return app.query_one("#guide-sections", TabbedContent).active.removeprefix("guide-")


def text_of(app: GpuTuiApp, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


def column(app: GpuTuiApp, table_id: str, index: int) -> list[str]:
    table = app.query_one(table_id, DataTable)
    return [str(table.get_row_at(row)[index]).strip() for row in range(table.row_count)]


async def type_into(pilot: Pilot[int], app: GpuTuiApp, selector: str, text: str) -> None:
    """Replace an input's text by typing, as a user would: Enter first (a field takes text
    once entered; until then a digit is a pane key)."""
    field = app.query_one(selector, Field)
    field.focus()
    field.value = ""
    await pilot.press(*([] if field.editing else ["enter"]), *text)
    await pilot.pause()


async def test_letters_and_brackets_move_between_sections(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert section(app) == "catalog"
        assert isinstance(app.focused, DataTable)
        for key, name in (("b", "bars"), ("w", "why"), ("v", "versus"), ("m", "metrics")):
            await pilot.press(key)
            assert section(app) == name
        assert isinstance(app.focused, OptionList)  # the metrics list has the keyboard
        await pilot.press("right_square_bracket")  # wraps round to the first
        assert section(app) == "catalog"
        await pilot.press("left_square_bracket")
        assert section(app) == SECTIONS[-1].name
        await pilot.press("f")
        assert section(app) == "fit"
        assert app.focused is app.query_one("#fit-params", Input)
        await pilot.press("escape")  # out of the input: letters are keys again
        await pilot.press("o")
        assert section(app) == "cost"
        # The app's own tabs did not take the inner tabs' activation for theirs.
        assert app.query_one(GuidePane).active


async def test_sort_cycles_columns_and_reverses(app_factory: Callable[..., GpuTuiApp]) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        view = app.query_one(CatalogView)
        assert COLUMNS[view.sort_index].attr == "bf16_tflops"
        bf16 = [r.bf16_tflops for r in view.rows if r.bf16_tflops is not None]
        assert bf16 == sorted(bf16, reverse=True)
        await pilot.press("down", "down", "down")
        await pilot.press("s")  # BF16 → FP8, largest first
        assert COLUMNS[view.sort_index].attr == "fp8_tflops"
        fp8 = [r.fp8_tflops for r in view.rows if r.fp8_tflops is not None]
        assert fp8 == sorted(fp8, reverse=True)
        assert app.query_one("#guide-table", DataTable).cursor_row == 0  # a new order: its top
        assert "FP8 ▼" in str(app.query_one("#guide-table", DataTable).border_title)
        await pilot.press("r")
        fp8_up = [r.fp8_tflops for r in view.rows if r.fp8_tflops is not None]
        assert fp8_up == sorted(fp8_up)
        assert view.rows[-1].fp8_tflops is None  # missing figures stay last either way
        for _ in range(len(COLUMNS) - 4):  # on round to the name column: A to Z
            await pilot.press("s")
        assert COLUMNS[view.sort_index].attr == "name"
        names = [r.name.lower() for r in view.rows]
        assert names == sorted(names)


async def test_filter_by_vendor_keeps_this_machine(app_factory: Callable[..., GpuTuiApp]) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("slash")
        assert app.focused is app.query_one("#guide-filter", Input)
        await pilot.press(*"amd")
        await pilot.press("enter")
        assert isinstance(app.focused, DataTable)
        rows = app.query_one(CatalogView).rows
        catalog = [r for r in rows if not r.local]
        assert catalog
        assert all(r.vendor == "AMD" for r in catalog)
        assert {r.key for r in rows if r.local} == {"cpu", "gpu:0"}
        assert app.query_one("#guide-table", DataTable).row_count == len(rows)
        # The bars show the same rows.
        chart = app.query_one("#guide-bars-memory", GuideBars).chart
        assert chart is not None
        assert len(chart.bars) == len(rows)
        await type_into(pilot, app, "#guide-filter", "nvidia h100")
        names = {r.name for r in app.query_one(CatalogView).rows if not r.local}
        assert names == {"H100 SXM", "H100 PCIe"}


async def test_selected_row_shows_its_source(app_factory: Callable[..., GpuTuiApp]) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await type_into(pilot, app, "#guide-filter", "h200")
        await pilot.press("escape")
        view = app.query_one(CatalogView)
        index = next(i for i, r in enumerate(view.rows) if r.name == "H200 SXM")
        app.query_one("#guide-table", DataTable).move_cursor(row=index)
        await pilot.pause()
        detail = text_of(app, "#guide-detail")
        assert "141 GiB HBM3e" in detail  # as NVIDIA means its "141GB"
        assert "sources: NVIDIA H200 Tensor Core GPU, specifications" in detail
        assert "https://www.nvidia.com/en-us/data-center/h200/" in detail
        assert "2023" in detail  # NVIDIA launched it in November 2023


async def test_a_figure_no_document_gives_is_said_in_words(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    """The GB200's per-GPU memory is published nowhere: the detail says so, no abbreviation."""
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await type_into(pilot, app, "#guide-filter", "gb200")
        await pilot.press("escape")
        view = app.query_one(CatalogView)
        index = next(i for i, r in enumerate(view.rows) if r.name == "B200 (GB200)")
        app.query_one("#guide-table", DataTable).move_cursor(row=index)
        await pilot.pause()
        detail = text_of(app, "#guide-detail")
        assert "memory HBM3e, size not published" in detail
        assert not re.search(r"\bn/p\b", detail)  # (a word: "garden/processors" is a URL)


async def test_weakly_sourced_figures_are_marked_with_a_legend(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one("#guide-table", DataTable)
        assert "† secondary source" in str(table.border_subtitle)
        await type_into(pilot, app, "#guide-filter", "gaudi 2")
        await pilot.press("escape")
        view = app.query_one(CatalogView)
        index = next(i for i, r in enumerate(view.rows) if r.name == "Intel Gaudi 2")
        table.move_cursor(row=index)
        await pilot.pause()
        fp8 = [c.attr for c in COLUMNS].index("fp8_tflops")
        assert table.get_row_at(index)[fp8].plain.strip() == "865†"
        bf16 = [c.attr for c in COLUMNS].index("bf16_tflops")
        assert table.get_row_at(index)[bf16].plain.strip() == "432"  # Intel's own slide
        detail = text_of(app, "#guide-detail")
        assert "FP8 865†" in detail
        assert "† = only a secondary source states it" in detail


async def test_bars_say_why_a_figure_is_missing_and_mark_secondary_sources(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    """As the Catalog does: words, not "n/p"; "no BF16" where the architecture has none; †
    after a figure only a secondary source gives, with its legend under the charts."""
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        bars = _shown_at_width(app.query_one("#guide-bars-bf16", GuideBars))
        lines = {line.split("  ")[0].strip(): line for line in bars.splitlines()}
        assert "n/p" not in bars
        for name in ("V100 SXM2", "P100 SXM2", "T4"):
            assert lines[name].rstrip().endswith("no BF16"), lines[name]
        assert lines["B200 (GB200)"].rstrip().endswith("2,500†")
        note = text_of(app, "#guide-bars-note")
        assert "n/p" not in note
        assert "† = only a secondary source" in note
        assert "no BF16 = the architecture has none" in note


async def test_at_160x48_a_missing_figure_is_said_whole_beside_a_long_name() -> None:
    inventory = fixed_inventory(demo=False)
    # this CPU's bar reads "▶ CPU FP32: Intel Xeon Platinum 8480+": the longest label
    cpu = replace(inventory.cpu, model="Intel(R) Xeon(R) Platinum 8480+")
    inventory = replace(inventory, cpu=cpu)
    app = make_app(AppConfig(pane="guide", discover=lambda: inventory, host="test-host"))
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        widget = app.query_one("#guide-bars-bf16", GuideBars)
        region = widget.region.intersection(app.screen.region)
        shown = "\n".join(screen_lines(app, region))  # as the terminal draws it
        assert "not published" in shown
        assert "…" not in shown  # a long name wraps; a figure's words are never cut


def _bars_in_sight(app: GpuTuiApp, labels: set[str]) -> int:
    """The bars the terminal shows inside the Bars view's border: lines that start with a
    bar's label (each one line at 80 columns)."""
    view = app.query_one(BarsView)
    lines = [strip.text for strip in screen_strips(app.screen)]
    inside = lines[view.region.y + 1 : view.region.bottom - 1]
    return sum(
        any(line.lstrip("│ ").startswith(f"{label} ") for label in labels) for line in inside
    )


async def test_the_bars_border_counts_the_bars_out_of_sight(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    """At 80×24 a few of the three charts' bars fit: the border says how many lie below, and
    at the end how many lie above, as the catalog's border counts its rows."""
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        await pilot.pause()
        view = app.query_one(BarsView)
        charts = [bars.chart for bars in app.query(GuideBars) if bars.chart is not None]
        total = sum(len(chart.bars) for chart in charts)
        labels = {bar.label for chart in charts for bar in chart.bars}
        seen = _bars_in_sight(app, labels)
        assert 0 < seen < total
        assert view.border_subtitle == f"↓ {total - seen} more bars"
        await pilot.press("end")
        await until(pilot, lambda: view.scroll_y == view.max_scroll_y, "the end of the bars")
        await pilot.pause()
        seen = _bars_in_sight(app, labels)
        assert view.border_subtitle == f"↑ {total - seen} more bars"


async def test_the_cpu_fp32_peak_is_one_number_in_specs_and_guide(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    """This CPU's FP32 peak (166.15 GFLOP/s here) read in the Specs table and its comparison
    bars, then in the Guide's catalog and bars: the same digits everywhere (166 GFLOP/s is
    0.166 TFLOP/s), never 166.2 beside 0.17."""
    app = app_factory(pane="specs")
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        table = app.query_one("#spec-table", DataTable)
        rows = dict(
            (str(r[0]), str(r[1])) for r in (table.get_row_at(i) for i in range(table.row_count))
        )
        specs = rows["FP32 peak"]
        assert specs.endswith(" GFLOP/s")
        gflops = specs.removesuffix(" GFLOP/s")
        screen = [strip.text for strip in screen_strips(app.screen)]
        compared = {
            line.split("▶ this CPU")[1].split()[-2] for line in screen if "▶ this CPU" in line
        }
        await pilot.press("5")
        await until(pilot, lambda: bool(app.query(CatalogView)), "the Guide")
        await pilot.pause()
        view = app.query_one(CatalogView)
        fp32 = next(i for i, col in enumerate(COLUMNS) if col.attr == "fp32_tflops")
        cpu = next(i for i, row in enumerate(view.rows) if row.key == "cpu")
        catalog = column(app, "#guide-table", view.shown_columns.index(fp32))[cpu]
        await pilot.press("b")
        await pilot.pause()
        bars = _shown_at_width(app.query_one("#guide-bars-bf16", GuideBars))
        in_bars = next(line for line in bars.splitlines() if "CPU" in line).split()[-1]
        tflops = {*compared, catalog, in_bars}
        assert len(tflops) == 1, (specs, tflops)
        assert float(tflops.pop()) * 1000 == pytest.approx(float(gflops))


async def test_home_and_end_go_to_the_first_and_last_row(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    """As in the Monitor's process table: End was a DataTable's sideways scroll, which in the
    catalog shifted the table a column instead of reaching its last row."""
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key, table_id in (("c", "#guide-table"), ("f", "#fit-table")):
            await pilot.press(key)
            if key == "f":
                await pilot.press("escape")  # from the form to the table
            table = app.query_one(table_id, DataTable)
            assert app.focused is table
            await pilot.press("end")
            await pilot.pause()
            assert table.cursor_row == table.row_count - 1 > 0, table_id
            assert table.scroll_x == 0
            assert table.scroll_y == table.max_scroll_y  # the last row is in sight
            await pilot.press("home")
            await pilot.pause()
            assert (table.cursor_row, table.scroll_y) == (0, 0), table_id


async def test_fit_headings_and_formula_say_what_each_number_counts(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    """ "Memory  Need  Of one  Decode" read as one phrase, and the KV formula's last "× 1" (the
    batch) said nothing: each heading names its quantity, the batch says "seq"."""
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        table = app.query_one("#fit-table", DataTable)
        headings = [str(column.label).replace("\n", " ") for column in table.columns.values()]
        assert headings[1:4] == ["Memory each", "Devices needed", "Share of one"]
        assert table.header_height == 2
        assert table.virtual_size.width <= table.scrollable_content_region.width  # no sideways
        assert re.search(r"8×128 KV × 4,096 tok × 1 seq$", text_of(app, "#fit-summary"), re.M)
        assert "19.4 %" in str(table.get_row_at(0)[3])  # the Guide's one percent style


async def test_wide_fit_detail_lists_where_each_formula_comes_from(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    """At 160×48 the box beside the table was empty in its bottom half: it now ends with each
    formula's source, and its text reaches well into the box."""
    app = app_factory(pane="guide")
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        detail = text_of(app, "#fit-detail")
        assert "formulas from:" in detail
        assert "· kv cache: " in detail
        box = app.query_one("#fit-detail-box")
        text = app.query_one("#fit-detail")
        assert text.region.height >= box.region.height * 3 // 4


async def test_simulated_device_is_labelled_everywhere(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        names = column(app, "#guide-table", 0)
        assert any(name.startswith("▶") and name.endswith("(SIMULATED)") for name in names)
        chart = app.query_one("#guide-bars-bf16", GuideBars).chart
        assert chart is not None
        assert [b.label for b in chart.bars if b.simulated] == ["▶ H100 80GB HBM3 (SIMULATED)"]
        await pilot.press("f")
        assert column(app, "#fit-table", 0)[0].endswith("(SIMULATED)")
        assert "(SIMULATED)" in text_of(app, "#fit-summary").splitlines()[0]


async def test_eight_identical_gpus_are_one_entry_that_says_eight(
    app_factory: Callable[..., GpuTuiApp], simulated_nvml: SimulatedNvml
) -> None:
    """An HGX H100 (eight identical GPUs, through nvidia-ml-py over the simulated driver): one
    row in the catalog, the bars and Fit, named with the count; the table's title says what
    this machine adds in words rather than a bare number."""
    nvml = simulated_nvml("hgx_h100_8gpu").binding
    app = app_factory(demo=False, pane="guide", nvml=nvml)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        names = column(app, "#guide-table", 0)
        mine = [name for name in names if "H100 80GB HBM3" in name]
        assert mine == ["▶ 8 × H100 80GB HBM3"]
        title = str(app.query_one("#guide-table", DataTable).border_title)
        assert "▶ this machine: 8 GPUs + CPU" in title
        row = next(r for r in app.query_one(CatalogView).rows if r.local and r.key != "cpu")
        assert row.count == 8
        app.query_one("#guide-table", DataTable).move_cursor(row=names.index(mine[0]))
        await pilot.pause()
        assert "This machine has 8 of these (devices 0–7)" in text_of(app, "#guide-detail")
        for metric in ("bandwidth", "bf16", "memory"):
            chart = app.query_one(f"#guide-bars-{metric}", GuideBars).chart
            assert chart is not None
            assert [b.label for b in chart.bars if b.local and "H100" in b.label] == [
                "▶ 8 × H100 80GB HBM3"
            ]
        await pilot.press("f")
        await type_into(pilot, app, "#fit-params", "llama-3.1-70b")
        mine = [name for name in column(app, "#fit-table", 0) if "H100 80GB HBM3" in name]
        assert mine == ["▶ 8 × H100 80GB HBM3"]
        view = app.query_one(FitView)
        assert (view.placements[0].devices_needed, view.counts[0]) == (2, 8)
        verdict = text_of(app, "#fit-summary").splitlines()[0]
        assert verdict.startswith("▶ 8 × H100 80GB HBM3: needs 2 of the 8; decode ≤ ")


async def test_the_fit_table_says_how_many_rows_lie_below(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("f")  # the form has the keyboard: Esc reaches the table
        table = app.query_one("#fit-table", DataTable)
        await until(pilot, lambda: bool(table.border_subtitle), "the rows-below hint")
        below = int(str(table.border_subtitle).split()[1])
        assert str(table.border_subtitle) == f"↓ {below} more rows: Esc, then ↑↓"
        assert 0 < below < table.row_count


async def test_no_gpu_still_places_the_cpu(app_factory: Callable[..., GpuTuiApp]) -> None:
    app = app_factory(demo=False, pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        names = column(app, "#guide-table", 0)
        assert not any("SIMULATED" in name for name in names)
        assert "▶ CPU: AMD EPYC" in names
        await pilot.press("f")
        assert text_of(app, "#fit-summary").startswith("▶ CPU: AMD EPYC (RAM): fits in RAM (64 %)")


async def test_seventy_b_in_bf16_needs_two_h100s(app_factory: Callable[..., GpuTuiApp]) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f")
        view = app.query_one(FitView)
        needed = {p.target.name: p.devices_needed for p in view.placements}
        assert needed["H100 SXM"] == 1  # the default Llama 3.1 8B fits on one
        await pilot.press(*"70B")  # the focused, selected size input is replaced
        needed = {p.target.name: p.devices_needed for p in view.placements}
        assert needed["H100 SXM"] == 2
        assert needed["H100 80GB HBM3 (SIMULATED)"] == 2
        assert needed["B200 (HGX)"] == 1
        summary = text_of(app, "#fit-summary")
        assert "130.4 GiB = 70B params × 2 B (bf16)" in summary
        assert "needs 2" in summary.splitlines()[0]
        row = column(app, "#fit-table", 0).index("H100 SXM")
        assert app.query_one("#fit-table", DataTable).get_row_at(row)[2].plain.strip() == "2"
        # int4 weights: 35 GB, so one H100 holds it.
        await pilot.press("tab", "enter", "down", "down", "down", "enter")  # fp16, fp8, int4
        assert app.query_one("#fit-dtype").value == "int4"  # type: ignore[attr-defined]
        needed = {p.target.name: p.devices_needed for p in view.placements}
        assert needed["H100 SXM"] == 1
        assert "32.6 GiB = 70B params × 0.5 B (int4)" in text_of(app, "#fit-summary")


async def test_fit_names_models_and_labels_an_assumed_shape(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f")
        summary = text_of(app, "#fit-summary")
        assert "Weights     15.0 GiB = 8.03B params × 2 B (bf16)" in summary
        assert summary.endswith("Llama 3.1 8B as published")
        await type_into(pilot, app, "#fit-params", "70B")
        assert text_of(app, "#fit-summary").endswith("assumed shape (Llama 3.1 70B's)")
        await type_into(pilot, app, "#fit-params", "DeepSeek-V3")
        summary = text_of(app, "#fit-summary")
        assert "Weights  1,249.8 GiB = 671B params × 2 B (bf16); 37B active" in summary
        assert (
            "KV cache     0.3 GiB = 61 layers × (512+64) latent × 2 B × 4,096 tok × 1 seq"
            in summary
        )
        # Every line of the summary fits the 80-column pane, inside its padding.
        room = app.query_one("#fit-summary").content_region.width
        assert all(len(line) <= room for line in summary.splitlines())
        await type_into(pilot, app, "#fit-context", "128000")
        await type_into(pilot, app, "#fit-batch", "8")
        for model in ("gpt-oss-120b", "qwen3-235b-a22b", "llama-3.1-405b", "DeepSeek-V3"):
            await type_into(pilot, app, "#fit-params", model)
            summary = text_of(app, "#fit-summary")
            assert len(summary.splitlines()) == 5
            assert all(len(line) <= room for line in summary.splitlines()), summary
        view = app.query_one(FitView)
        h100 = next(p for p in view.placements if p.target.name == "H100 SXM")
        assert view.result is not None
        assert h100.decode_tokens_per_second_max == pytest.approx(
            h100.devices_needed * 3.35e12 / view.result.bytes_read_per_step
        )


async def test_fit_context_batch_and_bad_input(app_factory: Callable[..., GpuTuiApp]) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await type_into(pilot, app, "#fit-batch", "64")
        # Llama 3.1 8B, 4,096 tokens × 64 sequences: 32 GiB of KV cache in bf16.
        assert "KV cache    32.0 GiB = 2 × 2 B × 32 layers" in text_of(app, "#fit-summary")
        await type_into(pilot, app, "#fit-params", "lots")
        assert "model size must be a parameter count" in text_of(app, "#fit-summary")
        await type_into(pilot, app, "#fit-params", "8B")
        assert text_of(app, "#fit-summary").startswith("▶ H100")


async def test_cost_at_80x24_says_what_lies_out_of_sight_and_how_to_read_it(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    """The results run far below the screen and the last input below the form: each border
    counts what is out of sight; the results' says how to get there (esc, then ↑↓)."""
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        await pilot.pause()
        results = app.query_one("#cost-results-scroll")
        hidden = results.virtual_size.height - results.scrollable_content_region.height
        assert hidden > 0
        assert results.border_subtitle == f"↓ {hidden} more lines: esc, then ↑↓"
        form = app.query_one("#cost-form")
        view = form.scrollable_content_region
        inputs = list(form.query(Input))
        below = [field for field in inputs if field.region.y >= view.bottom]
        assert below
        assert form.border_subtitle == f"↓ {len(below)} more input" + "s" * (len(below) > 1)
        await pilot.press("escape", "end")
        await until(pilot, lambda: results.scroll_y == results.max_scroll_y, "the results' end")
        assert app.focused is results
        assert results.border_subtitle == f"↑ {hidden} more lines"


async def test_cost_break_even_follows_the_price(app_factory: Callable[..., GpuTuiApp]) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("o")
        assert app.focused is app.query_one("#cost-price", Input)
        results = text_of(app, "#cost-results")
        assert "Break-even 91.5 % utilisation" in results
        assert "(seen Sep–Oct 2026)" in results  # the price's date is shown with it, in words
        source = text_of(app, "#cost-source")
        assert "RunPod Community" in source
        assert "https://www.runpod.io/pricing" in source  # the price page, not a file path
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(app.query_one("#cost-prices", Static).content)
        tables = console.export_text()
        assert "shared/" not in tables
        assert "accelerators.md" not in tables
        assert "https://www.runpod.io/pricing" in tables
        await pilot.press("enter", *"4.00")  # Enter first: until then "4" is the Bench key
        assert "Break-even 55.7 % utilisation" in text_of(app, "#cost-results")
        await pilot.press("down")  # ↓ moves to the next input, whose source shows below
        assert app.focused is app.query_one("#cost-date", Input)
        assert "when the cloud price was seen" in text_of(app, "#cost-source")
        await type_into(pilot, app, "#cost-price", "1")
        assert "Break-even: never" in text_of(app, "#cost-results")
        await type_into(pilot, app, "#cost-pue", "0.5")
        assert "pue must be between 1 and 5" in text_of(app, "#cost-results")


def _shown_at_width(widget: Static) -> str:
    """A Static's content (or what its own ``render`` makes) as its width draws it."""
    console = Console(width=widget.content_region.width, record=True, file=io.StringIO())
    console.print(widget.render() if isinstance(widget, GuideBars) else widget.content)
    return console.export_text()


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_cost_price_tables_never_split_words(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    """Beside the form at 80×24 a text column was squeezed to 4 letters ("Azur" / "e",
    "(sour" / "ce)"): every word of the labels and providers is drawn whole, at any width."""
    app = app_factory(pane="guide")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        drawn = " ".join(
            _shown_at_width(app.query_one(selector, Static))
            for selector in ("#cost-tables", "#cost-prices")
        )
        tokens = {token.strip("(),;[]") for token in drawn.split()}
        words = {
            *(w for row in PRICES for w in f"{row.gpu} {row.provider} {row.kind}".split()),
            *(w for price in REFERENCE_PRICES for w in price.label.split()),
            "source",
        }
        split = sorted(w for w in words if w.strip("(),;[]") not in tokens)
        assert not split, split
        assert "Sep–Oct 2026" in drawn  # a range of months, in words


FIT_REFUSALS = [
    ("#fit-params", "1e400", "model size must be a parameter count between 1K and 100T"),
    ("#fit-context", "9" * 5000, "context must be a whole number between 0 and 10,000,000"),
    ("#fit-context", "²", "context must be a whole number between 0 and 10,000,000 tokens"),
    ("#fit-batch", "٣", "batch must be a whole number between 1 and 100,000 sequences"),
]


async def test_fit_form_states_the_range_of_a_bad_number(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    # One app for every case: each ends on a good value, so the next starts from a clean form.
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f")
        rows = app.query_one("#fit-table", DataTable).row_count
        refused = []
        for field, value, message in FIT_REFUSALS:
            app.query_one(field, Input).value = value  # as a paste would put it there
            await pilot.pause()
            summary = text_of(app, "#fit-summary")
            assert message in summary, field
            assert "\n" not in summary  # one line
            assert app.query_one("#fit-table", DataTable).row_count == rows  # the last good one
            await type_into(pilot, app, field, "8B" if field == "#fit-params" else "1")
            assert text_of(app, "#fit-summary").startswith("▶ H100")
            refused.append(field)
        assert len(refused) == len(FIT_REFUSALS)


COST_REFUSALS = [
    ("#cost-util", "1e-320", "utilisation must be between 0.1 % and 100 %", "50"),
    ("#cost-util", "150", "utilisation must be between 0.1 % and 100 %", "100"),
    ("#cost-tflops", "1e-320", "measured TFLOP/s must be between 0.001 and 1,000,000", "1"),
    ("#cost-gpus", "8.5", "gpus_per_node must be a whole number between 1 and 1,024", "8"),
    ("#cost-gpus", "٣", "gpus_per_node must be a whole number between 1 and 1,024", "3"),
    ("#cost-price", "1e-320", "cloud price must be between $0.01 and $1,000", "0.01"),
    ("#cost-hardware", "0", "hardware_usd must be between $100 and $1,000,000,000", "100"),
]


JARGON = ("capex", "neocloud", "u*", "colo ", "colo)", "Colo ", "Price seen", " ROI ")
"""Words a cost view once used bare; each is now plain or glossed where it appears."""


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_cost_words_are_plain_or_explained(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("o")
        labels = " ".join(str(label.render()) for label in app.query("#cost-form Label"))
        shown = " ".join(
            [labels, *(text_of(app, f"#{i}") for i in ("cost-results", "cost-source"))]
        )
        console = Console(width=size[0], record=True, file=io.StringIO())
        console.print(app.query_one("#cost-tables", Static).content)
        shown += console.export_text()
        assert not [word for word in JARGON if word in shown]
        assert "PUE (cooling ×)" in labels
        # The words explained: after the verdict at 80 columns, under the form when wide.
        wide = size[0] >= 110
        terms = app.query_one("#cost-terms-side" if wide else "#cost-terms", Static)
        assert terms.display and terms.region.height > 0 if wide else terms.display
        assert not app.query_one("#cost-terms" if wide else "#cost-terms-box").display
        glossary = str(terms.render())
        for term in ("utilisation", "PUE", "colocation", "GPU clouds", "ROI"):
            assert f"{term}: " in glossary
        assert "power usage effectiveness" in glossary
        # The focused input says what it is before where its value comes from.
        app.query_one("#cost-pue", Input).focus()
        await pilot.pause()
        assert text_of(app, "#cost-source").startswith(
            "PUE (cooling ×): PUE (power usage effectiveness): the whole site's power"
        )


async def test_cost_form_states_the_range_of_a_bad_number(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("o")
        refused = []
        for field, bad, message, good in COST_REFUSALS:
            await type_into(pilot, app, field, bad)
            results = text_of(app, "#cost-results")
            assert message in results, (field, bad)
            assert "\n" not in results  # one line
            assert "inf" not in results
            assert text_of(app, "#cost-tables") == ""  # no tables for inputs that were refused
            await type_into(pilot, app, field, good)  # the end of the range itself is fine
            assert "Break-even" in text_of(app, "#cost-results"), (field, good)
            refused.append(field)
        assert len(refused) == len(COST_REFUSALS)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_every_section_renders(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for s in SECTIONS:
            await pilot.press("escape", s.key)
            assert section(app) == s.name
        assert "GPU-Util" in str(
            app.query_one("#metrics-list", OptionList).get_option_at_index(6).prompt
        )
        await pilot.press(*["down"] * 6)
        assert "not efficiency" in text_of(app, "#metrics-text")


def save_run(value: float, unit: str = "TFLOP/s") -> None:
    """A saved bench run with one matmul result, where the store looks for runs."""
    result = BenchResult(
        "matmul", "square", "cuda:0", "bf16", {"n": 8192}, 0.0015, 0.0014, 0.0016, 20, value,
        unit, 0.72,
    )  # fmt: skip
    document = RunDocument("quick", 10.0, "2026-01-02T03:04:05+0000", results=[result])
    atomic_write(auto_path(document), document.to_json())


async def test_cost_per_tflop_hour_uses_the_newest_bench_run(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    save_run(712.5)
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("o")
        assert app.query_one("#cost-tflops", Input).value == "712.5"
        # $2.50 per hour ÷ 712.5 TFLOP/s delivered.
        assert "cloud $0.0035" in text_of(app, "#cost-results")
        app.query_one("#cost-tflops", Input).focus()
        await pilot.pause()
        assert "measured: bench run 2026-01-02T03:04:05+0000" in text_of(app, "#cost-source")


async def test_a_cpu_only_run_prices_nothing(app_factory: Callable[..., GpuTuiApp]) -> None:
    save_run(166.0, unit="GFLOP/s")
    app = app_factory(pane="guide")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.query_one("#cost-tflops", Input).value == ""


async def test_at_80x24_the_catalog_says_which_columns_are_left_out_and_where_they_are(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="guide")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: bool(app.query(CatalogView)), "the catalog")
        view = app.query_one(CatalogView)
        table = view.query_one(DataTable)
        await until(pilot, lambda: table.row_count > 0, "the catalog's rows")
        left_out = [c.label for i, c in enumerate(COLUMNS) if i not in view.shown_columns]
        assert left_out, "80 columns hold only some of the catalog's columns"
        subtitle = str(table.border_subtitle)
        assert all(label in subtitle for label in left_out) or "more columns below" in subtitle
        assert len(subtitle) <= table.size.width - 4  # the hint itself is never cut


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_metrics_use_the_room_a_wide_terminal_gives(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    """At 80×24 the highlighted metric takes the room; at 160×48 it is as tall as its text and
    every metric follows in brief, so the right side is not a box of blank rows."""
    app = app_factory(pane="guide")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        box = app.query_one("#metrics-scroll")
        overview = app.query_one("#metrics-overview", Static)
        reading = app.query_one("#metrics-reading")
        metrics = app.query_one("#metrics-list", OptionList)
        sources = app.query_one("#metrics-sources")
        if size == (80, 24):
            assert not overview.display
            assert box.region.height == reading.region.height
            assert not sources.display
            return
        # The list as tall as its entries (and border); the documents cited fill the rest.
        assert metrics.region.height == len(KEY_METRICS) + 2
        assert sources.display
        assert sources.region.y == metrics.region.bottom
        assert sources.region.bottom >= reading.region.bottom - 1
        assert "· kv-cache-size README" in str(app.query_one("#metrics-sources-text").render())
        assert overview.display
        text = app.query_one("#metrics-text", Static)
        assert box.region.height <= text.region.height + 2  # its text and the border
        console = Console(width=overview.region.width, record=True, file=io.StringIO())
        console.print(overview.content)
        brief = console.export_text()
        assert all(metric.name in brief for metric in KEY_METRICS)
        assert box.region.height + overview.region.height >= reading.region.height - 1
        # The text's labels are bold, its body is not (a Text's own style spreads to all).
        body = text.content
        assert isinstance(body, Text)
        assert not body.style
        spans = [s for s in body.spans if "bold" in str(s.style)]
        assert all(s.end - s.start < 40 for s in spans)
