"""The timelines the animation draws: every task once, no cook double-booked, exact end times."""

from __future__ import annotations

from bisect import bisect_right
from fractions import Fraction
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_tui.core.kitchen import model
from gpu_tui.core.kitchen.conveyor import ConveyorTimeline, CookCounts, TaskSpan
from gpu_tui.core.kitchen.params import KitchenParams, Phase
from gpu_tui.core.kitchen.scenarios import SCENARIOS
from gpu_tui.core.kitchen.timeline import BrigadeTimeline, ChefTimeline, split_tasks
from tests.core.kitchen.brute import simulate_conveyor

FAST = settings(max_examples=200, deadline=None)
time_st = st.fractions(min_value=0, max_value=10, max_denominator=8)
positive_st = st.fractions(min_value=Fraction(1, 8), max_value=10, max_denominator=8)
conveyor_st = st.tuples(st.integers(0, 90), st.integers(1, 70), positive_st, time_st, time_st)


def cook_state(spans: list[TaskSpan], t: Fraction) -> str:
    """What one cook does at t (after the briefing), straight from its task list."""
    if any(s.start <= t < s.end for s in spans):
        return "cooking"
    if all(s.end <= t for s in spans):
        return "finished"
    return "waiting"


def brute_states(
    by_cook: list[list[TaskSpan]], launch: Fraction, t: Fraction, tasks: int
) -> list[str]:
    # The whole brigade listens to the briefing, even cooks that will get no task; a kitchen
    # with no tasks at all (more kitchens than tasks) has no briefing and stands finished.
    if t < launch and tasks:
        return ["briefing"] * len(by_cook)
    return [cook_state(spans, t) for spans in by_cook]


def tally(states: list[str]) -> CookCounts:
    return CookCounts(
        len(states), *(states.count(k) for k in ("briefing", "cooking", "waiting", "finished"))
    )


@FAST
@given(conveyor_st)
def test_every_task_once_no_cook_double_booked_end_is_the_formula(args: tuple) -> None:  # type: ignore[type-arg]
    w, n, d, c, launch = args
    line = ConveyorTimeline(w, n, d, c, launch)
    spans = [line.task(j) for j in range(w)]
    assert line.end == model.conveyor_seconds(w, n, d, c, launch)
    assert sorted(j for cook in range(n) for j in line.tasks_of_cook(cook)) == list(range(w))
    for cook in range(n):
        mine = [spans[j] for j in line.tasks_of_cook(cook)]
        assert all(s.cook == cook for s in mine)
        for before, after in pairwise(mine):
            assert before.end <= after.start
            assert after.ready == before.end
    for s in spans:
        assert s.end - s.start == d
        assert s.start >= s.arrives == launch + (s.index + 1) * c
        assert s.start >= s.ready >= launch
        assert s.pantry_wait >= 0
        assert s.start == max(s.arrives, s.ready)  # nobody idles with ingredients on the counter
    simulated = simulate_conveyor(w, n, d, c, launch)
    assert sorted((s.start, s.end) for s in spans) == sorted((s.start, s.end) for s in simulated)


@FAST
@given(conveyor_st, st.integers(1, 40))
def test_state_at_agrees_with_the_task_list(args: tuple, squad: int) -> None:  # type: ignore[type-arg]
    w, n, d, c, launch = args
    line = ConveyorTimeline(w, n, d, c, launch)
    spans = [line.task(j) for j in range(w)]
    by_cook = [[spans[j] for j in line.tasks_of_cook(i)] for i in range(n)]
    # Sorted, so that how many happened by t is one bisect rather than a count of all w tasks.
    starts, ends = sorted(s.start for s in spans), sorted(s.end for s in spans)
    arrivals = sorted(s.arrives for s in spans)
    events = sorted({Fraction(0), launch} | {x for s in spans for x in (s.arrives, s.start, s.end)})
    # One probe inside every stretch between events (state is constant there), one after the end.
    probes = [(a + b) / 2 for a, b in pairwise(events)] + [events[-1] + 1]
    assert len(probes) == len(events), "every stretch between events must be probed"
    for t in probes:
        state = line.state_at(float(t))
        assert state.started == bisect_right(starts, t)
        assert state.done == bisect_right(ends, t)
        assert state.delivered == (bisect_right(arrivals, t) if t >= launch else 0)
        states = brute_states(by_cook, launch, t, w)  # each cook's state, worked out once
        assert state.counts == tally(states)
        squads = line.squads_at(float(t), size=squad)
        assert squads == [tally(states[i : i + squad]) for i in range(0, n, squad)]
        assert sum(q.cooking for q in squads) == state.counts.cooking
        assert sum(q.cooks for q in squads) == n


