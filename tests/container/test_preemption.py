"""Preemption: a render is stopped for a job that would wait for it too long, and run again after it, when the
trade pays and only then; observed by the order the runs start in and the scheduler's count, not by clocks."""

from __future__ import annotations

import asyncio
import threading

import pytest
from scheduler_jobs import queued

from kokoro_server.engine.backend import CancelToken, RenderCancelled
from kokoro_server.scheduler import PlaybackClock, Scheduler

GUARD_S = 30.0  # only so that a broken scheduler fails instead of hanging; no verdict rests on it


class Render:
    """A preemptible job standing for a long render: each run is logged when it starts, then holds the worker
    until its run's token is cancelled (it stops, as the engine does) or ``finish`` is set (it ends)."""

    def __init__(self, name: str, order: list[str]):
        self.name, self.order = name, order
        self.runs = 0
        self.running = threading.Event()
        self.finish = threading.Event()

    def __call__(self, run: CancelToken) -> str:
        self.runs += 1
        self.order.append(self.name if self.runs == 1 else f"{self.name} again")
        self.running.set()
        with run.on_cancel(self.finish.set):
            self.finish.wait(GUARD_S)
        run.check()
        return f"{self.name} done"

    async def started(self) -> None:
        await asyncio.to_thread(self.running.wait, GUARD_S)
        self.running.clear()


def buffered(seconds: float) -> PlaybackClock:
    clock = PlaybackClock()
    clock.played(seconds)
    return clock


async def newcomer_during(clock: PlaybackClock, cost_s: float, newcomer_cost_s: float) -> tuple[list[str], int]:
    """A newcomer queued while a render of ``cost_s`` for ``clock``'s listener holds the one worker: the order the
    runs started in, and how many the scheduler preempted. Preempted, the render is stopped as the newcomer is
    queued; if not, it ends once the newcomer is queued behind it."""
    scheduler, order = Scheduler(workers=1), []
    try:
        render = Render("render", order)
        render_job = asyncio.ensure_future(scheduler.run_preemptible(render, clock, cost_s=cost_s))
        await render.started()
        newcomer = asyncio.ensure_future(
            scheduler.run(lambda: order.append("newcomer"), PlaybackClock(), cost_s=newcomer_cost_s)
        )
        await queued(newcomer)
        render.finish.set()
        assert await render_job == "render done"  # its caller saw one outcome, whichever run gave it
        await newcomer
        return order, scheduler.preempted
    finally:
        scheduler.close()


async def test_a_render_with_seconds_in_hand_is_stopped_for_a_newcomer_and_run_again_after_it():
    assert await newcomer_during(buffered(30.0), 5.0, 0.2) == (["render", "newcomer", "render again"], 1)


async def test_a_first_render_far_from_its_end_is_stopped_for_a_much_shorter_one():
    """A listener with no audio yet loses the newcomer's run and the work thrown away, about nothing here, while
    the newcomer would wait a whole minute."""
    assert await newcomer_during(PlaybackClock(), 60.0, 0.2) == (["render", "newcomer", "render again"], 1)


async def test_a_first_render_is_not_stopped_when_its_listener_would_lose_what_the_newcomer_saves():
    """Its listener has heard nothing: it would end the newcomer's 0.5 s later, plus the work thrown away; the
    newcomer would save at most the 1 s left, no more than that loss and its own run."""
    assert await newcomer_during(PlaybackClock(), 1.0, 0.5) == (["render", "newcomer"], 0)


async def test_a_render_predicted_to_end_before_the_newcomer_is_due_is_not_stopped():
    assert await newcomer_during(buffered(30.0), 0.1, 2.0) == (["render", "newcomer"], 0)


async def test_a_render_is_stopped_once_at_most():
    """The work thrown away is bounded: run again, a preempted render keeps the worker for a later newcomer."""
    scheduler, order = Scheduler(workers=1), []
    try:
        long = Render("long", order)
        long_job = asyncio.ensure_future(scheduler.run_preemptible(long, buffered(60.0), cost_s=5.0))
        await long.started()
        first = asyncio.ensure_future(scheduler.run(lambda: order.append("first"), PlaybackClock(), cost_s=0.2))
        await long.started()
        second = asyncio.ensure_future(scheduler.run(lambda: order.append("second"), PlaybackClock(), cost_s=0.2))
        await queued(second)
        long.finish.set()
        await asyncio.gather(long_job, first, second)
        assert order == ["long", "first", "long again", "second"]
        assert scheduler.preempted == 1
    finally:
        scheduler.close()


async def test_a_preempted_render_whose_caller_cancels_while_it_waits_never_runs_again():
    scheduler, order = Scheduler(workers=1), []
    newcomer_runs, gate = threading.Event(), threading.Event()
    try:
        long = Render("long", order)
        cancel = CancelToken()
        long_job = asyncio.ensure_future(scheduler.run_preemptible(long, buffered(30.0), cancel, cost_s=5.0))
        await long.started()

        def newcomer() -> None:  # holds the worker while the stopped render waits in the queue
            order.append("newcomer")
            newcomer_runs.set()
            gate.wait(GUARD_S)

        hello = asyncio.ensure_future(scheduler.run(newcomer, PlaybackClock(), cost_s=0.2))
        await asyncio.to_thread(newcomer_runs.wait, GUARD_S)
        cancel.cancel()  # the long render's client hangs up while it is queued again
        with pytest.raises(RenderCancelled):
            await long_job
        gate.set()
        await hello
        await scheduler.run(lambda: order.append("after"))  # queued behind it, had it been run again
        assert order == ["long", "newcomer", "after"]
        assert (scheduler.preempted, scheduler.stopped) == (1, 0)  # stopped for the newcomer; then never ran
    finally:
        scheduler.close()
