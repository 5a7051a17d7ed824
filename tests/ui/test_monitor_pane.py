"""The Monitor pane with Pilot: per-core bars, GPU cards over nvidia-ml-py's own ``pynvml`` and a
simulated driver, faults, keys."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

import pytest

from gpu_tui.core.monitor.sampler import step_interval
from gpu_tui.ui.app import GpuTuiApp
from gpu_tui.ui.monitor.gpu_card import GpuCard
from gpu_tui.ui.monitor.host_panel import HostPanel
from gpu_tui.ui.monitor.process_table import HIDDEN_PID, OTHER, ProcessTable
from gpu_tui.ui.monitor_pane import MonitorPane
from tests.conftest import SimulatedNvml
from tests.polling import until

FAST = 0.1
"""Refresh interval for tests: ticks come quickly, and nothing asserts on timing."""
MISSING_PID = 2**31 - 1  # above any pid_max: a host PID as seen from inside a container


def pane_of(app: GpuTuiApp) -> MonitorPane:
    return app.query_one(MonitorPane)


def cards(app: GpuTuiApp) -> list[GpuCard]:
    return sorted(app.query(GpuCard), key=lambda card: card.slot)


def text(card: GpuCard) -> str:
    return card.render().plain


def drawn(app: GpuTuiApp) -> bool:
    """Every card has a reading and its place on the screen: a card just mounted is 0 × 0 until
    the next layout, and its rows, built for no width, are all ellipses (a loaded machine's
    first tick can land in between)."""
    shown = cards(app)
    return pane_of(app).redraws > 0 and all(c.gpu is not None and c.size.width for c in shown)


async def test_one_bar_per_core_on_a_fixed_scale_with_numbers(
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("h200")
    library.fail_init("LibraryNotFound")  # no GPU at all: the host part stands alone
    app = app_factory(demo=False, pane="monitor", nvml=library.binding, refresh=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = pane_of(app)
        await until(pilot, lambda: pane.redraws > 0 and pane.sources is not None, "first draw")
        host = app.query_one(HostPanel)
        assert host.core_count == os.cpu_count()
        lines = host.render().plain.splitlines()
        cpu = next(i for i, line in enumerate(lines) if line.startswith("CPU  "))
        ram = next(i for i, line in enumerate(lines) if line.startswith("RAM  "))
        core_lines = lines[cpu + 1 : ram]  # between the CPU total and the memory row
        assert sum(line.count("%") for line in core_lines) == os.cpu_count()
        assert "GiB" in lines[ram]
        assert "No GPUs to show" in str(app.query_one("#monitor-no-gpu").render())


@pytest.mark.parametrize("start", ["monitor", "specs"])
async def test_without_a_gpu_the_monitor_keys_work_on_the_first_visit(
    app_factory: Callable[..., GpuTuiApp], simulated_nvml: SimulatedNvml, start: str
) -> None:
    """With no GPU the process table is hidden; the keyboard must not go with it."""
    library = simulated_nvml("h200")
    library.fail_init("LibraryNotFound")
    app = app_factory(demo=False, pane=start, nvml=library.binding, refresh=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        if start != "monitor":
            await pilot.press("2")
        pane = pane_of(app)
        await until(pilot, lambda: pane.has_class("-no-gpu"), "the pane to know there is no GPU")
        await pilot.pause()
        assert app.focused is not None
        assert pane in (app.focused, *app.focused.ancestors)
        footer = " ".join(str(key.render()) for key in app.query("FooterKey"))
        assert "Pause" in footer
        await pilot.press("p")
        assert pane.paused
        await pilot.press("p", "+")
        assert not pane.paused
        assert pane.interval == 2 * FAST


@pytest.mark.parametrize(("size", "in_title"), [((80, 24), True), ((160, 48), False)])
async def test_a_big_cpu_panel_keeps_changing_readings_out_of_its_title(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int], in_title: bool
) -> None:
    """A new title repaints the whole panel: with graphs, the clock, load and temperature
    (which change every few seconds) sit above the CPU graph instead, where the whole title
    also fits."""
    app = app_factory(demo=True, pane="monitor", refresh=FAST)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: pane_of(app).redraws > 1, "two draws")
        host = app.query_one(HostPanel)
        title, first_row = str(host.border_title), host.rows[0].plain
        assert title.endswith("cores") != in_title
        assert ("load " in title) == in_title  # Linux always reports a load average
        assert first_row.startswith("CPU busy, % · ") != in_title
        assert ("load " in first_row) != in_title
        assert len(title) + 4 <= host.outer_size.width  # nothing cut off


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_one_h200_shows_its_recorded_readings(
    app_factory: Callable[..., GpuTuiApp], simulated_nvml: SimulatedNvml, size: tuple[int, int]
) -> None:
    app = app_factory(demo=False, pane="monitor", nvml=simulated_nvml("h200").binding, refresh=FAST)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: drawn(app), "the card drawn")
        (card,) = cards(app)
        # A loaded machine may miss the first reading's deadline (drawn as missing): wait for one.
        await until(pilot, lambda: "75/700" in text(card), "a reading in time")
        # The card is named once the hardware reading (a thread of its own) has come too.
        await until(pilot, lambda: "H200" in str(card.border_title), "the GPU's name")
        assert card.mode == "full"
        shown = text(card)
        assert "28 °C" in shown  # no slowdown threshold recorded: the reading alone, not 28/–
        assert "75/700" in shown  # W, against the enforced limit
        assert "H200" in str(card.border_title)
        assert "SIMULATED" not in shown


async def test_a_card_with_graphs_leaves_their_sparklines_out(
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
) -> None:
    app = app_factory(demo=False, pane="monitor", nvml=simulated_nvml("h200").binding, refresh=FAST)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: drawn(app), "the card drawn")
        (card,) = cards(app)
        # The pane gives the cards its spare rows after the refresh that mounted them.
        await until(pilot, lambda: card.has_class("-fill"), "the card given the spare rows")
        graph = card.part("graph")
        sparked = {
            row.plain.split()[0]
            for row in card.rows
            if row.plain[:1].isupper() and any(span.style == graph for span in row.spans)
        }
        shown = text(card)
        assert "GPU busy, %" in shown
        assert "power, W of 700" in shown
        # utilisation and power have their graphs above; the other readings keep a sparkline
        assert sparked == {"MCTL", "VRAM", "TEMP", "SMCLK", "MCLK"}


@pytest.mark.parametrize(("size", "mode"), [((80, 24), "line"), ((160, 48), "compact")])
async def test_eight_gpus_each_show_their_own_power(
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
    size: tuple[int, int],
    mode: str,
) -> None:
    app = app_factory(
        demo=False, pane="monitor", nvml=simulated_nvml("hgx_h100_8gpu").binding, refresh=FAST
    )
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: drawn(app), "eight cards drawn")
        # A loaded machine may miss a reading's deadline (drawn as missing): wait for one tick
        # that every GPU answered in time.
        await until(
            pilot, lambda: all("/700" in text(card) for card in cards(app)), "readings in time"
        )
        shown = [text(card) for card in cards(app)]
        assert len(shown) == 8
        assert {card.mode for card in cards(app)} == {mode}
        for watts, line in zip([101, 83, 86, 85, 85, 85, 86, 75], shown, strict=True):
            assert f"{watts}/700" in line
        assert all(line.startswith(str(slot)) for slot, line in enumerate(shown))


async def test_a_gpu_lost_mid_run_shows_lost_while_the_others_update(
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("hgx_h100_8gpu")
    app = app_factory(demo=False, pane="monitor", nvml=library.binding, refresh=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: drawn(app), "first draw")
        library.lose(3)
        library.devices[5]["power_usage_mw"] = 650_000
        await until(pilot, lambda: "650/700" in text(cards(app)[5]), "GPU 5 updated")
        await until(pilot, lambda: cards(app)[3].state == "LOST", "GPU 3 lost")
        assert "LOST" in text(cards(app)[3])  # one line each: the word is in the line
        assert cards(app)[3].has_class("-lost")
        # the seven others stay live (on a loaded machine one tick may come late: STALE for a
        # moment, live again at the next reading)
        await until(
            pilot,
            lambda: [card.state for card in cards(app)].count("live") == 7,
            "the seven others live",
        )
        assert cards(app)[3].state == "LOST"


async def test_a_hung_driver_call_leaves_keys_working_and_readings_stale(
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
) -> None:
    library = simulated_nvml("h200")
    app = app_factory(demo=True, pane="monitor", nvml=library.binding, refresh=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: drawn(app), "first draw")
        library.block("nvmlDeviceGetPowerUsage", 2.0)
        await until(pilot, lambda: cards(app)[0].state == "STALE", "the H200 shown stale")
        pane = pane_of(app)
        assert pane.sampler is not None
        assert pane.sampler.hung_devices == 1  # the fault is still active …
        await pilot.press("plus")  # … and the key is handled all the same
        assert pane.interval == step_interval(FAST, faster=False)
        assert pane.sampler.interval == pane.interval
        assert "STALE" in text(cards(app)[0])
        assert cards(app)[1].state == "live"  # the simulated GPU is not held up
        library.block("nvmlDeviceGetPowerUsage", 0.0)


async def test_hidden_and_other_users_processes_are_explained_in_words(
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import psutil

    library = simulated_nvml("h200")
    library.set_processes(
        0,
        compute=[
            {"pid": MISSING_PID, "used_memory_bytes": 1 << 30},
            {"pid": 1, "used_memory_bytes": 2 << 30},
        ],
    )
    real_process = psutil.Process

    def process(pid: int) -> psutil.Process:
        if pid == 1:  # whoever runs the tests: pretend PID 1 belongs to someone else
            raise psutil.AccessDenied(pid)
        return real_process(pid)

    monkeypatch.setattr(psutil, "Process", process)
    app = app_factory(demo=False, pane="monitor", nvml=library.binding, refresh=FAST)
    async with app.run_test(size=(160, 48)) as pilot:
        table = app.query_one(ProcessTable)
        await until(pilot, lambda: len(table.rows_shown) == 2, "two processes listed")
        by_pid = {row.pid: row for row in table.rows_shown}
        assert by_pid[MISSING_PID].cells[-1] == HIDDEN_PID
        assert "--pid=host" in HIDDEN_PID
        assert by_pid[1].cells[-1] == OTHER
        assert by_pid[1].cells[2] == "(other)"
        assert [row.pid for row in table.rows_shown] == [1, MISSING_PID]  # biggest VRAM first
        await pilot.press("s", "s", "s")  # VRAM → SM % → CPU % → PID
        assert pane_of(app).sort == "pid"
        assert [row.pid for row in table.rows_shown] == [1, MISSING_PID]
        library.set_processes(0, compute=[])  # the processes end
        await until(pilot, lambda: not table.rows_shown, "the table emptied")
        assert "No GPU processes" in str(app.query_one("#monitor-proc-note").render())


async def test_plus_minus_and_pause_drive_the_sampler(
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
) -> None:
    app = app_factory(demo=True, pane="monitor", nvml=simulated_nvml("h200").binding, refresh=1.0)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = pane_of(app)
        await until(pilot, lambda: pane.sampler is not None, "sampler started")
        assert pane.sampler is not None
        await pilot.press("plus")
        assert pane.sampler.interval == pane.interval == 2.0
        await pilot.press("minus", "minus")
        assert pane.sampler.interval == 0.5
        assert "every 0.5 s" in str(app.query_one("#monitor-status").render())
        await pilot.press("p")
        assert pane.sampler.paused
        assert "PAUSED" in str(app.query_one("#monitor-status").render())
        await pilot.press("p")
        assert not pane.sampler.paused


async def test_a_hidden_pane_does_not_redraw_and_catches_up_when_shown(
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
) -> None:
    app = app_factory(demo=True, pane="monitor", nvml=simulated_nvml("h200").binding, refresh=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = pane_of(app)
        await until(pilot, lambda: drawn(app), "first draw")
        await pilot.press("1")  # Specs
        assert not pane.active
        redraws = pane.redraws
        sampler = pane.sampler
        assert sampler is not None
        ticks = sampler.ticks
        await until(pilot, lambda: sampler.ticks >= ticks + 3, "ticks while hidden")
        assert pane.redraws == redraws
        await pilot.press("2")
        await until(pilot, lambda: pane.redraws > redraws, "redrawn when shown")


async def test_demo_mode_labels_the_simulated_gpu(
    app_factory: Callable[..., GpuTuiApp], simulated_nvml: SimulatedNvml
) -> None:
    library = simulated_nvml("h200")
    library.fail_init("LibraryNotFound")
    app = app_factory(demo=True, pane="monitor", nvml=library.binding, refresh=FAST)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: drawn(app), "first draw")
        (card,) = cards(app)
        assert card.has_class("-simulated")
        assert "SIMULATED" in str(card.border_title)
        assert "(SIMULATED)" in app.query_one(ProcessTable).rows_shown[0].cells[-1]


SHORT_NAME = re.compile(r"\b[A-Z][A-Za-z]*[A-Z]\b|\btensor\b")
"""A card's short names: GPU, VRAM, SMCLK, MCTL, ENC/DEC, tensor …"""


