"""Holding a scheduler's workers and queueing jobs behind them, observed rather than timed: a worker is known to
be busy when the job holding it has started, and a job task has queued its job after one turn of the event loop
(it queues in its first step, before its first await), so every order a test asserts is the scheduler's."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from kokoro_server.scheduler import Scheduler


async def occupy(scheduler: Scheduler, gate: threading.Event) -> asyncio.Future:
    """A job that holds the scheduler's one worker until ``gate`` is set; returned once the worker runs it."""
    running = threading.Event()

    def hold() -> None:
        running.set()
        gate.wait()

    blocker = asyncio.ensure_future(scheduler.run(hold))
    await asyncio.to_thread(running.wait)
    return blocker


@asynccontextmanager
async def held(scheduler: Scheduler) -> AsyncIterator[None]:
    """The only worker held while the block queues its jobs; let go at the block's end."""
    gate = threading.Event()
    blocker = await occupy(scheduler, gate)
    try:
        yield
    finally:
        gate.set()
        await blocker


async def queued(*jobs: asyncio.Future) -> None:
    """Let newly made job tasks reach the scheduler: each queues its job in its first step, before it awaits."""
    await asyncio.sleep(0)
    assert not any(job.done() for job in jobs)
