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
