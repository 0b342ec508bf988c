"""The scheduler: earliest deadline first across sessions, cancellation, errors handed back."""

from __future__ import annotations

import asyncio
import threading

import pytest
from scheduler_jobs import occupy, queued

from kokoro_server.scheduler import PlaybackClock, Scheduler


async def test_new_sessions_first_piece_runs_before_buffered_sessions_work():
    scheduler = Scheduler(workers=1)
    gate, order = threading.Event(), []
    try:
        blocker = await occupy(scheduler, gate)  # the worker is now busy
        buffered = PlaybackClock()
        buffered.played(30.0)  # 30 s of audio ahead of its listener
        starving = PlaybackClock()
        starving.played(0.0)
        later = asyncio.ensure_future(scheduler.run(lambda: order.append("buffered"), buffered))
        first = asyncio.ensure_future(scheduler.run(lambda: order.append("new session"), PlaybackClock()))
        await queued(later, first)
        gate.set()
        await asyncio.gather(blocker, later, first)
        assert order == ["new session", "buffered"]
    finally:
        scheduler.close()


async def test_among_sessions_with_no_audio_yet_a_short_first_piece_goes_before_a_long_one_queued_earlier():
    """ "Hello." arriving while another listener's long first chunk waits: it is due when it would end if run at
    once, so it runs first; the long one, held by a render as short as it, is not starved."""
    scheduler = Scheduler(workers=1)
    gate, order = threading.Event(), []
    try:
        blocker = await occupy(scheduler, gate)
        long = asyncio.ensure_future(scheduler.run(lambda: order.append("long"), PlaybackClock(), cost_s=6.0))
        await queued(long)
        short = asyncio.ensure_future(scheduler.run(lambda: order.append("short"), PlaybackClock(), cost_s=0.2))
        late = asyncio.ensure_future(scheduler.run(lambda: order.append("after the long"), None, cost_s=60.0))
        await queued(short, late)
        gate.set()
        await asyncio.gather(blocker, long, short, late)
        assert order == ["short", "long", "after the long"]
    finally:
        scheduler.close()


async def test_a_listener_about_to_run_dry_goes_before_a_newcomer_whose_first_piece_would_end_later():
    scheduler = Scheduler(workers=1)
    gate, order = threading.Event(), []
    try:
        blocker = await occupy(scheduler, gate)
        playing = PlaybackClock()
        playing.played(1.0)  # runs dry in a second
        newcomer = asyncio.ensure_future(scheduler.run(lambda: order.append("newcomer"), PlaybackClock(), cost_s=30.0))
        await queued(newcomer)
        running_dry = asyncio.ensure_future(scheduler.run(lambda: order.append("running dry"), playing, cost_s=30.0))
        await queued(running_dry)
        gate.set()
        await asyncio.gather(blocker, newcomer, running_dry)
        assert order == ["running dry", "newcomer"]  # with the newcomer due on arrival, the reverse
    finally:
        scheduler.close()


async def test_cancelled_queued_job_never_runs_and_errors_propagate():
    scheduler = Scheduler(workers=1)
    gate, ran = threading.Event(), []
    try:
        blocker = await occupy(scheduler, gate)
        doomed = asyncio.ensure_future(scheduler.run(lambda: ran.append(1)))
        await queued(doomed)
        doomed.cancel()
        gate.set()
        await blocker
        with pytest.raises(ZeroDivisionError):
            await scheduler.run(lambda: 1 / 0)
        assert await scheduler.run(lambda: 42) == 42
        assert ran == []
    finally:
        scheduler.close()


def test_workers_must_be_positive():
    with pytest.raises(ValueError):
        Scheduler(workers=0)
