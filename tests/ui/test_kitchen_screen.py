"""The Kitchen as an audience sees it: every word on screen at 80×24 and 160×48, no CLI syntax,
and a race that finished behind another pane drawn whole when the pane comes back."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from rich.text import Text
from textual.widgets import Digits

from gpu_tui.core.kitchen.headline import headline
from gpu_tui.core.kitchen.scenarios import SCENARIOS
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.kitchen.knobs import current, show_value
from gpu_tui.ui.kitchen.playback import Playback, make_schedule
from gpu_tui.ui.kitchen.progress_line import ProgressLine
from gpu_tui.ui.kitchen.squad_grid import SquadGrid
from gpu_tui.ui.kitchen.top_line import top_line
from gpu_tui.ui.kitchen_pane import AUTOPLAY_HOLD, KitchenPane
from gpu_tui.ui.widgets.textual_internals import screen_strips
from tests.polling import until
from tests.ui.conftest import fixed_inventory

SIZES = [(80, 24), (160, 48)]
BOX = re.compile(r"[\u2500-\u259f•]")  # frames, bars, big digits and squads: not words
CLI = re.compile(r"(?<![\w-])--[a-z]|\w+_\w+=\d")  # --set, hallway_rate=1000


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def screen_lines(app: GpuTuiApp) -> list[str]:
    """The screen as text, big digits blanked: their glyphs are drawing, not words."""
    lines = [list(strip.text) for strip in screen_strips(app.screen)]
    for digits in app.screen.query(Digits):
        region = digits.region
        for y in range(region.y, region.bottom):
            lines[y][region.x : region.right] = " " * region.width
    return ["".join(line) for line in lines]


def words(app: GpuTuiApp) -> str:
    """The screen's words in reading order: a sentence wrapped over lines reads as one."""
    return " ".join(" ".join(BOX.sub(" ", line).split()) for line in screen_lines(app))


def plain(text: str | Text) -> str:
    return " ".join(BOX.sub(" ", str(text)).split())


def assert_shown(app: GpuTuiApp, *texts: str | Text) -> None:
    """Each text whole on screen (wrapped anywhere, but in reading order)."""
    shown = words(app)
    for text in texts:
        assert plain(text) in shown, f"not all of {plain(text)!r} is on screen:\n" + "\n".join(
            screen_lines(app)
        )
    assert not CLI.search(shown), CLI.search(shown)


def assert_lines_shown(app: GpuTuiApp, *texts: str | Text) -> None:
    """Each line of each text whole on one screen line (for boxes side by side)."""
    lines = [plain(line) for line in screen_lines(app)]
    for text in texts:
        for line in str(text).splitlines():
            assert any(plain(line) in shown for shown in lines), (line, "\n".join(lines))


def on_fake_clock(app: GpuTuiApp) -> tuple[KitchenPane, FakeClock]:
    pane = app.query_one(KitchenPane)
    clock = FakeClock()
    pane.playback.clock = clock
    pane.playback.reset()
    pane.frame()
    return pane, clock


def knob_texts(pane: KitchenPane) -> list[str]:
    return [f"{k.label} {show_value(k, current(pane.params, k.key))}" for k in pane.knobs]


