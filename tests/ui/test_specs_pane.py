"""The Specs pane with Pilot: devices listed, fields shown, explanations follow the cursor."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

import pytest
from textual.widgets import DataTable, OptionList, Static

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.devices import discover
from gpu_tui.core.devices.explain import explain
from gpu_tui.core.devices.spec_sheet import wrap_value
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.specs_pane import SpecsPane
from gpu_tui.ui.widgets.reading_box import ReadingBox
from gpu_tui.ui.widgets.textual_internals import screen_strips
from tests.conftest import SimulatedNvml
from tests.polling import until


def table_rows(app: GpuTuiApp) -> list[tuple[str, str]]:
    table = app.query_one("#spec-table", DataTable)
    return [(str(r[0]), str(r[1])) for r in (table.get_row_at(i) for i in range(table.row_count))]


def explanation(app: GpuTuiApp) -> str:
    return str(app.query_one("#spec-explain", Static).render())


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_first_screen_shows_the_cpu_model(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    app = app_factory()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert ("Model", "AMD EPYC") in table_rows(app)
        devices = app.query_one("#spec-devices", OptionList)
        labels = [str(devices.get_option_at_index(i).prompt) for i in range(devices.option_count)]
        assert labels[0] == "AMD EPYC"
        assert any("SIMULATED" in label for label in labels)
        assert "NVIDIA driver" in labels  # its table's title adds "(NVML)": the list is narrow


async def test_selecting_the_simulated_gpu_shows_its_peaks(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down")  # CPU → Memory → the simulated GPU
        table = app.query_one("#spec-table", DataTable)
        assert "SIMULATED" in str(table.border_title)
        assert table.has_class("-simulated")
        rows = dict(table_rows(app))
        assert rows["BF16 peak (dense)"].endswith("TFLOP/s")
        assert rows["Memory"].endswith("GiB")


async def test_the_explanation_follows_the_highlighted_field(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # into the field table
        assert isinstance(app.focused, DataTable)
        labels = [label for label, _ in table_rows(app)]
        for _ in range(labels.index("AI instructions")):
            await pilot.press("down")
        text = explanation(app)
        assert "AI instructions" in text
        assert "AVX-512" in text
        await pilot.press("down")  # FP32 peak: its basis is the note
        assert "32 FLOP/cycle" in explanation(app)


async def test_no_gpu_shows_the_driver_problem_with_a_fix(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = app.query_one(SpecsPane)
        titles = [section.title for section in pane.sections]
        await pilot.press(*["down"] * titles.index("NVIDIA driver (NVML)"))
        rows = dict(table_rows(app))
        assert rows["Status"] == "not available"
        assert "NVIDIA driver" in rows["Fix"]


async def test_keys_panel_and_quit(app_factory: Callable[..., GpuTuiApp]) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen.query("#keys-box")
        await pilot.press("question_mark")
        await pilot.pause()
        assert not app.screen.query("#keys-box")
        await pilot.press("q")
    assert app.return_code == 0


async def test_the_peak_clock_rows_explain_the_rated_clock_and_name_its_source(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down", "enter")  # the simulated H100 SXM, into its fields
        rows = dict(table_rows(app))
        assert rows["FP32 peak clock"] == "1.98 GHz, NVIDIA-rated"
        assert rows["Tensor peak clock"] == "1.83 GHz, NVIDIA-rated"
        labels = [label for label, _ in table_rows(app)]
        await pilot.press(*["down"] * labels.index("Tensor peak clock"))
        text = explanation(app)
        assert "Tensor peak clock: 1.83 GHz, NVIDIA-rated" in text
        assert "NVIDIA H100 Tensor Core GPU datasheet" in text
        assert "Vendors quote peaks at a rated clock" in text
        await pilot.press("down", "down")  # TF32 → BF16
        assert "1.83 GHz (NVIDIA's rated tensor clock for H100 SXM5 80GB" in explanation(app)


async def test_a_gpu_without_a_rated_clock_shows_its_peaks_as_upper_bounds(
    app_factory: Callable[..., GpuTuiApp], simulated_nvml: SimulatedNvml
) -> None:
    library = simulated_nvml("h200")
    library.devices[0]["pci_device_id"] = "0x233D10DE"  # pci.ids: H100 96GB, not the H200 board
    app = app_factory(demo=False, nvml=library.binding)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down")  # CPU → Memory → the GPU
        rows = dict(table_rows(app))
        assert rows["BF16 peak (dense)"] == "at most 1,070.5 TFLOP/s"
        assert rows["Tensor peak clock"] == "1.98 GHz, NVML max"


def test_long_values_break_after_a_separator_then_between_words() -> None:
    caches = "L1d 96.0 KiB · L1i 128.0 KiB · L2 4.0 MiB · L3 480.0 MiB"
    assert wrap_value(caches, 40) == ["L1d 96.0 KiB · L1i 128.0 KiB ·", "L2 4.0 MiB · L3 480.0 MiB"]
    assert wrap_value("NVIDIA H100 80GB HBM3 (SIMULATED #0)", 30) == [
        "NVIDIA H100 80GB HBM3",
        "(SIMULATED #0)",
    ]
    assert wrap_value("GPU-0000-1111", 5) == ["GPU-0", "000-1", "111"]
    assert wrap_value("short", 30) == ["short"]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_no_value_is_cut_and_long_ones_take_more_lines(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    app = app_factory()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table = app.query_one("#spec-table", DataTable)
        caches = next(r for r in app.query_one(SpecsPane).sections[0].rows if r.label == "Caches")
        rows = dict(table_rows(app))
        assert "…" not in "".join(rows.values())
        assert rows["Caches"].replace("\n", " ") == caches.value
        assert table.max_scroll_x == 0


def box_shows(app: GpuTuiApp, box: ReadingBox) -> str:
    """The text the terminal shows inside the box, without white space (wrapping aside)."""
    region = box.scrollable_content_region
    strips = screen_strips(app.screen)
    lines = [strips[y].crop(region.x, region.right).text for y in range(region.y, region.bottom)]
    return re.sub(r"\s+", "", "".join(lines))


async def test_at_160x48_the_table_is_as_tall_as_its_rows_and_the_explanation_has_the_rest(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        pane = app.query_one(SpecsPane)
        table = app.query_one("#spec-table", DataTable)
        box = app.query_one("#spec-explain-box", ReadingBox)
        assert table.max_scroll_y == 0  # the CPU's rows all show …
        assert table.size.height <= table.virtual_size.height + 1  # … with no empty rows
        assert box.size.height > 20
        # The room below the highlighted field holds the section's other fields, not blank rows.
        assert box.virtual_size.height >= box.scrollable_content_region.height
        assert re.sub(r"\s+", "", f"Cores: {explain('cpu.cores')}") in box_shows(app, box)
        await pilot.press("down", "down", "enter")  # the simulated H100: its TF32 peak row
        labels = [label for label, _ in table_rows(app)]
        assert table.max_scroll_y == 0  # an H100's 28 rows fit too
        await pilot.press(*["down"] * labels.index("TF32 peak (dense)"))
        await pilot.pause()
        tf32 = next(r for r in pane.sections[2].rows if r.label == "TF32 peak (dense)")
        own = f"{tf32.label}: {tf32.value}{tf32.note}{explain(tf32.key)}"
        assert re.sub(r"\s+", "", own) in box_shows(app, box)  # its explanation, whole


async def test_at_80x24_the_box_explains_the_highlighted_field_alone(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "The other fields" not in explanation(app)
        await pilot.resize_terminal(160, 48)
        await until(pilot, lambda: "The other fields" in explanation(app), "the other fields")
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: "The other fields" not in explanation(app), "one field")


async def test_a_long_explanation_scrolls_by_keyboard_at_80x24(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down", "enter")
        labels = [label for label, _ in table_rows(app)]
        await pilot.press(*["down"] * labels.index("TF32 peak (dense)"))
        await pilot.pause()
        box = app.query_one("#spec-explain-box", ReadingBox)
        assert box.overflows
        # the hint follows the box's size, after the refresh that laid it out
        hinted = lambda text: lambda: box.border_subtitle == text  # noqa: E731
        await until(pilot, hinted("↓ more: Tab, then ↓"), "the hint to scroll")
        await pilot.press("tab")
        assert app.focused is box
        await pilot.press("pagedown", "pagedown", "pagedown")
        await until(pilot, lambda: box.scroll_y == box.max_scroll_y, "the end of the box")
        await until(pilot, hinted("end · Shift+Tab back"), "the hint at the end")
        await pilot.press("shift+tab")
        assert app.focused is app.query_one("#spec-table")


async def test_the_health_check_runs_when_opened_and_names_the_fault_first(
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    library = simulated_nvml(
        "hgx_h100_8gpu",
        add=("hgx_h100_8gpu_topology", "hgx_h100_8gpu_training", "hgx_h100_8gpu_check_gen4_x8"),
    )
    app = app_factory(demo=False, nvml=library.binding)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(SpecsPane)
        await until(pilot, lambda: bool(pane.sections), "the sheet")
        await pilot.press("end")  # the last entry: Health check
        await until(pilot, lambda: pane.health is not None, "the check done")
        await pilot.pause()
        table = app.query_one("#spec-table", DataTable)
        assert table.border_title == "Health check: 1 check failed"
        rows = table_rows(app)
        assert rows[0][0] == "Verdict"
        assert rows[0][1].startswith("1 check failed (8 GPUs; checks: 1 failed, ")
        assert rows[1][0] == "gpu3 pcie-link"
        assert rows[1][1].startswith("FAIL — Gen4 x8")
        await pilot.press("enter", "down")  # onto the failing row: its explanation
        await until(pilot, lambda: "Fix: reseat" in explanation(app), "the fix explained")
        assert "Should be: Gen5 x16." in explanation(app)

        measured = threading.Event()

        def quick(python: str | None = None, *, full: bool = False) -> RunDocument:
            measured.set()
            return RunDocument("quick", 0.3, "2026-12-07T00:00:00+0000", plan={})

        monkeypatch.setattr("gpu_tui.core.check.active.run_quick", quick)
        await pilot.press("c")  # check again, measuring
        await until(pilot, lambda: measured.is_set() and not pane.checking, "the re-check")
        assert pane.health is not None
        assert pane.health.exit_status == 1


def summary_words(machine: Static) -> str:
    """The summary's text without its border, lines joined by spaces."""
    rows = machine.render_lines(machine.region.reset_offset)
    inner = [strip.text[machine.gutter.left : -machine.gutter.right] for strip in rows]
    return re.sub(r"\s+", " ", " ".join(inner))


