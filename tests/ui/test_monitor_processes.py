"""The Monitor's GPU process table with Pilot: what nvitop users expect in each row, labels
that mean one thing each, a selected row's whole command line, and no table without a GPU."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from types import ModuleType

import psutil
import pytest

from gpu_tui.ui.app import GpuTuiApp
from gpu_tui.ui.monitor.gpu_card import GpuCard
from gpu_tui.ui.monitor.host_panel import HostPanel
from gpu_tui.ui.monitor.process_table import ProcessTable
from gpu_tui.ui.monitor_pane import MonitorPane
from tests.conftest import SimulatedNvml
from tests.fakes.processes import FakeHostProcess, FakeProcess
from tests.polling import until

FAST = 0.1
COLUMNS_SHOWN = ("GPU", "PID", "USER", "TYPE", "VRAM", "SM %", "CPU %", "RAM", "TIME")
GIB = 1 << 30
LONG = ["python", "-m", "torch.distributed.run", "--nproc-per-node=8", "train.py"]
LONG += ["--config", "configs/llama-3.1-70b-long-context.yaml", "--resume", "latest"]


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch) -> dict[int, FakeHostProcess]:
    """Two training processes on the host, started an hour, two minutes and three seconds ago
    (keeping two and a half cores busy) and a minute ago, and one of another user's."""
    now = time.time()
    table = {
        4242: FakeHostProcess("alice", LONG, busy_cores=2.5, rss=12 * GIB, created=now - 3723),
        5151: FakeHostProcess("bob", ["python", "eval.py"], rss=GIB // 2, created=now - 60),
        777: FakeHostProcess(hidden="AccessDenied"),
    }
    monkeypatch.setattr(FakeProcess, "table", table)
    monkeypatch.setattr(psutil, "Process", FakeProcess)
    return table


@pytest.fixture
def node(simulated_nvml: SimulatedNvml) -> ModuleType:
    """nvidia-ml-py's ``pynvml`` over one simulated H200 running three compute processes."""
    library = simulated_nvml("h200")
    library.set_processes(
        0,
        compute=[
            {"pid": 4242, "used_memory_bytes": 60 * GIB, "sm_percent": 87},
            {"pid": 5151, "used_memory_bytes": 2 * GIB, "sm_percent": 9},
            {"pid": 777, "used_memory_bytes": 1 * GIB},
        ],
    )
    return library.binding


def cells(table: ProcessTable) -> dict[int, dict[str, str]]:
    header = (*COLUMNS_SHOWN, "COMMAND")
    return {row.pid: dict(zip(header, row.cells, strict=True)) for row in table.rows_shown}


async def test_each_process_shows_gpu_memory_sm_share_host_cpu_memory_time_and_user(
    app_factory: Callable[..., GpuTuiApp],
    host: dict[int, FakeHostProcess],
    node: ModuleType,
) -> None:
    app = app_factory(demo=False, pane="monitor", nvml=node, refresh=FAST)
    async with app.run_test(size=(160, 48)) as pilot:
        table = app.query_one(ProcessTable)
        await until(pilot, lambda: len(table.rows_shown) == 3, "three processes listed")
        await until(pilot, lambda: cells(table)[4242]["CPU %"] != "–", "a second reading")
        run = cells(table)[4242]
        assert run["VRAM"] == "60.0G"
        assert run["SM %"] == "87 %"
        assert 200 < float(run["CPU %"]) < 300  # two and a half cores busy
        assert run["RAM"] == "12.0G"
        assert re.fullmatch(r"1:02:0[3-6]", run["TIME"])
        assert run["USER"] == "alice"
        assert run["TYPE"] == "C"
        assert run["COMMAND"] == " ".join(LONG)
        assert cells(table)[5151]["RAM"] == "512.0M"
        assert cells(table)[777]["USER"] == "(other)"
        assert cells(table)[777]["SM %"] == "0 %"  # listed, no kernel since the last sample
        assert cells(table)[777]["CPU %"] == "–"
        header = table.rows[0].plain.split()
        assert header == " ".join([*COLUMNS_SHOWN, "COMMAND"]).split()  # "SM %" is two words


async def test_labels_mean_one_thing_each(
    app_factory: Callable[..., GpuTuiApp], node: ModuleType
) -> None:
    """Host memory is RAM, the memory controller's busy share MCTL, the SM clock SMCLK; SM %
    is only ever a process's share of the SMs' time."""
    app = app_factory(demo=False, pane="monitor", nvml=node, refresh=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(MonitorPane)
        await until(pilot, lambda: pane.redraws > 1 and bool(pane._cards), "the card drawn")

        def card_text() -> list[str]:
            return [row.plain for row in app.query_one(GpuCard).rows]

        # A loaded machine may miss the first reading's deadline (drawn as missing): wait for one.
        await until(pilot, lambda: any("% busy" in row for row in card_text()), "a reading")
        host_rows = [row.plain for row in app.query_one(HostPanel).rows]
        card_rows = [row.plain for row in app.query_one(GpuCard).rows]
        labels = {row.split()[0] for row in card_rows if row[:1].isupper()}
        assert any(row.startswith("RAM ") for row in host_rows)
        assert not any(row.startswith("MEM") for row in host_rows + card_rows)
        assert {"GPU", "MCTL", "VRAM", "TEMP", "PWR", "SMCLK", "MCLK"} <= labels
        assert "SM" not in labels
        mctl = next(row for row in card_rows if row.startswith("MCTL"))
        assert "% busy" in mctl
        smclk = next(row for row in card_rows if row.startswith("SMCLK"))
        assert "MHz" in smclk
        # Every label is said in words on the ? screen.
        await pilot.press("question_mark")
        await pilot.pause()
        legend = next(s for s in app.screen.place if s.title == "What the Monitor shows")
        explained = {word for row in legend.rows for word in row.keys.split()}
        assert labels <= explained | {"0"}  # "0 H200": the GPU's index and name


async def test_the_selected_process_shows_its_whole_command_line(
    app_factory: Callable[..., GpuTuiApp],
    host: dict[int, FakeHostProcess],
    node: ModuleType,
) -> None:
    app = app_factory(demo=False, pane="monitor", nvml=node, refresh=FAST)
    async with app.run_test(size=(160, 48)) as pilot:
        table = app.query_one(ProcessTable)
        detail = app.query_one("#monitor-proc-detail")
        await until(pilot, lambda: len(table.rows_shown) == 3, "three processes listed")
        assert table.has_focus  # the arrow keys reach it when the Monitor is shown
        assert table.selected == "0:4242"  # the biggest VRAM user, until another is picked
        assert "…" in table.rows[1].plain  # the command does not fit in its row ...
        await until(pilot, lambda: " ".join(LONG) in str(detail.render()), "the whole command")
        assert str(detail.render()) == "▸ " + " ".join(LONG)  # ... but is shown whole below it
        await pilot.press("down")
        assert table.selected == "0:5151"
        assert str(detail.render()) == "▸ python eval.py"
        await pilot.press("down", "down", "down")  # stops at the last row
        assert table.selected == "0:777"
        assert "no permission" in str(detail.render())
        await pilot.press("home")
        assert table.selected == "0:4242"
        await pilot.press("s", "s")  # by SM % then by CPU %: the selection stays with 4242
        assert table.selected == "0:4242"
        assert [row.pid for row in table.rows_shown] == [4242, 5151, 777]
        await pilot.click(ProcessTable, offset=(5, 2))  # the second row
        assert table.selected == "0:5151"


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_no_gpu_no_process_table_and_the_host_gets_the_room(
    app_factory: Callable[..., GpuTuiApp], simulated_nvml: SimulatedNvml, size: tuple[int, int]
) -> None:
    library = simulated_nvml("h200")
    library.fail_init("LibraryNotFound")
    app = app_factory(demo=False, pane="monitor", nvml=library.binding, refresh=FAST)
    async with app.run_test(size=size) as pilot:
        pane = app.query_one(MonitorPane)
        await until(pilot, lambda: pane.sources is not None and pane.redraws > 1, "drawn")
        await pilot.pause()
        assert not app.query_one("#monitor-procs").display
        assert not app.query_one("#monitor-proc-detail").display
        host = app.query_one(HostPanel)
        assert host.graphs
        assert any(row.plain.startswith("CPU busy, %") for row in host.rows)
        width, height = size
        assert host.outer_size.width == width
        assert host.outer_size.height >= height - 12  # all but the app's and the note's rows
        assert "No GPUs to show" in str(app.query_one("#monitor-no-gpu").render())


async def test_a_small_screen_keeps_the_header_and_the_selected_row_in_sight(
    app_factory: Callable[..., GpuTuiApp],
    host: dict[int, FakeHostProcess],
    node: ModuleType,
) -> None:
    app = app_factory(demo=False, pane="monitor", nvml=node, refresh=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(ProcessTable)
        await until(pilot, lambda: len(table.rows_shown) == 3, "three processes listed")
        await pilot.pause()
        assert len(table.rows) < 4  # not every row fits
        await pilot.press("end")
        assert table.selected == "0:777"
        shown = [row.plain for row in table.rows]
        assert shown[0].split()[:2] == ["GPU", "PID"]  # the header stays
        assert "777" in shown[-1]  # and the rows moved along to the selected one
        await pilot.press("home")
        assert "4242" in table.rows[1].plain


async def test_a_table_taller_than_its_room_says_which_rows_are_in_sight(
    app_factory: Callable[..., GpuTuiApp], simulated_nvml: SimulatedNvml
) -> None:
    """Eight GPUs, a process each: at 80×24 a few rows fit, and the header says which."""
    library = simulated_nvml("hgx_h100_8gpu")
    for gpu in range(8):
        library.set_processes(gpu, compute=[{"pid": 7100 + gpu, "used_memory_bytes": GIB}])
    app = app_factory(demo=False, pane="monitor", nvml=library.binding, refresh=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(ProcessTable)
        await until(pilot, lambda: len(table.rows_shown) == 8, "eight processes listed")
        await pilot.pause()
        in_sight = len(table.rows) - 1
        assert 0 < in_sight < 8
        assert table.rows[0].plain.rstrip().endswith(f"1–{in_sight} of 8")
        await pilot.press(*["j"] * 7)  # to the last row: the rows move along
        await pilot.pause()
        assert table.rows[0].plain.rstrip().endswith(f"{9 - in_sight}–8 of 8")
    app = app_factory(demo=False, pane="monitor", nvml=library.binding, refresh=FAST)
    async with app.run_test(size=(160, 48)) as pilot:  # all in sight: the header alone
        table = app.query_one(ProcessTable)
        await until(pilot, lambda: len(table.rows_shown) == 8, "eight processes listed")
        await pilot.pause()
        assert table.rows[0].plain.split()[-1] == "COMMAND"
