"""Waiting in tests: the one place that polls until something holds, then fails by name.

Use :func:`until` inside ``app.run_test()`` (it lets the app run between checks), and
:func:`wait_for` from plain synchronous code (a subprocess, a thread, a file appearing). Both
take a ``what`` that finishes the sentence "waiting for …", so a broken pane or a stuck process
fails with ``timed out after 30 s waiting for the card drawn`` instead of hanging the suite until
pytest-timeout kills it. Keep ``timeout`` below the test's own pytest-timeout limit, so this
message, not pytest's, is the one a reader sees.

:func:`settle` is the usual last step before a snapshot: the app idle and its animations done.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the sync helper serves tests that never start an app
    from textual.pilot import Pilot

TIMEOUT = 30.0
"""Seconds to wait by default: ample for the app reacting to itself on a loaded two-core CI
machine, short enough to fail well inside the suite's 180 s per-test limit."""
WORKER_RUN = 90.0
"""Seconds to wait for a bench run in a worker process (start Python, run, save, end)."""


def _failure(what: str, timeout: float) -> AssertionError:
    return AssertionError(f"timed out after {timeout:g} s waiting for {what}")


async def until(
    pilot: Pilot[Any],
    condition: Callable[[], bool],
    what: str,
    *,
    timeout: float = TIMEOUT,
    every: float = 0.05,
) -> None:
    """Let the app run, ``every`` seconds at a time, until ``condition()`` is true.

    ``condition`` is checked first, so a condition that already holds returns at once. Fails
    with ``timed out after {timeout} s waiting for {what}`` once ``timeout`` seconds of wall
    time have passed.
    """
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise _failure(what, timeout)
        await pilot.pause(every)


def wait_for(
    condition: Callable[[], bool], what: str, *, timeout: float = TIMEOUT, every: float = 0.02
) -> None:
    """Sleep ``every`` seconds at a time until ``condition()`` is true: for code that runs no
    event loop (another process, another thread). Fails as :func:`until` does."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise _failure(what, timeout)
        time.sleep(every)


async def settle(pilot: Pilot[Any]) -> None:
    """Wait for the app's hardware reading (it comes from a thread, later on a loaded machine,
    and keys pressed before it land on "Reading hardware…"), let the app go idle, finish its
    scheduled animations, and go idle again: the frame is then the same on every run."""
    if hasattr(pilot.app, "inventory"):
        await until(pilot, lambda: pilot.app.inventory is not None, "the hardware reading")
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