@pytest.mark.parametrize("autoplay", [False, True])
def test_the_top_line_fits_80_columns_in_every_state(autoplay: bool) -> None:
    assert SCENARIOS, "there must be scenarios to draw"
    for scenario in SCENARIOS.values():
        pb = Playback(make_schedule(20_000, 20), FakeClock())
        for t, playing in ((0.0, False), (10.0, True), (5_000.0, True), (20_000.0, False)):
            pb.t, pb.playing = t, playing
            line = top_line(scenario, pb, autoplay=autoplay, width=80)
            assert line.cell_len <= 80, line.plain
            assert line.plain.startswith(f" {scenario.name} ")
            assert ("AUTOPLAY" in line.plain) == autoplay
            if t == 5_000.0:  # the fast-forward is news: it keeps at least its short form
                assert "»» ×" in line.plain or "»» fast-forward ×" in line.plain
        wide = top_line(scenario, pb, autoplay=autoplay, width=160)
        assert scenario.title in wide.plain


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_word_of_every_scenario_is_on_screen(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    assert SCENARIOS, "there must be scenarios to show"
    app = app_factory(pane="kitchen")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for name, scenario in SCENARIOS.items():
            pane, clock = on_fake_clock(app)
            assert pane.scenario.name == name
            clock.now += 4.0  # mid-race
            pane.frame()
            await pilot.pause()
            race = pane.query_one("#race")
            assert_shown(app, scenario.caption, *knob_texts(pane))
            assert_lines_shown(
                app,
                *(str(s.render()) for s in race.query(".side-title, .count, .status, .unit")),
                str(pane.query_one("#race-legend").render()),
            )
            await pilot.press("e")
            await pilot.pause()
            head = headline(scenario, pane.params)
            assert_shown(
                app,
                f"In real life: {scenario.in_real_life}",
                head.title,
                head.lesson,
                scenario.comparison,
                str(pane.query_one("#result-text").render()),
            )
            await pilot.press("s")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_plots_show_their_titles_axes_and_legends(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    app = app_factory(pane="kitchen")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        pane, _ = on_fake_clock(app)
        await pilot.press("e", "g")
        await pilot.pause()
        plots = [
            ("Amdahl vs Gustafson", "Gustafson: the job grows", "speed-up ×", "cooks"),
            ("time vs tasks", "brigade wins from 8", "model seconds", "tasks"),
            ("speed-up vs kitchens", "best: 8", "speed-up ×", "kitchens"),
        ]
        drawn = lambda: pane.plots is not None and bool(pane.plots.query(".plot-legend"))  # noqa: E731
        await until(pilot, drawn, "the plots drawn", timeout=10)
        await pilot.pause(0.2)
        if size[0] < 120:  # one plot at a time, each "g" the next, then the race again
            for i, texts in enumerate(plots):
                assert_shown(app, *texts, f"{i + 1}/3")
                await pilot.press("g")
                await pilot.pause(0.2)
            assert not pane.has_class("-plots")
        else:
            assert_shown(app, *(t for texts in plots for t in texts))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_race_that_finished_behind_another_pane_is_drawn_whole(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    app = app_factory(pane="kitchen")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        pane, clock = on_fake_clock(app)
        clock.now += 1.0
        pane.frame()
        await pilot.press("2")  # another pane while the race runs
        await pilot.pause()
        assert not pane.animating
        clock.now += 60.0  # long enough to finish
        await pilot.press("3")
        await pilot.pause()
        await pilot.pause()
        assert pane.playback.finished
        assert pane.has_class("-finished")
        for bar in pane.query(ProgressLine):
            drawn = str(bar.render())
            assert drawn == "━" * (bar.size.width - 6) + "100 %"  # the full width, not "━100 %"
            assert bar.size.width > 20
        assert "BRIGADE 1,000× FASTER" in words(app)
        grid = pane.query_one(SquadGrid)
        if grid.display and grid.size.height:  # the roomy layout keeps the squads
            assert sum(len(k) for k in grid.cells) >= 313 // grid.layout_plan.group
            assert grid.layout_plan.group == 1


async def test_autoplay_moves_on_after_a_race_that_finished_while_hidden() -> None:
    inventory = fixed_inventory()
    config = AppConfig(
        demo=True, pane="kitchen", discover=lambda: inventory, host="test-host", autoplay=True
    )
    app = make_app(config)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane, clock = on_fake_clock(app)
        await app.action_show_pane("monitor")  # not a key press: a key would stop autoplay
        await pilot.pause()
        clock.now += 60.0
        await app.action_show_pane("kitchen")
        await pilot.pause()
        pane.frame()
        assert pane.playback.finished
        assert pane.animating  # holding the result, then on to the next scenario
        clock.now += AUTOPLAY_HOLD
        pane.frame()
        assert pane.scenario.name == "complex-recipe"
