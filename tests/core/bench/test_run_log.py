"""RunLog: a bench run's messages folded into its state, each handed to exactly one hook."""

from __future__ import annotations

import typing

import pytest

from gpu_tui.core.bench import messages as m
from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.results import BenchResult
from gpu_tui.core.bench.run_log import RunHooks, RunLog
from gpu_tui.core.bench.telemetry import Reading


def _result(benchmark: str, seconds: float) -> BenchResult:
    return BenchResult(
        benchmark, "torch", "cpu", "fp32", {"n": 1}, *(seconds,) * 3, 5, 1.0, "x", None
    )


DOCUMENT = RunDocument("quick", 0.25, "2025-01-01T00:00:00+0000")
GEMM, REDUCTION = _result("gemm", 1e-3), _result("reduction", 2e-6)
ONE_OF_EACH: list[m.Message] = [
    m.Status("loading PyTorch"),
    m.EnvironmentReady({"devices": [{"device": "cpu"}]}),
    m.Progress(0, 2, "gemm", "cpu"),
    m.Heartbeat("gemm 1024", 1.7),
    m.Telemetry({"gpu0": Reading(0.0, sm_clock_mhz=1980)}),
    m.ResultReady(GEMM),
    m.RunWarning("the clocks ramped late", "the first rows are slower"),
    m.Skipped("numpy", "cpu", "numpy is not installed"),
    m.BenchError("oom", "out of memory", "gemm", "cpu"),
    m.SaveFailed("disk full", store=True),
    m.Finished("completed", DOCUMENT),
]


class Recorder(RunHooks):
    """Names each hook called, with how many results the log held by then."""

    def __init__(self) -> None:
        self.log = RunLog(self)
        self.calls: list[tuple[str, object, int]] = []

    def __getattribute__(self, name: str) -> typing.Any:
        if not name.startswith("got_"):
            return super().__getattribute__(name)
        return lambda event: self.calls.append((name, event, len(self.log.results)))


def test_each_message_reaches_one_hook_named_for_its_kind_in_order() -> None:
    recorder = Recorder()
    for event in ONE_OF_EACH:
        recorder.log.apply(event)
    assert [(name, event) for name, event, _ in recorder.calls] == list(
        zip(
            [
                "got_status",
                "got_environment",
                "got_step",
                "got_heartbeat",
                "got_telemetry",
                "got_result",
                "got_warning",
                "got_skip",
                "got_error",
                "got_save_failed",
                "got_finished",
            ],
            ONE_OF_EACH,
            strict=True,
        )
    )
    # a hook runs once the log has taken its message in: the result is already counted
    assert [count for name, _, count in recorder.calls if name == "got_result"] == [1]


def test_every_kind_of_message_has_a_case() -> None:
    kinds = {type(event) for event in ONE_OF_EACH}
    assert kinds == set(typing.get_args(m.Message))


def test_the_state_is_every_result_skip_and_error_and_the_latest_of_the_rest() -> None:
    log = RunLog()
    second_warning = m.RunWarning("other processes are busy")
    for event in [*ONE_OF_EACH[:-1], m.Progress(1, 2, "reduction", "cpu"), second_warning]:
        log.apply(event)
    log.apply(m.ResultReady(REDUCTION))
    assert log.results == [GEMM, REDUCTION]
    assert log.skipped == [m.Skipped("numpy", "cpu", "numpy is not installed")]
    assert log.errors == [m.BenchError("oom", "out of memory", "gemm", "cpu")]
    assert log.warning == second_warning
    assert log.step == m.Progress(1, 2, "reduction", "cpu")
    assert log.environment == {"devices": [{"device": "cpu"}]}
    assert log.telemetry == m.Telemetry({"gpu0": Reading(0.0, sm_clock_mhz=1980)})
    assert log.save_failed == m.SaveFailed("disk full", store=True)
    assert log.finished is None
    log.apply(m.Finished("cancelled", DOCUMENT))
    assert log.finished == m.Finished("cancelled", DOCUMENT)


@pytest.mark.parametrize(
    ("events", "label", "fraction"),
    [
        ([], "starting", 0.0),
        ([m.Status("loading PyTorch")], "loading PyTorch", 0.0),
        ([m.Heartbeat("gemm 1024", 0.25)], "gemm 1024", 0.25),
        ([m.Heartbeat("gemm 1024", 1.7)], "gemm 1024", 1.0),
        ([m.Heartbeat("gemm 1024", -0.2)], "gemm 1024", 0.0),
        # a new step starts its measurement afresh but keeps saying what was last said
        ([m.Heartbeat("gemm 1024", 0.5), m.Progress(1, 2, "reduction", "cpu")], "gemm 1024", 0.0),
        ([m.Heartbeat("gemm 1024", 0.5), m.Status("stopping")], "stopping", 0.5),
    ],
)
def test_the_label_is_the_latest_phase_or_measurement_and_the_fraction_stays_in_0_1(
    events: list[m.Message], label: str, fraction: float
) -> None:
    log = RunLog(label="starting")
    for event in events:
        log.apply(event)
    assert (log.label, log.fraction) == (label, fraction)
