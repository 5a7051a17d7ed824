"""The Monitor's zoom with Pilot: ``z`` cycles the history window, the status line and the time
axes say which, and a spike from long ago still shows when zoomed out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from textual.pilot import Pilot

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.monitor.samples import CpuSample, MemorySample, Sample
from gpu_tui.ui.app import GpuTuiApp
from gpu_tui.ui.monitor.draw import GAP, NOTHING_YET
from gpu_tui.ui.monitor.gpu_card import GpuCard
from gpu_tui.ui.monitor.host_panel import HostPanel
from gpu_tui.ui.monitor_pane import MonitorPane
from tests.conftest import SimulatedNvml
from tests.fakes.samples import gpu_sample
from tests.polling import until

NEVER = 60.0
"""Refresh interval: after its first tick the sampler's own thread never ticks in a test. That
first tick lasts its 60 s on the graphs' time axis; the ticks the tests add, 1 s or 2 s each."""


def status(app: GpuTuiApp) -> str:
    return str(app.query_one("#monitor-status").render())


def reading(busy: float) -> Sample:
    cpu = CpuSample(busy / 2, (busy / 2,), 2500.0, (0.5, 0.4, 0.3), Unknown("no sensors"))
    memory = MemorySample(24 << 30, 6 << 30, 18 << 30, 0, 0)
    gpu = gpu_sample(0, utilization_percent=busy, power_watts=80 + 6 * busy)
    return Sample(timestamp=1e9, cpu=cpu, memory=memory, gpus=(gpu,))


async def opened(pilot: Pilot[int]) -> MonitorPane:
    """The pane drawn once with the H200 open, its sampler paused (the test ticks by hand)."""
    pane = pilot.app.query_one(MonitorPane)
    ready = lambda: pane.sources is not None and pane.redraws > 0 and bool(pane._cards)  # noqa: E731
    await until(pilot, ready, "the first tick drawn and the GPU opened")
    await pilot.press("p")
    return pane


async def record(pilot: Pilot[int], pane: MonitorPane, busy: list[float], interval: float) -> None:
    """Feed ``busy`` (GPU %, one a tick, taken ``interval`` s apart) and draw the last."""
    assert pane.sampler is not None
    history = pane.sampler.history
    for value in busy:
        history.append(reading(value), interval)
    pane._latest = replace(reading(busy[-1]), timestamp=2e9)
    pane.redraw()
    await pilot.pause()


def graph(card: GpuCard) -> tuple[list[str], str]:
    """The card's GPU-busy graph rows (after the scale column) and its time axis."""
    rows = [row.plain for row in card.rows]
    top = next(i for i, row in enumerate(rows) if row.startswith("100 "))
    bottom = next(i for i, row in enumerate(rows) if row.startswith("power"))
    axis = next(row for row in rows if row.rstrip().endswith("now"))
    return [row[4:] for row in rows[top:bottom]], axis


async def test_z_cycles_the_window_and_the_status_and_axes_say_which(
    app_factory: Callable[..., GpuTuiApp], simulated_nvml: SimulatedNvml
) -> None:
    h200 = simulated_nvml("h200").binding
    app = app_factory(demo=False, pane="monitor", nvml=h200, refresh=NEVER)
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await opened(pilot)
        await record(pilot, pane, [50.0] * 120, 1.0)
        (card,) = app.query(GpuCard)
        host = app.query_one(HostPanel)
        seen = []
        for expected, oldest in [
            ("last 1 min", "-1m"),
            ("last 5 min", "-5m"),
            ("last 15 min", "-15m"),
            ("last 1 h", "-1h"),
            ("all 3 min kept", "-5m"),  # three minutes held: the window rounds up to five
            ("last 1 min", "-1m"),  # and round again
        ]:
            _, axis = graph(card)
            assert f"graphs: {expected} (z)" in status(app)
            assert axis.split()[0] == oldest
            assert axis.split()[-1] == "now"
            host_axes = [row.plain.split() for row in host.rows if row.plain.endswith("now")]
            assert [axis[0] for axis in host_axes] == [oldest, oldest]  # CPU and RAM graphs
            seen.append(pane.window_ms())
            await pilot.press("z")
        assert seen == [60_000, 300_000, 900_000, 3_600_000, 300_000, 60_000]


async def test_the_window_holds_as_many_ticks_as_the_interval_fits(
    app_factory: Callable[..., GpuTuiApp], simulated_nvml: SimulatedNvml
) -> None:
    """Thirty ticks fill half of the one-minute graph at 1 s, all of it at 2 s (the rest is
    the pane's own first tick, idle, which lasted a minute)."""
    h200 = simulated_nvml("h200").binding
    app = app_factory(demo=False, pane="monitor", nvml=h200, refresh=NEVER)
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await opened(pilot)
        (card,) = app.query(GpuCard)
        await record(pilot, pane, [50.0] * 30, 1.0)
        rows, _ = graph(card)
        busy = rows[-1].count("█")  # 50 % fills the bottom row; the idle tick is a baseline
        assert 0.48 < busy / len(rows[-1]) < 0.52
        await record(pilot, pane, [50.0] * 30, 2.0)
        rows, _ = graph(card)
        assert rows[-1].count("█") == len(rows[-1])  # the last minute: thirty 2 s ticks
        assert NOTHING_YET not in rows[-1]


async def test_a_spike_an_hour_and_a_half_ago_still_shows_when_zoomed_out(
    app_factory: Callable[..., GpuTuiApp], simulated_nvml: SimulatedNvml
) -> None:
    h200 = simulated_nvml("h200").binding
    app = app_factory(demo=False, pane="monitor", nvml=h200, refresh=NEVER)
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await opened(pilot)
        (card,) = app.query(GpuCard)
        ticks = [10.0] * 7000
        ticks[600] = 100.0  # one tick at full load, ten minutes in
        await record(pilot, pane, ticks, 1.0)
        rows, _ = graph(card)
        assert not rows[0].strip()  # the last minute never reached the top
        await pilot.press("z", "z", "z")
        assert "last 1 h" in status(app)
        rows, _ = graph(card)
        assert not rows[0].strip()  # nor did the last hour
        await pilot.press("z")
        assert "all 1 h 57 min kept" in status(app)  # and the pane's first tick, a minute
        rows, axis = graph(card)
        assert axis.split()[0] == "-2h"
        top = rows[0].rstrip()
        assert top.strip() == "█"  # one column reaches the top: the spike
        # ... where it is on the two-hour axis: 6,400 s before the newest tick.
        at = top.index("█")
        assert abs(at - len(rows[0]) * (1 - 6400 / 7200)) <= 1
        assert all(GAP not in row for row in rows)


async def test_small_screens_zoom_their_sparklines_and_say_so(
    app_factory: Callable[..., GpuTuiApp], simulated_nvml: SimulatedNvml
) -> None:
    h200 = simulated_nvml("h200").binding
    app = app_factory(demo=False, pane="monitor", nvml=h200, refresh=NEVER)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await opened(pilot)
        (card,) = app.query(GpuCard)
        await record(pilot, pane, [0.0] * 3000 + [100.0] + [0.0] * 600, 1.0)
        gpu_row = next(row.plain for row in card.rows if row.plain.startswith("GPU "))
        assert "█" not in gpu_row.split("%", 1)[1]  # the spike is an hour ago: out of sight
        await pilot.press("z", "z", "z")
        assert "graphs: last 1 h (z)" in status(app)
        gpu_row = next(row.plain for row in card.rows if row.plain.startswith("GPU "))
        assert "█" in gpu_row.split("%", 1)[1]
