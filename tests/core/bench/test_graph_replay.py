"""Short GPU kernels are timed again as a CUDA-graph replay, against a fake CUDA.

The fake keeps a GPU clock: an eager call costs the launch (the host is the bottleneck), a
captured call costs only its kernel. That is the situation the rule "Short kernels as a graph
replay" (gpu_tui/core/bench/__init__.py) is about; the real driver behaviour is unverified here
(no GPU on this machine) and is exercised by scripts/gpu_check.sh.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from gpu_tui.core.bench.peak import PeakTable
from gpu_tui.core.bench.result_text import explain
from gpu_tui.core.bench.results import from_worker
from gpu_tui.core.bench.worker.context import Context
from gpu_tui.core.bench.worker.graphs import MAX_CALLS_PER_GRAPH, calls_per_graph
from gpu_tui.core.bench.worker.protocol import Channel

LAUNCH = 10e-6  # one eager call: the host cannot launch faster than this
KERNEL = 2e-6  # the kernel itself


class FakeCuda:
    """Just enough of ``torch.cuda`` for events, streams and graph capture."""

    def __init__(self) -> None:
        self.now = 0.0  # GPU time, seconds
        self.capturing: FakeGraph | None = None
        cuda = self

        class Event:
            def __init__(self, enable_timing: bool = False) -> None:
                self.at = 0.0

            def record(self) -> None:
                self.at = cuda.now

            def synchronize(self) -> None:
                pass

            def elapsed_time(self, end: Event) -> float:
                return (end.at - self.at) * 1e3

        class Stream:
            def __init__(self, device: str | None = None) -> None:
                pass

            def wait_stream(self, other: Stream) -> None:
                pass

        self.Event, self.Stream, self.CUDAGraph = Event, Stream, FakeGraph.factory(self)

    def current_stream(self, device: str | None = None) -> Any:
        return self.Stream()

    def stream(self, stream: Any) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def graph(self, graph: FakeGraph) -> Iterator[None]:
        self.capturing = graph
        try:
            yield
        finally:
            self.capturing = None

    def synchronize(self, device: str | None = None) -> None:
        pass

    def kernel(self) -> None:
        """A capturable call of ``KERNEL`` seconds that takes ``LAUNCH`` when run eagerly."""
        if self.capturing is not None:
            self.capturing.calls += 1
        else:
            self.now += LAUNCH

    def host_synchronising(self) -> None:
        """A call that waits for the host (``.item()``, a pageable copy): not capturable."""
        if self.capturing is not None:
            raise RuntimeError("operation not permitted when stream is capturing\nmore text")
        self.now += LAUNCH


class FakeGraph:
    calls = 0

    @staticmethod
    def factory(cuda: FakeCuda) -> Callable[[], FakeGraph]:
        def make() -> FakeGraph:
            graph = FakeGraph()
            graph.replay = lambda: setattr(cuda, "now", cuda.now + graph.calls * KERNEL)  # type: ignore[method-assign]
            return graph

        return make

    def replay(self) -> None:
        raise NotImplementedError


class FakeTorch:
    def __init__(self) -> None:
        self.cuda = FakeCuda()


@pytest.fixture
def torch() -> FakeTorch:
    return FakeTorch()


def timed(torch: FakeTorch, fn: Callable[[], object], **kwargs: Any) -> dict[str, Any]:
    ctx = Context(torch, Channel(io.StringIO()), budget=0.01)
    timing, _ = ctx.time("cuda:0", fn, **kwargs)
    return timing.as_dict()


def test_a_launch_bound_kernel_is_timed_as_a_graph_replay_with_the_eager_time_beside(
    torch: FakeTorch,
) -> None:
    figures = timed(torch, torch.cuda.kernel)
    assert figures["method"] == "cuda-graph"
    assert figures["median_seconds"] == pytest.approx(KERNEL)
    assert figures["launch_inclusive_seconds"] == pytest.approx(LAUNCH)
    assert figures["calls_per_graph"] == calls_per_graph(LAUNCH) == 20
    assert figures["graph_skipped"] is None


def test_a_call_that_cannot_be_captured_keeps_its_eager_figure_and_says_why(
    torch: FakeTorch,
) -> None:
    figures = timed(torch, torch.cuda.host_synchronising)
    assert figures["method"] == "cuda-events"
    assert figures["median_seconds"] == pytest.approx(LAUNCH)
    assert figures["launch_inclusive_seconds"] is None
    assert figures["graph_skipped"] == (
        "RuntimeError: operation not permitted when stream is capturing"
    )


def test_long_kernels_and_host_timed_rows_are_left_alone(torch: FakeTorch) -> None:
    def long_kernel() -> None:
        torch.cuda.now += 50e-6

    assert timed(torch, long_kernel)["method"] == "cuda-events"
    assert timed(torch, torch.cuda.kernel, host=True)["method"] == "host-clock"


def test_graph_sizes_aim_at_a_fifth_of_a_millisecond_per_replay() -> None:
    assert calls_per_graph(1e-6) == 200
    assert calls_per_graph(150e-6) == 2
    assert calls_per_graph(0.0) == MAX_CALLS_PER_GRAPH


def test_the_result_keeps_and_explains_both_figures(torch: FakeTorch) -> None:
    message = {
        "benchmark": "reduction",
        "variant": "gpu-resident",
        "device": "cuda:0",
        "dtype": "fp64",
        "params": {"n": 10_000},
        "timing": timed(torch, torch.cuda.kernel),
    }
    result = from_worker(message, PeakTable({}))
    assert result.median_seconds == pytest.approx(KERNEL)
    assert result.launch_inclusive_seconds == pytest.approx(LAUNCH)
    text = "\n".join(explain(result))
    assert "CUDA-graph replay of 20 calls" in text
    assert "launch included, a call takes 10" in text
    assert "first call (cold start) 10" in text  # shown, not folded in (warm-up rule)
