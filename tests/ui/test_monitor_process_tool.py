"""The Monitor as a process tool, with the keys nvitop and htop users bring: j/k, F1, a filter
(/), and a signal to the selected process (K: choose, confirm; never with --read-only), sent to
a real child process."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from gpu_tui.core.devices.nvidia import discover_nvidia
from gpu_tui.core.monitor import signals
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.keys_screen import KeysScreen
from gpu_tui.ui.monitor.process_dialogs import SignalDialog
from gpu_tui.ui.monitor.process_table import ProcessTable
from gpu_tui.ui.monitor_pane import MonitorPane
from gpu_tui.ui.widgets.textual_internals import screen_strips
from tests.conftest import SimulatedNvml
from tests.polling import until
from tests.ui.conftest import fixed_inventory

GIB = 1 << 30


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    """A real process for the driver to list as using the GPU."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield process
    process.kill()
    process.wait(5)


def monitor(simulated_nvml: SimulatedNvml, pid: int, *, read_only: bool = False) -> GpuTuiApp:
    """The Monitor over one simulated H200 whose processes are ``pid`` and PID 1."""
    library = simulated_nvml("h200")
    library.set_processes(
        0,
        compute=[
            {"pid": pid, "used_memory_bytes": 60 * GIB, "sm_percent": 87},
            {"pid": 1, "used_memory_bytes": 2 * GIB, "sm_percent": 9},
        ],
    )
    inventory = fixed_inventory(demo=False)
    found, _ = discover_nvidia(library.binding)
    config = AppConfig(
        pane="monitor",
        discover=lambda: replace(inventory, accelerators=found),
        host="test-host",
        nvml=library.binding,
        refresh_seconds=0.1,
        read_only=read_only,
    )
    return make_app(config)


async def test_j_k_move_the_selection_and_f1_opens_the_keys(
    simulated_nvml: SimulatedNvml,
    child: subprocess.Popen[bytes],
) -> None:
    app = monitor(simulated_nvml, child.pid)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ProcessTable)
        await until(pilot, lambda: len(table.rows_shown) == 2, "two processes")
        await until(pilot, lambda: app.focused is table, "the keyboard in the table")
        first = table.selected
        await pilot.press("j")
        assert table.selected != first
        await pilot.press("k")
        assert table.selected == first
        await pilot.press("f1")
        assert isinstance(app.screen, KeysScreen)


async def test_a_filter_keeps_the_matching_rows_and_esc_shows_all_again(
    simulated_nvml: SimulatedNvml,
    child: subprocess.Popen[bytes],
) -> None:
    app = monitor(simulated_nvml, child.pid)
    async with app.run_test(size=(100, 30)) as pilot:
        pane, table = app.query_one(MonitorPane), app.query_one(ProcessTable)
        await until(pilot, lambda: len(table.rows_shown) == 2, "two processes")
        await pilot.press("slash", *str(child.pid), "enter")  # digits are text in the dialog
        assert pane.filter == str(child.pid)
        await until(pilot, lambda: [r.pid for r in table.rows_shown] == [child.pid], "filtered")
        await pilot.press("escape")
        assert pane.filter == ""
        await until(pilot, lambda: len(table.rows_shown) == 2, "every process again")


