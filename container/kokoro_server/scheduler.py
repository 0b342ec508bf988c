"""Runs engine work for every session on a few worker threads, the most urgent listener first.

Why not one thread per request: on a CPU (and largely on one GPU) concurrent inferences only slow each
other down, so the model gets a fixed number of workers (``--workers``, default 1, with the backend using
all cores inside each call). Why a priority queue: with FIFO, a session's first sentence waits behind
other sessions' long paragraphs. Each job carries its session's *deadline*: the moment that session's
listener runs out of audio if it plays everything from the first byte in real time. A session that has not
produced audio yet has its arrival time as deadline, so a new session's first piece runs before any
session that already has audio buffered ahead (first-piece priority), and a session about to starve runs
before one with seconds in hand (earliest deadline first).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


class PlaybackClock:
    """Tracks how far ahead of its listener a session's audio is."""

    def __init__(self) -> None:
        self.first_audio_at: float | None = None
        self.audio_s = 0.0

    def deadline(self) -> float:
        now = time.monotonic()
        if self.first_audio_at is None:
            return now
        return self.first_audio_at + self.audio_s

    def played(self, seconds: float) -> None:
        if self.first_audio_at is None:
            self.first_audio_at = time.monotonic()
        self.audio_s += seconds


@dataclass(order=True)
class _Job:
    deadline: float
    seq: int
    fn: Callable[[], Any] = field(compare=False)
    future: asyncio.Future = field(compare=False)
    loop: asyncio.AbstractEventLoop = field(compare=False)


def _settle(future: asyncio.Future, result: Any, error: BaseException | None) -> None:
    if future.done():  # cancelled while running: the result is dropped
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class Scheduler:
    """Earliest-deadline-first queue in front of ``workers`` threads; owned by the app's lifespan."""

    def __init__(self, workers: int = 1, name: str = "synth"):
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self._queue: queue.PriorityQueue[_Job | tuple[float, int, None]] = queue.PriorityQueue()
        self._seq = itertools.count()
        self._threads = [threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True) for i in range(workers)]
        for thread in self._threads:
            thread.start()

    async def run(self, fn: Callable[[], T], clock: PlaybackClock | None = None) -> T:
        """Run blocking ``fn`` on a worker, ordered by ``clock``'s deadline; cancellable while queued."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()
        deadline = clock.deadline() if clock else time.monotonic()
        self._queue.put(_Job(deadline, next(self._seq), fn, future, loop))
        return await future

    def close(self, wait_s: float = 1.0) -> None:
        """Cancel every queued job, stop the workers, and wait at most ``wait_s`` for a running call.

        The threads are daemons, so a model call still running (it cannot be interrupted) does not hold
        the process: SageMaker stops a container with SIGTERM and expects it gone within seconds.
        """
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(job, _Job):
                with contextlib.suppress(RuntimeError):  # the loop may already be closed
                    job.loop.call_soon_threadsafe(job.future.cancel)
        for _ in self._threads:
            self._queue.put((float("inf"), next(self._seq), None))
        deadline = time.monotonic() + wait_s
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if not isinstance(job, _Job):
                return
            if job.future.cancelled():
                continue
            try:
                result, error = job.fn(), None
            except Exception as exc:  # handed to the awaiting coroutine, which maps it
                result, error = None, exc
            try:
                job.loop.call_soon_threadsafe(_settle, job.future, result, error)
            except RuntimeError:  # the loop closed while we worked
                pass
