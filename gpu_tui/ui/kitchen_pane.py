"""The Kitchen pane: the chef-vs-brigade race, animated from the model's exact timeline."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Digits, Static

from gpu_tui.core.errors import UsageError
from gpu_tui.core.kitchen import model
from gpu_tui.core.kitchen.headline import headline, story
from gpu_tui.core.kitchen.params import KitchenParams
from gpu_tui.core.kitchen.scenarios import SCENARIOS, Scenario
from gpu_tui.ui.config import AppConfig
from gpu_tui.ui.kitchen.knobs import at_limit, changed, current, knobs_for, step, try_hint
from gpu_tui.ui.kitchen.measure_panel import MeasurePanel
from gpu_tui.ui.kitchen.param_bar import ParamBar
from gpu_tui.ui.kitchen.playback import Playback, make_schedule
from gpu_tui.ui.kitchen.race_view import RaceView
from gpu_tui.ui.kitchen.result import result_text
from gpu_tui.ui.kitchen.top_line import top_line
from gpu_tui.ui.pane import Pane

if TYPE_CHECKING:
    from gpu_tui.ui.kitchen.kitchen_plots import KitchenPlots

FPS = 20
AUTOPLAY_HOLD = 6.0  # wall seconds the result stays up before autoplay moves on
ROOMY = (120, 40)  # pane size from which the plots sit under the race instead of behind "g"
SIDE_BY_SIDE = 120  # columns from which "g" shows the three plots together, not one by one


class PlotsModuleLoaded(Message):
    """textual-plotext (≈0.3 s to import) finished importing in a thread."""


class KitchenPane(Pane, can_focus=True):
    """Scenario and live knobs on top of a race whose clock the pane's Playback owns."""

    BINDINGS = [  # noqa: RUF012 — Textual API
        Binding("space", "toggle_play", "Play/pause", key_display="space", tooltip="the race"),
        Binding("s", "scenario(1)", "Scenario", tooltip="the next one"),
        Binding("S", "scenario(-1)", "Previous scenario", show=False),
        Binding("left", "turn(False)", "Less", group=Binding.Group("Less/more", compact=True)),
        Binding("right", "turn(True)", "More", group=Binding.Group("Less/more", compact=True)),
        Binding("m", "measure", "Measure", tooltip="this scenario, for real, on this machine"),
        Binding("up", "pick(-1)", "Pick a parameter", group=Binding.Group("Pick", compact=True)),
        Binding("down", "pick(1)", "Pick a parameter", group=Binding.Group("Pick", compact=True)),
        Binding("r", "restart", "Restart", tooltip="the race from the start"),
        Binding("full_stop", "step", "Step", key_display=".", tooltip="pause, then ¼ s on"),
        Binding("g", "toggle_plots", "Plots", tooltip="show / hide them"),
        Binding("end,e", "end", "Skip to the result", key_display="e", tooltip="(End too)"),
        Binding(
            "plus,equals_sign",
            "speed(True)",
            "Faster",
            key_display="+",
            group=Binding.Group("Faster/slower", compact=True),
            tooltip="playback",
        ),
        Binding(
            "minus",
            "speed(False)",
            "Slower",
            key_display="-",
            group=Binding.Group("Faster/slower", compact=True),
            tooltip="playback",
        ),
        Binding("escape", "close_measure", "Stop / close the measurement", show=False),
    ]

    def __init__(
        self,
        config: AppConfig,
        *,
        id: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(config, id=id)
        self.autoplay = config.autoplay
        self.scenario: Scenario = next(iter(SCENARIOS.values()))
        self.params: KitchenParams = self.scenario.params
        self.knobs = knobs_for(self.scenario)
        self.selected = 0
        self.playback = Playback(make_schedule(1, 1), clock)
        self.animating = False
        self.plots: KitchenPlots | None = None
        self.plot_page: int | None = None  # the plot shown alone by "g" on a narrow screen
        self._plots_dirty = True
        self._started = False
        self._finished_at: float | None = None
        self._timer: Timer | None = None
        self._top = Text()
        self._hint: str | None = None  # the keys that turn the story round, if any
        self._caption = ""  # the scenario's story, or what the knobs turned lead to
        self._title = ""

    def compose(self) -> ComposeResult:
        yield Static(id="kitchen-top")
        yield Static(id="kitchen-story")
        with Vertical(id="kitchen-body"):
            yield RaceView(id="race")
            yield MeasurePanel(id="measure-panel")
        with Horizontal(id="kitchen-result"):
            yield Digits("", id="result-digits")
            yield Static(id="result-text")
        yield ParamBar(id="param-bar")

    def on_mount(self) -> None:
        self._timer = self.set_interval(1 / FPS, self.frame, pause=True)
        self.query_one(MeasurePanel).python = self.config.bench_python
        self.load(self.scenario)

    # -- state changes ----------------------------------------------------------------------

    def load(self, scenario: Scenario, params: KitchenParams | None = None) -> None:
        """Show ``scenario`` (with ``params`` if given) from the start; keeps playing if it was."""
        self.scenario, self.params = scenario, params or scenario.params
        if params is None:
            self.knobs = knobs_for(scenario)
            self.selected = min(self.selected, len(self.knobs) - 1)
        self.query_one(RaceView).load(scenario, self.params)
        if not self.query_one(MeasurePanel).follow(scenario.name, self.params):
            self.remove_class("-measure")
        chef, brigade = model.chef_seconds(self.params), model.brigade_seconds(self.params)
        self.playback.reset(make_schedule(float(chef), float(brigade)))
        self._finished_at = None
        self._plots_dirty = True
        self._hint = try_hint(self.knobs, self.params, scenario.try_it)
        self._caption = story(scenario, self.params, changed(self.knobs, scenario, self.params))
        self._title = scenario.title_for(self.params)
        self._show_result()
        self.query_one(ParamBar).show(self.knobs, self.params, self.selected)
        self._refresh_plots()
        self._draw()
        self._run_timer()

    def watch_active(self, active: bool) -> None:
        if active and not self._started:
            self._started = True
            self.playback.play()
        if active:
            self._refresh_plots()
            # The race went on while hidden (it may even have finished): draw it as it is now,
            # once the layout has given every line its width back.
            self.call_after_refresh(self._draw)
        self._run_timer()

    def on_resize(self, event: events.Resize) -> None:
        roomy = self.size.width >= ROOMY[0] and self.size.height >= ROOMY[1]
        self.set_class(roomy, "-roomy")
        if roomy and self.plots is None:
            self._load_plots()
        paged = self.has_class("-plots") and self._paged()
        self._page_plots((self.plot_page or 0) if paged else None)
        self._draw()  # the top line fits the new width

    def _run_timer(self) -> None:
        """Tick only while visible and something moves (playing, or autoplay's result hold).
        The race clock runs on while the pane is hidden: shown again, it is where it would be."""
        want = self.active and (self.playback.playing or self._finished_at is not None)
        if self._timer is None or want == self.animating:
            return
        self.animating = want
        if want:
            self.playback.tick()  # paused: no jump; hidden while playing: catches up
            self._timer.resume()
        else:
            self._timer.pause()

    def frame(self) -> None:
        """One animation frame (the timer calls it; tests call it after moving a fake clock)."""
        self.playback.tick()
        self._draw()
        # not "just finished": a race may have finished while the pane was hidden
        if self.playback.finished and self.autoplay and self._finished_at is None:
            self._finished_at = self.playback.clock()
        holding = self._finished_at is not None and self.autoplay
        if holding and self.playback.clock() - (self._finished_at or 0) >= AUTOPLAY_HOLD:
            self._next_autoplay()
        self._run_timer()

    def _next_autoplay(self) -> None:
        names = list(SCENARIOS)
        following = SCENARIOS[names[(names.index(self.scenario.name) + 1) % len(names)]]
        self.load(following)
        self.playback.play()

    def stop_autoplay(self) -> None:
        self.autoplay = False
        self._finished_at = None
        self._draw()
        self._run_timer()

    def on_key(self, event: events.Key) -> None:
        if self.autoplay:
            self.stop_autoplay()

    # -- drawing -----------------------------------------------------------------------------

    def _draw(self) -> None:
        t = self.playback.t
        self.query_one(RaceView).show(t)
        self.set_class(self.playback.finished, "-finished")
        width = self.size.width or 1000
        top = top_line(
            self.scenario, self.playback, autoplay=self.autoplay, width=width, title=self._title
        )
        if top != self._top:
            self._top = top
            self.query_one("#kitchen-top", Static).update(top, layout=False)  # fixed height
        finished, scenario = self.playback.finished, self.scenario
        story = f"In real life: {scenario.in_real_life}" if finished else self._caption
        if self._hint and not finished:
            story += f" {self._hint}"
        story_widget = self.query_one("#kitchen-story", Static)
        if story_widget.content != story:
            story_widget.update(story)

    def _show_result(self) -> None:
        head = headline(self.scenario, self.params)
        self.query_one("#result-digits", Digits).update(head.ratio_text)
        text = result_text(self.params, head, self.scenario.comparison, hint=self._hint)
        self.query_one("#result-text", Static).update(text)

    # -- plots (textual-plotext is imported only when a plot is first shown) -----------------

    @work(thread=True, exclusive=True, group="kitchen-plots", exit_on_error=False)
    def _load_plots(self) -> None:
        import gpu_tui.ui.kitchen.kitchen_plots  # noqa: F401  — the slow import, off the loop

        self.post_message(PlotsModuleLoaded())

    def on_plots_module_loaded(self, _: PlotsModuleLoaded) -> None:
        from gpu_tui.ui.kitchen.kitchen_plots import KitchenPlots

        if self.plots is None:
            self.plots = KitchenPlots(id="kitchen-plots")
            self.plots.page = self.plot_page
            self.query_one("#kitchen-body").mount(self.plots)
            self.call_after_refresh(self._refresh_plots)

    def _plots_visible(self) -> bool:
        return self.active and (self.has_class("-roomy") or self.has_class("-plots"))

    def _refresh_plots(self) -> None:
        """Redraw only after a change and only while the plots can be seen."""
        if self.plots is not None and self._plots_dirty and self._plots_visible():
            self._plots_dirty = False
            self.plots.update_params(self.params)

    # -- actions -----------------------------------------------------------------------------

    def action_toggle_play(self) -> None:
        self.playback.toggle()
        self._draw()
        self._run_timer()

    def action_restart(self) -> None:
        """Back to the start; a paused race stays paused (so a step-through can begin again)."""
        if self.playback.finished:
            self.playback.play()
        self.playback.reset()
        self._draw()
        self._run_timer()

    def action_end(self) -> None:
        """Jump to the result (for a talk running short of time)."""
        self.playback.pause()
        self.playback.t = self.playback.schedule.end
        self._draw()
        self._run_timer()

    def action_step(self) -> None:
        self.playback.step()
        self._draw()
        self._run_timer()

    def action_speed(self, up: bool) -> None:
        self.playback.faster() if up else self.playback.slower()
        self._draw()

    def action_scenario(self, delta: int) -> None:
        names = list(SCENARIOS)
        index = (names.index(self.scenario.name) + delta) % len(names)
        self.load(SCENARIOS[names[index]])
        self.playback.play()
        self._run_timer()

    def action_pick(self, delta: int) -> None:
        self.selected = (self.selected + delta) % len(self.knobs)
        self.query_one(ParamBar).show(self.knobs, self.params, self.selected)

    def action_turn(self, up: bool) -> None:
        knob = self.knobs[self.selected]
        now = current(self.params, knob.key)
        if (limit := at_limit(knob, now, up)) is not None:  # no change: the race plays on
            self.notify(limit, timeout=3)
            return
        try:
            params = self.params.replace({knob.key: step(knob, now, up)})
        except UsageError as error:
            self.notify(str(error), severity="warning")
            return
        self.load(self.scenario, params)
        self.playback.play()
        self._run_timer()

    def _paged(self) -> bool:
        return self.size.width < SIDE_BY_SIDE

    def _page_plots(self, page: int | None) -> None:
        self.plot_page = page
        if self.plots is not None:
            self.plots.show_page(page)

    def action_toggle_plots(self) -> None:
        """The plots in place of the race, and back. Too narrow for three side by side, each
        press shows the next plot alone, and the press after the last brings the race back."""
        showing = self.has_class("-plots")
        if showing and self.plot_page is not None and self.plot_page < 2:
            self._page_plots(self.plot_page + 1)
        else:
            self.set_class(not showing, "-plots")
            self._page_plots(0 if not showing and self._paged() else None)
        if self.plots is None:
            self._load_plots()
        self._refresh_plots()

    # -- run it for real (the panel owns the worker; the pane shows, hides and forwards keys) --

    def action_measure(self) -> None:
        """Measure this scenario on this machine; pressed while measuring, stop. The race pauses:
        its frames would take CPU time from the very cores being measured."""
        self.add_class("-measure")
        panel = self.query_one(MeasurePanel)
        panel.toggle(self.scenario.name, self.params)
        if panel.running and self.playback.playing:
            self.action_toggle_play()

    def action_close_measure(self) -> None:
        still_open = self.query_one(MeasurePanel).escape()
        self.set_class(still_open, "-measure")
        if not still_open:
            self.focus()  # the panel may have had it (Tab, to scroll): the knobs get it back

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Esc belongs to the measurement only while it is open; otherwise the app gets it
        return self.has_class("-measure") if action == "close_measure" else True