@pytest.mark.parametrize(
    ("reading", "size"),
    [("h200", (160, 48)), ("hgx_h100_8gpu", (160, 48)), ("hgx_h100_8gpu", (80, 24))],
)
async def test_every_short_name_on_a_card_is_spelled_out_where_the_title_points(
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
    reading: str,
    size: tuple[int, int],
) -> None:
    library = simulated_nvml(reading, add=("hgx_h100_8gpu_training",) if "hgx" in reading else ())
    app = app_factory(demo=False, pane="monitor", nvml=library.binding, refresh=FAST)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: drawn(app), "the cards drawn")
        await until(pilot, lambda: all("/700" in text(card) for card in cards(app)), "readings")
        model_names = " ".join(str(device["name"]) for device in library.devices)
        names = {
            word
            for card in cards(app)
            for word in SHORT_NAME.findall(text(card))
            if word not in model_names  # a one-line card starts with the GPU's name
        }
        assert {"GPU", "VRAM"} <= names
        spelled_out = {word for key, _ in MonitorPane.LEGEND for word in re.split("[ /]", key)}
        assert names - spelled_out - {"GB", "GiB", "MHz"} == set()  # units need no legend
        assert "?" in str(app.query_one("#monitor-gpus").border_title)


@pytest.mark.parametrize(("size", "told"), [((80, 24), "HELD"), ((100, 30), "held: thermal")])
async def test_a_held_back_gpu_says_so_on_its_one_line_card_with_every_figure_whole(
    app_factory: Callable[..., GpuTuiApp],
    simulated_nvml: SimulatedNvml,
    size: tuple[int, int],
    told: str,
) -> None:
    library = simulated_nvml("hgx_h100_8gpu", add=("hgx_h100_8gpu_check_thermal",))
    app = app_factory(demo=False, pane="monitor", nvml=library.binding, refresh=FAST)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: drawn(app), "the cards drawn")
        await until(pilot, lambda: all("/700" in text(card) for card in cards(app)), "readings")
        hot, cool = text(cards(app)[1]), text(cards(app)[0])
        assert cards(app)[1].mode == "line"
        assert hot.rstrip().endswith(told)
        assert "…" not in hot
        assert re.search(r"\d+/700W", hot)
        assert "HELD" not in cool
        assert "held" not in cool
        # the columns stay aligned: the figures start where the cool card's do
        assert hot.index(" GPU ") == cool.index(" GPU ")
        assert "HELD" in {key for key, _ in MonitorPane.LEGEND}
