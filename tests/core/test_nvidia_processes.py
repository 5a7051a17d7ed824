"""GPU processes as nvitop lists them: GPU memory and SM share from NVML (nvidia-ml-py's own
``pynvml`` over the simulated driver), host CPU, memory, start time, user and command line from
the host, each failing soft on its own."""

from __future__ import annotations

import os
from typing import Any

import psutil
import pytest

from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.nvidia_live import NvmlSession
from gpu_tui.core.monitor.host_processes import (
    ENDED,
    FIRST_READING,
    NOT_IN_NAMESPACE,
    OTHER_USER,
    HostProcess,
    HostProcesses,
    Parent,
)
from gpu_tui.core.monitor.samples import GpuProcess
from tests.conftest import SimulatedNvml
from tests.fakes.processes import FakeHostProcess, FakeProcess
from tests.fakes.simulated_driver import SimulatedLibrary

GIB = 1024**3
STARTED = 1_700_000_000.0


def host(pid: int) -> HostProcess:
    """What a host would say: PID 4242 is alice's training run, 777 someone else's."""
    if pid == 777:
        return HostProcess(*(Unknown(OTHER_USER),) * 5)
    return HostProcess("alice", f"python train.py --run {pid}", 250.0, 3 * GIB, STARTED)


def training_node(simulated_nvml: SimulatedNvml) -> SimulatedLibrary:
    library = simulated_nvml("h200")
    library.set_processes(
        0,
        compute=[
            {"pid": 4242, "used_memory_bytes": 60 * GIB, "sm_percent": 87},
            {"pid": 777, "used_memory_bytes": 2 * GIB, "sm_percent": 3},
            {"pid": 555, "used_memory_bytes": 1 * GIB},  # listed, but no kernel ran since
        ],
        graphics=[],
    )
    return library


def processes(session: NvmlSession) -> dict[int, GpuProcess]:
    listed = session.sample(0).processes
    assert not isinstance(listed, Unknown)
    return {process.pid: process for process in listed}


def test_each_process_has_its_gpu_memory_sm_share_and_host_readings(
    simulated_nvml: SimulatedNvml,
) -> None:
    session = NvmlSession.open(training_node(simulated_nvml).binding, process_lookup=host)
    by_pid = processes(session)
    run = by_pid[4242]
    assert run.used_memory_bytes == 60 * GIB
    assert run.sm_percent == 87.0
    assert run.user == "alice"
    assert run.command == "python train.py --run 4242"
    assert run.cpu_percent == 250.0  # two and a half cores
    assert run.host_memory_bytes == 3 * GIB
    assert run.started == STARTED
    assert by_pid[777].sm_percent == 3.0
    assert by_pid[777].cpu_percent == Unknown(OTHER_USER)
    assert by_pid[555].sm_percent == 0.0  # no sample since the last ask: no kernel ran


def test_sm_shares_are_asked_for_since_the_newest_sample_seen(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = training_node(simulated_nvml)
    # The driver stamps samples in µs since the epoch; here its clock ticks a second per ask.
    clock = iter(range(1_700_000_001_000_000, 1_800_000_000_000_000, 1_000_000))
    library.sample_clock = lambda: next(clock)
    session = NvmlSession.open(library.binding, process_lookup=host)
    processes(session)
    processes(session)
    first, second = library.utilization_asked
    assert first == 0  # everything the driver keeps, the first time
    assert second == 1_700_000_001_000_000  # the newest of the first answer


def test_no_samples_since_means_nothing_ran(simulated_nvml: SimulatedNvml) -> None:
    library = training_node(simulated_nvml)
    library.set_processes(0, compute=[{"pid": 4242, "used_memory_bytes": GIB}])  # no samples
    session = NvmlSession.open(library.binding, process_lookup=host)
    assert processes(session)[4242].sm_percent == 0.0


def test_a_share_over_100_is_dropped_and_the_newest_sample_counts(
    simulated_nvml: SimulatedNvml,
) -> None:
    library = training_node(simulated_nvml)
    library.set_processes(0, compute=[{"pid": 4242, "used_memory_bytes": GIB, "sm_percent": 180}])
    session = NvmlSession.open(library.binding, process_lookup=host)
    assert processes(session)[4242].sm_percent == 0.0


@pytest.mark.parametrize(
    ("fault", "reason"), [("NotSupported", "not supported"), ("NoPermission", "permission")]
)
def test_sm_shares_fail_soft_while_the_rest_stays(
    simulated_nvml: SimulatedNvml, fault: str, reason: str
) -> None:
    library = training_node(simulated_nvml)
    library.fail(0, "nvmlDeviceGetProcessUtilization", fault)
    run = processes(NvmlSession.open(library.binding, process_lookup=host))[4242]
    assert isinstance(run.sm_percent, Unknown)
    assert reason in run.sm_percent.reason.lower()
    assert run.used_memory_bytes == 60 * GIB
    assert run.cpu_percent == 250.0


def test_a_lookup_of_user_and_command_only_leaves_the_rest_unread(
    simulated_nvml: SimulatedNvml,
) -> None:
    def names(pid: int) -> tuple[str, str]:
        return "bob", "python eval.py"

    session = NvmlSession.open(training_node(simulated_nvml).binding, process_lookup=names)
    run = processes(session)[4242]
    assert (run.user, run.command) == ("bob", "python eval.py")
    assert isinstance(run.cpu_percent, Unknown)
    assert isinstance(run.started, Unknown)


# ---- the host side, through psutil ----------------------------------------------------------
@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch) -> dict[int, FakeHostProcess]:
    """The host's processes, as psutil sees them."""
    processes = {
        4242: FakeHostProcess(cmdline=["python", "train.py", "--lr", "3e-4"], created=STARTED),
        2: FakeHostProcess(cmdline=[]),  # a kernel thread: no command line
        777: FakeHostProcess(hidden="AccessDenied"),
    }
    monkeypatch.setattr(FakeProcess, "table", processes)
    monkeypatch.setattr(psutil, "Process", FakeProcess)
    return processes