async def test_at_160x48_the_machine_is_summed_up_under_the_list_and_the_checks_explained(
    app_factory: Callable[..., GpuTuiApp], simulated_nvml: SimulatedNvml
) -> None:
    library = simulated_nvml("hgx_h100_8gpu", add=("hgx_h100_8gpu_topology",))
    inventory = discover(nvml=library.binding)  # the driver's details and the topology too
    app = make_app(AppConfig(demo=False, discover=lambda: inventory, nvml=library.binding))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = app.query_one(SpecsPane)
        machine = app.query_one("#spec-machine", Static)
        await until(pilot, lambda: bool(pane.sections), "the sheet")
        await pilot.pause()
        devices = app.query_one("#spec-devices", OptionList)
        assert devices.size.height <= devices.option_count + 3  # as tall as its entries …
        assert machine.display
        assert machine.size.height > 8  # … and the machine under it
        words = summary_words(machine)
        assert "8 × H100 80GB HBM3" in words
        assert "NVLink 4.0 via NVSwitch" in words
        assert "CUDA up to" in words
        await pilot.press("end")  # the health check: every check's meaning in the box
        await until(pilot, lambda: pane.health is not None, "the check done")
        await until(pilot, lambda: "pcie-link:" in explanation(app), "the checks explained")
        assert explain("check-pcie-link") in re.sub(r"\s+", " ", explanation(app))
        await until(pilot, lambda: "Health" in summary_words(machine), "the verdict there too")
    app = app_factory(demo=False, nvml=library.binding)
    async with app.run_test(size=(80, 24)) as pilot:  # no room: the list alone
        await until(pilot, lambda: bool(app.query_one(SpecsPane).sections), "the sheet")
        assert not app.query_one("#spec-machine", Static).display


