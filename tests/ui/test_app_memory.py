"""Once start-up is over, a terminal app hides what it built from the garbage collector."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable

import pytest

from gpu_tui.ui import app as app_module
from gpu_tui.ui.app import GpuTuiApp, settle_memory


def test_settling_collects_garbage_first_then_freezes_the_rest() -> None:
    class Cycle:
        def __init__(self) -> None:
            self.me = self

    frozen_before = gc.get_freeze_count()
    garbage = weakref.ref(Cycle())  # only the collector can free it
    kept = Cycle()
    try:
        settle_memory()
        assert gc.get_freeze_count() > frozen_before
        assert garbage() is None  # freed, not frozen for good
        assert kept.me is kept
    finally:
        gc.unfreeze()  # the test process must keep collecting what later tests build


@pytest.mark.parametrize("headless", [True, False])
async def test_only_an_app_on_a_terminal_settles(
    app_factory: Callable[..., GpuTuiApp], monkeypatch: pytest.MonkeyPatch, headless: bool
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(app_module, "settle_memory", lambda: calls.append("settled"))
    monkeypatch.setattr(GpuTuiApp, "is_headless", property(lambda self: headless))
    app = app_factory()
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.pause()
    assert (calls != []) is not headless  # after the inventory arrived, on a terminal only
