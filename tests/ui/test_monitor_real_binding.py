"""The Monitor over the real nvidia-ml-py binding and a simulated driver: what a job confined to
some of a server's GPUs sees."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pynvml
import pytest

from gpu_tui.ui.app import GpuTuiApp
from gpu_tui.ui.monitor.gpu_card import GpuCard
from tests.fakes import simulated_driver
from tests.polling import until


@pytest.fixture
def confined_job() -> Iterator[simulated_driver.SimulatedLibrary]:
    """Two H200s in the box; this job's cgroup holds only GPU 0."""
    reading = simulated_driver.load_reading("h200")
    second = dict(reading["devices"][0], uuid="GPU-2", pci_bus_id="00000000:04:00.0")
    reading["devices"].append(second)
    library = simulated_driver.SimulatedLibrary(reading, simulated_driver.BRANCHES["r550"])
    library.no_permission.add(1)
    simulated_driver.install(pynvml, library)
    yield library
    simulated_driver.uninstall(pynvml)


async def test_a_gpu_outside_the_job_is_said_so_and_never_lost(
    app_factory: Callable[..., GpuTuiApp], confined_job: simulated_driver.SimulatedLibrary
) -> None:
    app = app_factory(demo=False, pane="monitor", nvml=pynvml)
    async with app.run_test(size=(80, 24)) as pilot:

        def cards() -> list[GpuCard]:
            return [card for card in app.query(GpuCard) if card.gpu is not None]

        await until(pilot, lambda: len(cards()) == 2, "both cards drawn")
        ours, theirs = cards()
        assert ours.state == "live"
        assert theirs.state == "not in this job"
        text = "\n".join(str(row) for row in theirs.build_rows(76, 6))
        assert "not in this job" in text.lower()
        assert "LOST" not in text
        assert theirs.device_name in text  # which GPU it is, even in a compact card


@pytest.mark.parametrize(("branch", "shown"), [("r550", True), ("r470", False)])
async def test_the_driver_reserved_memory_is_shown_apart_from_used(
    app_factory: Callable[..., GpuTuiApp], branch: str, shown: bool
) -> None:
    """nvidia-smi's Used leaves out what the driver reserves; a driver without the _v2 memory
    call counts it as used, and then there is nothing apart to show."""
    reading = simulated_driver.load_reading("h200")
    reading["devices"][0]["memory_used_bytes"] = 3201 << 20
    reading["devices"][0]["memory_reserved_bytes"] = 531 << 20
    library = simulated_driver.SimulatedLibrary(reading, simulated_driver.BRANCHES[branch])
    simulated_driver.install(pynvml, library)
    try:
        app = app_factory(demo=False, pane="monitor", nvml=pynvml)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: any(c.gpu for c in app.query(GpuCard)), "the card drawn")
            card = app.query_one(GpuCard)
            rows = [str(row) for row in card.rows]
            vram = next(row for row in rows if row.startswith("VRAM"))
            used = "3.1" if shown else "3.6"  # 3,201 MiB, or 3,732 with the reserve counted
            assert f" {used}/140.4 GiB" in vram
            assert ("0.5 driver-reserved" in vram) == shown
    finally:
        simulated_driver.uninstall(pynvml)