async def test_at_80x24_the_borders_say_how_many_rows_lie_out_of_sight(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down")  # the simulated H100: 28 rows, a few in sight
        table = app.query_one("#spec-table", DataTable)
        await until(pilot, lambda: bool(table.border_subtitle), "the table's hint")
        hint = str(table.border_subtitle)
        below = int(re.fullmatch(r"↓ (\d+) more rows: Enter, then ↑↓", hint)[1])  # type: ignore[index]
        assert 0 < below < table.row_count
        await pilot.press("enter", "pagedown")  # into the table, a page down
        await until(pilot, lambda: str(table.border_subtitle).startswith("↑ "), "rows above")
        above, after = map(int, re.findall(r"\d+", str(table.border_subtitle)))
        assert above > 0
        assert after < below
        assert str(table.border_subtitle).endswith("more rows")  # it has the keyboard now
    app = app_factory()
    async with app.run_test(size=(160, 48)) as pilot:  # every row in sight: nothing to say
        await pilot.pause()
        await pilot.press("down", "down")
        await pilot.pause()
        assert not app.query_one("#spec-table", DataTable).border_subtitle


async def test_at_160x48_a_note_shared_by_rows_is_told_once_as_a_sentence(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("hgx_h100_8gpu", add=("hgx_h100_8gpu_topology",))
    inventory = discover(nvml=library.binding)
    app = make_app(AppConfig(demo=False, discover=lambda: inventory, nvml=library.binding))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = app.query_one(SpecsPane)
        await until(pilot, lambda: bool(pane.sections), "the sheet")
        labels = [section.label or section.title for section in pane.sections]
        await pilot.press(*["down"] * labels.index("Topology"))
        await until(pilot, lambda: "The other fields of Topology" in explanation(app), "the box")
        words = re.sub(r"\s+", " ", explanation(app))
        legend = next(r.note for r in pane.sections[labels.index("Topology")].rows if r.note)
        assert words.count(legend[:30]) == 1  # eight GPUs share it: said once
        assert re.search(r"\. [a-z]", words.split("The other fields")[1]) is None  # sentences


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_a_short_explanation_wide_gets_a_box_its_own_height_narrow_a_steady_one(
    simulated_nvml: SimulatedNvml, size: tuple[int, int]
) -> None:
    library = simulated_nvml("hgx_h100_8gpu", add=("hgx_h100_8gpu_topology",))
    inventory = discover(nvml=library.binding)
    app = make_app(AppConfig(demo=False, discover=lambda: inventory, nvml=library.binding))
    async with app.run_test(size=size) as pilot:
        pane = app.query_one(SpecsPane)
        await until(pilot, lambda: bool(pane.sections), "the sheet")
        box = app.query_one("#spec-explain-box", ReadingBox)
        table = app.query_one("#spec-table", DataTable)
        labels = [section.label or section.title for section in pane.sections]

        def blank_rows() -> int:
            """The box's rows on screen, from its bottom up, that hold nothing."""
            region = box.scrollable_content_region
            strips = screen_strips(app.screen)
            lines = [
                strips[y].crop(region.x, region.right).text for y in range(region.y, region.bottom)
            ]
            return len(lines) - len("\n".join(lines).rstrip().splitlines())

        await pilot.press(*["down"] * labels.index("Topology"))
        for name in ("Topology", "NVIDIA driver"):
            section = pane.sections[labels.index(name)]
            await until(pilot, lambda s=section: pane.current_section() is s, name)
            first = section.rows[0]
            heading = re.sub(r"\s+", "", f"{first.label}:{first.value}")
            await until(pilot, lambda h=heading: h in box_shows(app, box), f"{name} explained")
            if size == (160, 48):  # wide: the box stops where its text does, nothing cut
                await until(
                    pilot, lambda: blank_rows() == 0, f"{name}: the box as tall as its text"
                )
                assert not box.overflows
                assert "The other fields of" in explanation(app)
            else:  # narrow: the box keeps its rows, so the table never moves under the cursor
                assert box.outer_size.height == 8
                assert table.outer_size.height + box.outer_size.height == pane.size.height
            await pilot.press("down")
