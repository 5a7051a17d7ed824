"""The app's tab bar: number keys and clicks show one pane at a time, the others rest."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Tabs

from gpu_tui.ui.app import GpuTuiApp
from tests.polling import until


def shown(app: GpuTuiApp) -> list[str]:
    return [name for name, pane in app.panes.items() if pane.display]


def active(app: GpuTuiApp) -> list[str]:
    return [name for name, pane in app.panes.items() if pane.active]


async def test_keys_and_clicks_show_one_pane_at_a_time(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    app = app_factory(pane="specs")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert shown(app) == active(app) == ["specs"]
        await pilot.press("3")
        await pilot.pause()
        assert shown(app) == active(app) == ["kitchen"]
        assert app.query_one("#tabs", Tabs).active == "tab-kitchen"
        assert app.focused is not None
        assert app.panes["kitchen"] in app.focused.ancestors_with_self  # keys reach the pane
        await pilot.click("#tab-guide")
        await pilot.pause()
        assert shown(app) == active(app) == ["guide"]
        await pilot.press("1")
        await pilot.pause()
        assert shown(app) == active(app) == ["specs"]
        # The pane shown fills the rows between the header and tabs (3) and the footer (1).
        region = app.panes["specs"].region
        assert (region.y, region.height, region.width) == (3, 30 - 3 - 1, 100)


async def test_a_notification_covers_the_screen_to_its_right_edge(
    app_factory: Callable[..., GpuTuiApp],
) -> None:
    """Nothing of the pane behind shows through beside a notification."""
    app = app_factory(pane="specs")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        app.notify("a line long enough to wrap in the notification's box", title="Note")
        await until(pilot, lambda: bool(app.screen.query("Toast")), "the notification shown")
        await pilot.pause()
        toast = app.screen.query_one("Toast")
        assert toast.region.width > 0
        assert toast.region.right == 80