def test_squad_window_is_a_slice_of_all_squads() -> None:
    line = ConveyorTimeline(5000, 1000, Fraction(3), Fraction(1, 100), Fraction(2))
    # 1000 cooks in squads of 32: squads 7-11 lie inside, so the slices compared are not empty.
    assert len(line.squads_at(0.0)) == -(-1000 // 32) >= 12
    for t in (0.0, 2.5, 10.0, 31.7, 100.0):
        assert line.squads_at(t, first=7, count=5) == line.squads_at(t)[7:12]
        assert line.counts(t, 7 * 32, 5 * 32) == CookCounts(
            160, *(sum(getattr(q, k) for q in line.squads_at(t)[7:12])
                   for k in ("briefing", "cooking", "waiting", "finished"))
        )  # fmt: skip


def test_task_index_out_of_range() -> None:
    with pytest.raises(IndexError):
        ConveyorTimeline(3, 2, Fraction(1), Fraction(0), Fraction(0)).task(3)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_timelines_end_at_the_model_times(name: str) -> None:
    params = SCENARIOS[name].params
    brigade, chef = BrigadeTimeline(params), ChefTimeline(params)
    assert brigade.end == model.brigade_seconds(params)
    assert chef.end == model.chef_seconds(params)
    check_monotone(brigade, chef)


def check_monotone(brigade: BrigadeTimeline, chef: ChefTimeline) -> None:
    end = float(max(brigade.end, chef.end))
    previous_b = previous_c = -1
    for i in range(301):
        t = end * i / 300
        b, c = brigade.state_at(t), chef.state_at(t)
        assert previous_b <= b.tasks_done <= b.tasks_total
        assert previous_c <= c.tasks_done <= c.tasks_total
        previous_b, previous_c = b.tasks_done, c.tasks_done
        assert b.finished == (t >= float(brigade.end))
        assert c.finished == (t >= float(chef.end))
    assert brigade.state_at(end).progress == chef.state_at(end).progress == 1


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 40), positive_st, time_st), min_size=1, max_size=4),
    st.integers(1, 12),
    st.integers(1, 6),
    st.integers(1, 3),
    positive_st,
)
def test_brigade_timeline_with_kitchens_rounds_and_hallway(
    phases: list[tuple[int, Fraction, Fraction]], n: int, k: int, rounds: int, rate: Fraction
) -> None:
    params = KitchenParams(
        phases=tuple(Phase(*p) for p in phases),
        cooks=n,
        slowdown=Fraction(3),
        launch_seconds=Fraction(1, 2),
        pantry_rate=rate,
        chef_pantry_rate=Fraction(1),
        kitchens=k,
        hallway_latency_seconds=Fraction(1, 4),
        hallway_rate=Fraction(2),
        sync_units=Fraction(3),
        rounds=rounds,
    )
    brigade = BrigadeTimeline(params)
    assert brigade.end == model.brigade_seconds(params)
    for i, phase in enumerate(params.phases):
        assert sum(split_tasks(phase.tasks, k, j) for j in range(k)) == phase.tasks
        slowest = max(brigade.conveyor(i, j).end for j in range(k))
        assert slowest == model.brigade_phase_seconds(params, phase, k)
    check_monotone(brigade, ChefTimeline(params))
    # In the hallway every cook waits for the stock pot.
    hallway = [s for s in brigade.segments if s.kind == "hallway"]
    assert len(hallway) == (1 if k > 1 else 0)
    if hallway and hallway[0].end > hallway[0].start:
        t = float((hallway[0].start + hallway[0].end) / 2)
        state = brigade.state_at(t)
        assert state.kitchens == ()
        assert state.tasks_done == brigade.tasks_per_round
        assert all(q.finished == q.cooks for q in brigade.squads_at(t))


def test_briefing_is_visible_at_the_start() -> None:
    brigade = BrigadeTimeline(SCENARIOS["onions"].params)
    state = brigade.state_at(1.0)  # inside the 5 s briefing
    assert state.kitchens[0].briefing
    assert all(q.briefing == q.cooks for q in brigade.squads_at(1.0))
    assert brigade.state_at(14.0).kitchens[0].counts.cooking == 10_000
    assert brigade.state_at(16.0).kitchens[0].counts.finished == 2000  # onions 1…2000 done


def test_pantry_bound_cooks_mostly_wait() -> None:
    brigade = BrigadeTimeline(SCENARIOS["pantry-bound"].params)
    counts = brigade.state_at(40.0).kitchens[0].counts
    assert counts.waiting > 50 * counts.cooking > 0
