"""A fault test leaves no process behind: checked after each test that asks for it, so the check
holds whatever order the tests run in and on whichever xdist worker they land."""

from __future__ import annotations

from collections.abc import Iterator

import psutil
import pytest

from tests.helpers.running_app import gone
from tests.polling import wait_for


@pytest.fixture
def no_process_left() -> Iterator[None]:
    yield
    left = psutil.Process().children(recursive=True)
    wait_for(
        lambda: all(gone(child) for child in left),
        f"every process this test started to end ({[p.pid for p in left]})",
        timeout=5,
    )