async def test_k_sends_the_chosen_signal_once_confirmed_and_says_so(
    simulated_nvml: SimulatedNvml,
    child: subprocess.Popen[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # This machine's child holds no GPU device open; the check that it does is tested below.
    monkeypatch.setattr(signals, "holds_a_gpu", lambda pid, proc=signals.PROC: True)
    app = monitor(simulated_nvml, child.pid)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ProcessTable)
        await until(pilot, lambda: table.selected_row is not None, "a process selected")
        await until(pilot, lambda: table.selected_row.pid == child.pid, "the child on top")
        await pilot.press("K")
        assert isinstance(app.screen, SignalDialog)
        await pilot.press("enter")  # SIGTERM chosen …
        assert child.poll() is None  # … not sent until confirmed
        await pilot.press("enter")
        assert child.wait(5) == -signal.SIGTERM
        status = str(app.query_one("#monitor-status").render())
        assert f"sent SIGTERM to PID {child.pid}" in status


async def test_read_only_offers_no_signal_and_says_why_when_k_is_pressed(
    simulated_nvml: SimulatedNvml,
    child: subprocess.Popen[bytes],
) -> None:
    app = monitor(simulated_nvml, child.pid, read_only=True)
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ProcessTable)
        await until(pilot, lambda: table.selected_row is not None, "a process selected")
        assert "read-only" in app.sub_title
        await pilot.press("K")
        assert not isinstance(app.screen, SignalDialog)
        assert child.poll() is None
        said = [n.message for n in app._notifications]
        assert any("read-only" in m and "no signal" in m for m in said), said


def test_only_a_process_holding_a_gpu_here_may_be_signalled(
    tmp_path: Path, child: subprocess.Popen[bytes]
) -> None:
    assert "holds no GPU" in (signals.refusal(child.pid) or "")
    fds = tmp_path / str(child.pid) / "fd"
    fds.mkdir(parents=True)
    (fds / "3").symlink_to("/dev/null")
    assert signals.holds_a_gpu(child.pid, tmp_path) is False
    (fds / "4").symlink_to("/dev/nvidia0")
    assert signals.holds_a_gpu(child.pid, tmp_path) is True
    assert signals.refusal(child.pid, tmp_path) is None
    child.kill()
    child.wait(5)
    assert "not visible here" in (signals.refusal(child.pid, tmp_path) or "")
    assert signals.send(child.pid, signal.SIGTERM).startswith("SIGTERM to PID")


async def test_t_draws_the_processes_under_their_host_parents_and_back(
    simulated_nvml: SimulatedNvml,
    child: subprocess.Popen[bytes],
) -> None:
    app = monitor(simulated_nvml, child.pid)
    async with app.run_test(size=(100, 30)) as pilot:
        pane, table = app.query_one(MonitorPane), app.query_one(ProcessTable)
        await until(pilot, lambda: len(table.rows_shown) == 2, "two processes")
        await pilot.press("t")
        await until(pilot, lambda: any(r.host_only for r in table.rows_shown), "the tree")
        rows = table.rows_shown
        at = next(i for i, row in enumerate(rows) if row.pid == child.pid)
        assert rows[at - 1].pid == os.getpid()  # the child's parent: this test's process
        assert rows[at - 1].host_only
        assert rows[at].branch.endswith("─ ")
        assert "tree (t)" in str(app.query_one("#monitor-procs").border_title)
        table.selected = rows[at - 1].key
        await pilot.press("K")
        assert not isinstance(app.screen, SignalDialog)  # a parent holds no GPU: not offered
        await pilot.press("t")
        await until(pilot, lambda: len(table.rows_shown) == 2, "the list again")
        assert not pane.as_tree


async def test_the_filter_dialog_asks_its_question_whole_above_the_field(
    simulated_nvml: SimulatedNvml,
    child: subprocess.Popen[bytes],
) -> None:
    app = monitor(simulated_nvml, child.pid)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(ProcessTable)
        await until(pilot, lambda: len(table.rows_shown) == 2, "two processes")
        await pilot.press("slash")
        await pilot.pause()
        box = app.screen.query_one(".monitor-dialog").content_region
        strips = screen_strips(app.screen)[box.y : box.bottom]
        words = re.sub(r"\s+", " ", " ".join(s.crop(box.x, box.right).text for s in strips))
        question = "whose row holds a user, a PID or part of a command:"
        assert question in words  # one sentence, not split around the field
        field = app.screen.query_one("#filter-input")
        assert words.index(question) < words.index("Enter shows them")
        assert field.region.y > app.screen.query_one(".dialog-title").region.y
