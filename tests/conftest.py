"""Every test gets its own empty data directory, so none reads or writes the user's saved runs;
and no app animates (a Pilot key press waits for every animation to end, and the tab underline's
slide alone made each pane switch cost 0.3 s). NVIDIA is nvidia-ml-py's own ``pynvml`` over a
simulated driver (``simulated_nvml``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
import textual.constants

from tests.fakes import simulated_driver
from tests.fakes.simulated_driver import SimulatedLibrary

os.environ["TEXTUAL_ANIMATIONS"] = "none"  # apps this suite starts in a terminal of their own
textual.constants.TEXTUAL_ANIMATIONS = "none"  # type: ignore[misc]  # apps started in-process


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "gpu-tui-data"
    monkeypatch.setenv("GPU_TUI_DATA_DIR", str(data))
    return data


@pytest.fixture(autouse=True)
def no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Text output as a pipe gets it, whoever runs the suite: pytest-xdist's workers inherit
    COLUMNS=80, which the commands would wrap to (a test that wants a width sets it)."""
    monkeypatch.delenv("COLUMNS", raising=False)


SimulatedNvml = Callable[..., SimulatedLibrary]


@pytest.fixture
def simulated_nvml() -> Iterator[SimulatedNvml]:
    """``simulated_nvml(reading="h200", branch=None, add=())``: the real ``pynvml`` over a
    simulated driver holding ``tests/fakes/nvml_readings/<reading>.json`` (and the readings in
    ``add`` merged in) on ``branch`` (left out: the one it was recorded on). Pass
    ``library.binding`` (the ``pynvml`` module) wherever gpu-tui takes an NVML module; the driver
    is taken away at teardown, so a call still hanging in it returns."""
    import pynvml

    installed: list[SimulatedLibrary] = []

    def install(
        reading: str = "h200", branch: str | None = None, *, add: Iterable[str] = ()
    ) -> SimulatedLibrary:
        library = SimulatedLibrary.load(reading, branch)
        for extra in add:
            library.add_readings(extra)
        simulated_driver.install(pynvml, library)
        installed.append(library)
        return library

    yield install
    if installed:
        simulated_driver.uninstall(pynvml)