def test_host_cpu_is_the_cpu_time_used_between_two_readings(
    table: dict[int, FakeHostProcess],
) -> None:
    now = [100.0]
    reader = HostProcesses(clock=lambda: now[0])
    first = reader(4242)
    assert first.user == "alice"
    assert first.command == "python train.py --lr 3e-4"
    assert first.memory_bytes == 5 * GIB
    assert first.started == STARTED
    assert first.cpu_percent == Unknown(FIRST_READING)
    table[4242].cpu_seconds += 3.0  # three CPU seconds in two wall seconds
    now[0] += 2.0
    assert reader(4242).cpu_percent == pytest.approx(150.0)
    table[4242].cpu_seconds += 5.0
    assert reader(4242).cpu_percent == pytest.approx(150.0)  # the same tick: read once
    assert reader(2).command == "[kworker]"  # no command line (a kernel thread): its name


@pytest.mark.usefixtures("table")
def test_hidden_and_other_users_processes_say_why() -> None:
    reader = HostProcesses()
    assert reader(31337) == HostProcess(*(Unknown(NOT_IN_NAMESPACE),) * 5)
    assert reader(777) == HostProcess(*(Unknown(OTHER_USER),) * 5)


def test_a_reused_pid_starts_over(table: dict[int, FakeHostProcess]) -> None:
    now = [100.0]
    reader = HostProcesses(clock=lambda: now[0])
    reader(4242)
    now[0] += 1.0
    table[4242].created = STARTED + 60  # another process got the PID
    again = reader(4242)
    assert again.started == STARTED + 60
    assert again.cpu_percent == Unknown(FIRST_READING)


def test_an_ended_process_keeps_what_was_read(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    reader = HostProcesses(clock=lambda: now[0])
    me = reader(os.getpid())  # this test's own process, through the real psutil
    assert me.user == psutil.Process().username()
    assert "pytest" in str(me.command) or "python" in str(me.command)
    assert isinstance(me.memory_bytes, int)
    assert me.memory_bytes > 0

    def gone(self: Any) -> None:
        raise psutil.NoSuchProcess(os.getpid())

    monkeypatch.setattr(psutil.Process, "oneshot", gone)
    now[0] += 1.0
    after = reader(os.getpid())
    assert after.cpu_percent == Unknown(ENDED)
    assert after.user == me.user


def test_a_process_s_host_parents_are_read_once_outermost_first(
    table: dict[int, FakeHostProcess],
) -> None:
    table[100] = FakeHostProcess(cmdline=["-bash"])
    table[200] = FakeHostProcess(cmdline=["torchrun", "train.py"], parent=100)
    table[300] = FakeHostProcess(cmdline=["python", "train.py"], parent=200)
    table[400] = FakeHostProcess(cmdline=["python", "eval.py"], parent=777)  # another user's
    reader = HostProcesses()
    assert reader(300).parents == (Parent(100, "-bash"), Parent(200, "torchrun train.py"))
    del table[100]  # gone since: the chain was read with the process, and is kept
    assert [p.pid for p in reader(300).parents] == [100, 200]
    assert reader(400).parents == ()  # the parent may not be read: the chain stops there
    assert reader(4242).parents == ()  # init's child
