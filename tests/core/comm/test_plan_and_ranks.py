"""The comm plan, torchrun's arguments, and the sentence that names a failed rank."""

from __future__ import annotations

import signal

import pytest

from gpu_tui.core.comm.plan import Launch, build_comm_plan, point_count
from gpu_tui.core.comm.ranks import RankWatch, point_labels
from gpu_tui.core.errors import UsageError
from gpu_tui.core.units import format_bytes_exact


def test_single_node_listens_on_loopback_only() -> None:
    args = Launch(nproc=2).torchrun_args()
    assert "--rdzv-endpoint=127.0.0.1:0" in args
    assert "--nnodes=1" in args
    assert "--nproc-per-node=2" in args
    plan = build_comm_plan(Launch(nproc=2))
    assert plan["comm"]["loopback"] is True
    assert plan["comm"]["backend"] == "gloo"


def test_many_nodes_pass_through_as_torchrun_takes_them() -> None:
    launch = Launch(nproc=8, nnodes=2, node_rank=1, rdzv_endpoint="head:29500")
    args = launch.torchrun_args()
    assert {"--nnodes=2", "--node-rank=1", "--rdzv-endpoint=head:29500"} <= set(args)
    plan = build_comm_plan(launch, device="cuda")
    assert plan["comm"]["loopback"] is False
    assert plan["comm"]["backend"] == "nccl"


@pytest.mark.parametrize(
    ("launch", "device", "message"),
    [
        (Launch(nproc=1), "cpu", "at least 2"),
        (Launch(nproc=2, nnodes=2), "cpu", "needs --rdzv-endpoint"),
        (Launch(nproc=2, nnodes=2, rdzv_endpoint="h:1", node_rank=2), "cpu", "--node-rank"),
        (Launch(nproc=2, rdzv_endpoint="nohost"), "cpu", "HOST:PORT"),
        (Launch(nproc=2), "mps", "runs on cpu"),
    ],
)
def test_bad_launches(launch: Launch, device: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        build_comm_plan(launch, device=device)


def test_plan_points_and_defaults() -> None:
    plan = build_comm_plan(Launch(nproc=2), operations=["all_reduce"], dtypes=["fp32", "bf16"])
    # the second dtype runs at one mid size on the CPU (software bf16 sums are slow)
    assert plan["comm"]["dtypes"]["bf16"] == [1 << 20]
    assert point_count(plan) == len(plan["comm"]["dtypes"]["fp32"]) + 1
    assert max(plan["comm"]["dtypes"]["fp32"]) == 64 << 20
    with pytest.raises(UsageError, match="no operation"):
        build_comm_plan(Launch(nproc=2), operations=["reduce"])


def test_labels() -> None:
    comm = {"operations": ["all_reduce"], "dtypes": {"fp32": [8, 1024, 3 << 20]}}
    assert point_labels(comm) == [
        "all_reduce fp32 8 B",
        "all_reduce fp32 1 KiB",
        "all_reduce fp32 3 MiB",
    ]
    assert format_bytes_exact(1 << 30) == "1 GiB"


def _watch() -> RankWatch:
    watch = RankWatch(["a", "b", "c"], world=4)
    for rank in range(4):
        watch.take({"type": "rank", "rank": rank, "point": 1})
    return watch


def test_a_rank_killed_by_a_signal_is_named_not_the_ones_torchrun_ended() -> None:
    watch = _watch()
    watch.take({"type": "rank_failed", "rank": 0, "kind": "peer", "message": "Connection closed"})
    watch.take(
        {
            "type": "ranks_failed",
            "failures": [
                {"rank": 0, "exitcode": -int(signal.SIGTERM)},
                {"rank": 2, "exitcode": -int(signal.SIGKILL)},
            ],
        }
    )
    story = watch.story()
    assert story is not None
    assert story.startswith("rank 2 died (SIGKILL")
    assert "during b" in story


def test_a_rank_that_ran_out_of_memory_comes_first() -> None:
    watch = _watch()
    watch.take({"type": "rank_failed", "rank": 0, "kind": "peer", "message": "timed out"})
    watch.take({"type": "rank_failed", "rank": 3, "kind": "oom", "message": "CUDA out of memory"})
    assert watch.story() == "rank 3 ran out of memory during b (CUDA out of memory)"


def test_a_hung_rank_is_the_one_left_behind() -> None:
    watch = _watch()
    watch.take({"type": "rank", "rank": 0, "point": 2})
    watch.take({"type": "rank", "rank": 2, "point": 2})
    watch.take({"type": "rank", "rank": 3, "point": 2})
    assert watch.laggards() == [1]
    story = watch.story(5)
    assert story is not None
    assert story.startswith("rank 1 stopped responding during b")
    assert "waited for 5 s" in story


def test_a_hung_rank_is_the_silent_one_when_the_others_timed_out() -> None:
    watch = _watch()
    for rank in (0, 2, 3):
        watch.take({"type": "rank_failed", "rank": rank, "kind": "peer", "message": "timed out"})
    watch.take({"type": "ranks_failed", "failures": [{"rank": 1, "exitcode": -15}]})
    assert watch.laggards() == [1]
    assert (watch.story() or "").startswith("rank 1 stopped responding")


def test_a_rank_that_never_started() -> None:
    watch = RankWatch(["a"], world=2)
    watch.take({"type": "rank", "rank": 0, "point": 0})
    assert watch.laggards() == [1]
    assert watch.take({"type": "result"}) is False
    assert RankWatch(["a"]).story() is None


def test_gloo_aborting_the_survivor_does_not_hide_the_killed_rank() -> None:
    watch = _watch()
    watch.take(
        {
            "type": "ranks_failed",
            "failures": [
                {"rank": 0, "exitcode": -int(signal.SIGABRT)},
                {"rank": 1, "exitcode": -int(signal.SIGKILL)},
            ],
        }
    )
    assert (watch.story() or "").startswith("rank 1 died (SIGKILL")


def test_the_rank_torchrun_had_to_end_is_the_hung_one() -> None:
    watch = _watch()  # every rank reached the same point: nothing to tell them apart there
    watch.take(
        {
            "type": "ranks_failed",
            "failures": [
                {"rank": 0, "exitcode": -int(signal.SIGABRT)},
                {"rank": 1, "exitcode": -int(signal.SIGTERM)},
                {"rank": 2, "exitcode": 1},
            ],
        }
    )
    assert (watch.story(3) or "").startswith("rank 1 stopped responding during b")


def test_an_operation_may_be_named_as_prose_writes_it() -> None:
    plan = build_comm_plan(Launch(nproc=2), operations=["all-reduce", "send_recv"])
    assert plan["comm"]["operations"] == ["all_reduce", "send_recv"]
