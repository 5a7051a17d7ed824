"""The Fleet pane's Poller: due when idle and the wait is over; after failures it waits 5, 10,
20, 40, then 60 s at most; an answer resets the count."""

from __future__ import annotations

from gpu_tui.core.fleet.poller import Poller


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_due_at_once_then_not_while_in_flight() -> None:
    poller = Poller(5.0, 60.0, clock=Clock())
    assert poller.due()
    poller.start()
    assert not poller.due()
    poller.stop()
    assert poller.due()


def test_failures_in_a_row_double_the_wait_up_to_the_limit() -> None:
    clock = Clock()
    poller = Poller(5.0, 60.0, clock=clock)
    waits = []
    for _ in range(6):
        poller.start()
        waits.append(poller.failed())
    assert waits == [5.0, 10.0, 20.0, 40.0, 60.0, 60.0]
    assert poller.next_at == 160.0
    clock.now = 159.9
    assert not poller.due()
    clock.now = 160.0
    assert poller.due()


def test_an_answer_resets_the_failures_and_sets_the_next_question() -> None:
    clock = Clock()
    poller = Poller(5.0, 60.0, clock=clock)
    poller.start()
    poller.failed()
    poller.start()
    poller.answered(25.0)
    assert (poller.in_flight, poller.failures, poller.next_at) == (False, 0, 125.0)
    assert poller.failed() == 5.0
    poller.ask_now()
    assert poller.due()
