"""The Kitchen pane with Pilot and a fake clock: play, pause, step, knobs, scenarios, autoplay."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest
from textual.widgets import Digits, Static

from gpu_tui.core.kitchen.scenarios import SCENARIOS
from gpu_tui.ui.app import AppConfig, GpuTuiApp, make_app
from gpu_tui.ui.kitchen.knobs import KNOBS, at_limit, knobs_for, step
from gpu_tui.ui.kitchen.playback import Playback, make_schedule
from gpu_tui.ui.kitchen.squad_grid import plan_layout
from gpu_tui.ui.kitchen_pane import AUTOPLAY_HOLD, KitchenPane
from tests.ui.conftest import fixed_inventory


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def text(app: GpuTuiApp, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


def digits(app: GpuTuiApp, selector: str) -> str:
    return app.query_one(selector, Digits).value


def kitchen(app: GpuTuiApp, clock: FakeClock) -> KitchenPane:
    """The pane, put on the fake clock and rewound (it started playing when first shown)."""
    pane = app.query_one(KitchenPane)
    pane.playback.clock = clock
    pane.playback.reset()
    pane.frame()
    return pane


def advance(pane: KitchenPane, clock: FakeClock, seconds: float) -> None:
    clock.now += seconds
    pane.frame()


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_onions_play_to_a_1000x_result(
    app_factory: Callable[..., GpuTuiApp], size: tuple[int, int]
) -> None:
    app, clock = app_factory(pane="kitchen"), FakeClock()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        pane = kitchen(app, clock)
        assert pane.active
        assert pane.playback.playing
        assert pane.animating
        advance(pane, clock, 4.0)  # first stage: 2.5 model s per wall s
        assert digits(app, "#brigade-clock") == "10.0"
        assert "of 10,000 onions" in text(app, "#brigade-count")
        assert not pane.has_class("-finished")
        advance(pane, clock, 30.0)
        await pilot.pause()
        assert pane.playback.finished
        assert not pane.animating
        assert pane.has_class("-finished")
        result = text(app, "#result-text")
        # the headline is the ratio, with what it compares
        assert result.startswith(" BRIGADE 1,000× FASTER   the brigade = 1 GPU, the chef = 1 CPU")
        assert "chef 20,000 s (5.56 h) · brigade 20 s" in result
        # the headline is one core against a GPU: the whole server CPU is named beside it
        assert "Real FP32 peaks: H100 = 565× one EPYC 9654 core, only 5.9–9.1× all 96" in result
        # both clocks in one unit, written beside each: 20,000 against 20.0 seconds
        assert digits(app, "#brigade-clock") == "20.0"
        assert digits(app, "#chef-clock") == "20,000"
        assert text(app, "#chef-unit") == text(app, "#brigade-unit") == "model\nseconds"
        assert text(app, "#chef-count") == "10,000 of 10,000 onions"
        story = text(app, "#kitchen-story")
        assert story.startswith("In real life: An H100 with the data on it (3.35 TB/s, 3 µs")


async def test_pause_step_and_restart(app_factory: Callable[..., GpuTuiApp]) -> None:
    app, clock = app_factory(pane="kitchen"), FakeClock()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = kitchen(app, clock)
        await pilot.press("space")
        assert not pane.playback.playing
        assert not pane.animating
        advance(pane, clock, 5.0)
        assert pane.playback.t == 0.0
        assert "paused" in text(app, "#kitchen-top")
        await pilot.press("full_stop", "full_stop")
        assert pane.playback.t == pytest.approx(2 * 0.25 * 2.5)
        await pilot.press("plus")
        assert pane.playback.speed == 2.0
        await pilot.press("r")
        assert pane.playback.t == 0.0
        assert not pane.playback.playing
        await pilot.press("space")
        advance(pane, clock, 1.0)
        assert pane.playback.t == pytest.approx(2 * 2.5)  # twice as fast after "+"
        await pilot.press("e")
        assert pane.playback.finished


async def test_turning_knobs_changes_the_race(app_factory: Callable[..., GpuTuiApp]) -> None:
    app, clock = app_factory(pane="kitchen"), FakeClock()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = kitchen(app, clock)
        await pilot.press("right")  # cooks 10,000 → 20,000
        assert pane.params.cooks == 20_000
        assert "20,000 cooks" in text(app, "#brigade-title")
        assert "cooks 20,000" in text(app, "#param-bar").replace("\u00a0", " ")
        await pilot.press("left")
        assert pane.params.cooks == 10_000
        await pilot.press(*["down"] * 4, "left")  # pantry 2,000/s → 1,000/s
        assert pane.params.pantry_rate == 1000
        assert pane.playback.playing  # a change replays the race from the start
        await pilot.press("e")
        result = text(app, "#result-text")
        assert "BRIGADE 800× FASTER" in result
        assert "brigade 25 s" in result  # L + d + w·c = 5 + 10 + 10


async def test_the_title_and_story_follow_the_knobs(app_factory: Callable[..., GpuTuiApp]) -> None:
    """The scenario's caption tells its own numbers: once a knob is turned, the title counts
    the onions there are and the story says what the change leads to."""
    app, clock = app_factory(pane="kitchen"), FakeClock()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = kitchen(app, clock)
        assert text(app, "#kitchen-story") == SCENARIOS["onions"].caption
        assert " 10,000 onions " in text(app, "#kitchen-top")
        await pilot.press("down", *["left"] * 5)  # onions 10,000 down the ladder to 1
        assert pane.params.phases[0].tasks == 1
        top, story = text(app, "#kitchen-top"), " ".join(text(app, "#kitchen-story").split())
        assert " 1 onion " in top
        assert story.startswith("Changed: onions 1 (was 10,000). Only 1 onion: the briefing")
        assert "brigade finishes in seconds" not in story
        for _ in range(20):  # back up the 1-2-5 ladder to the scenario's own onions
            await pilot.press("right")
            if pane.params.phases[0].tasks == 10_000:
                break
        assert pane.params == SCENARIOS["onions"].params  # its own numbers: its caption again
        assert text(app, "#kitchen-story") == SCENARIOS["onions"].caption


def toasts(app: GpuTuiApp) -> list[str]:
    return [str(toast.render()) for toast in app.screen.query("Toast")]


async def test_a_knob_at_its_limit_says_so_and_the_race_plays_on(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app, clock = app_factory(pane="kitchen"), FakeClock()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        pane = kitchen(app, clock)
        await pilot.press(*["right"] * 9)  # cooks 10,000 → 10,000,000 along 1-2-5
        assert pane.params.cooks == 10_000_000
        advance(pane, clock, 2.0)
        t = pane.playback.t
        assert t > 0
        await pilot.press("right")  # past the end: nothing to change, so no replay
        await pilot.pause()
        assert pane.params.cooks == 10_000_000
        assert pane.playback.t == t
        assert toasts(app)[-1].startswith("cooks is at its maximum (1 to 10,000,000): ")
        await pilot.press(*["down"] * 3, *["left"] * 7)  # launch 5 s → 0 s, then once more
        await pilot.pause()
        assert pane.params.launch_seconds == 0
        assert "launch is at its minimum (0 s to 1,000,000,000 s)" in toasts(app)
        await pilot.press("e")  # and the race still runs to its result
        assert "BRIGADE 1,333× FASTER" in text(app, "#result-text")


async def test_switching_scenarios(app_factory: Callable[..., GpuTuiApp]) -> None:
    app, clock = app_factory(pane="kitchen"), FakeClock()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = kitchen(app, clock)
        await pilot.press("s")
        assert pane.scenario.name == "complex-recipe"
        assert "complex-recipe" in text(app, "#kitchen-top")
        assert "tasks" not in [k.key for k in pane.knobs]  # 31 phases: no single task count
        await pilot.press("e")
        assert "CHEF 4.82× FASTER" in text(app, "#result-text")
        assert "only 1.05× faster than the chef alone (Amdahl)" in text(app, "#result-text")
        await pilot.press("s", "s", "s")
        assert pane.scenario.name == "scaling"
        await pilot.press("e")
        assert "EIGHT KITCHENS ARE BEST: 3.77× FASTER THAN ONE" in text(app, "#result-text")
        await pilot.press("S", "S", "S", "S")
        assert pane.scenario.name == "onions"


async def test_hidden_pane_stops_its_timer(app_factory: Callable[..., GpuTuiApp]) -> None:
    app, clock = app_factory(pane="kitchen"), FakeClock()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = kitchen(app, clock)
        assert pane.animating
        await pilot.press("1")
        await pilot.pause()
        assert not pane.active
        assert not pane.animating
        await pilot.press("3")
        await pilot.pause()
        assert pane.active
        assert pane.animating


async def test_autoplay_cycles_until_a_key(tmp_path: object) -> None:
    inventory = fixed_inventory()
    config = AppConfig(
        demo=True, pane="kitchen", discover=lambda: inventory, host="test-host", autoplay=True
    )
    app, clock = make_app(config), FakeClock()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = kitchen(app, clock)
        assert "AUTOPLAY" in text(app, "#kitchen-top")
        advance(pane, clock, 30.0)
        assert pane.playback.finished
        assert pane.animating  # holding the result, then on to the next
        advance(pane, clock, AUTOPLAY_HOLD)
        assert pane.scenario.name == "complex-recipe"
        assert pane.playback.playing
        await pilot.press("space")
        assert not pane.autoplay
        assert "AUTOPLAY" not in text(app, "#kitchen-top")


def test_every_race_plays_in_10_to_30_seconds() -> None:
    from gpu_tui.core.kitchen import model

    assert SCENARIOS, "there must be races to time"
    for scenario in SCENARIOS.values():
        p = scenario.params
        schedule = make_schedule(float(model.chef_seconds(p)), float(model.brigade_seconds(p)))
        assert 10 <= schedule.wall_seconds() <= 30, scenario.name


def test_playback_crosses_into_the_fast_forward_stage() -> None:
    clock = FakeClock()
    playback = Playback(make_schedule(20_000, 20), clock)
    playback.play()
    clock.now += 8.0
    assert playback.tick() == pytest.approx(20.0)  # the brigade's finish line after 8 s
    clock.now += 5.0
    assert playback.tick() == pytest.approx(20 + (20_000 - 20) / 2)
    clock.now += 60.0
    assert playback.tick() == 20_000
    assert not playback.playing


def test_knobs_step_along_1_2_5() -> None:
    cooks = next(k for k in KNOBS if k.key == "cooks")
    assert step(cooks, Fraction(10_000), up=True) == 20_000
    assert step(cooks, Fraction(20_000), up=True) == 50_000
    assert step(cooks, Fraction(1), up=False) == 1
    launch = next(k for k in KNOBS if k.key == "launch_seconds")
    assert step(launch, Fraction(1, 10), up=False) == 0
    assert step(launch, Fraction(0), up=True) == Fraction(1, 10)
    kitchens = next(k for k in KNOBS if k.key == "kitchens")
    assert step(kitchens, Fraction(2), up=True) == 4
    assert step(kitchens, Fraction(64), up=True) == 64


def test_squad_layout_fits_the_area() -> None:
    roomy = plan_layout(120, 20, 313, 1)
    assert roomy.glyph == "▇▇ "
    assert roomy.group == 1
    tight = plan_layout(46, 5, 313, 1)
    assert tight.half  # 313 squads need half-blocks in 46 × 5
    assert tight.group == 1
    huge = plan_layout(46, 5, 31_250, 1)  # a million cooks: cells merge squads
    assert huge.group > 1
    assert "squads" in huge.note
    many = plan_layout(46, 6, 32, 32)
    assert many.kitchens < 32
    assert "more kitchens" in many.note


def test_a_knob_that_stops_short_of_the_model_says_why_and_where_the_rest_is() -> None:
    knobs = {knob.key: knob for knob in knobs_for(SCENARIOS["onions"])}
    assert at_limit(knobs["tasks"], Fraction(10**9), up=True) == (
        "onions is at its maximum (1 to 1,000,000,000): the pane stops here so its size plot "
        "(up to 100× the recipe) stays in range; gpu-tui kitchen --set tasks=N takes a whole "
        "number between 1 and 1,000,000,000,000"
    )
    # An end the model shares needs no excuse.
    assert (
        at_limit(knobs["tasks"], Fraction(1), up=False)
        == "onions is at its minimum (1 to 1,000,000,000)"
    )
