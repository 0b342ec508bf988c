"""Runs engine work for every session on a few worker threads, the most urgent listener first.

Why not one thread per request: on a CPU (and largely on one GPU) concurrent inferences only slow each
other down, so the model gets a fixed number of workers (``--workers``, default 1, with the backend using
all cores inside each call). Why a priority queue: with FIFO, a session's first sentence waits behind
other sessions' long paragraphs. Each job carries its session's *deadline*: the moment that session's
listener runs out of audio if it plays everything from the first byte in real time. A session that has not
produced audio yet has its arrival time as deadline, so a new session's first piece runs before any
session that already has audio buffered ahead (first-piece priority), and a session about to starve runs
before one with seconds in hand (earliest deadline first).

A job carries a :class:`~kokoro_server.engine.backend.CancelToken`: cancelled, it is dropped while queued
and stopped while running (the engine checks the token), so audio no one will hear never holds a worker
(docs/decisions/120-cancel-the-running-inference.md).
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

from kokoro_server.engine.backend import CancelToken, RenderCancelled

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
    cancel: CancelToken = field(compare=False)


def _abandon(future: asyncio.Future) -> None:
    """The job's token was cancelled: its caller hears so now, whatever the worker is doing."""
    if not future.done():
        future.set_exception(RenderCancelled("the job was cancelled"))


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
        self._running: dict[int, _Job] = {}  # by seq: what the workers are running now, for close()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True) for i in range(workers)]
        for thread in self._threads:
            thread.start()

    async def run(
        self, fn: Callable[[], T], clock: PlaybackClock | None = None, cancel: CancelToken | None = None
    ) -> T:
        """Run blocking ``fn`` on a worker, ordered by ``clock``'s deadline.

        ``cancel`` is the token ``fn`` checks, if it can stop part-way. Once it is cancelled this raises
        :class:`RenderCancelled` at once and the job is dropped if still queued; if it runs, ``fn`` stops
        where it checks and its outcome is discarded. Cancelling the awaiting task cancels the token too.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()
        token = cancel or CancelToken()
        deadline = clock.deadline() if clock else time.monotonic()
        self._queue.put(_Job(deadline, next(self._seq), fn, future, loop, token))
        with token.on_cancel(lambda: _call_soon(loop, _abandon, future)):
            try:
                return await future
            except asyncio.CancelledError:
                token.cancel()  # the caller is gone (a client hung up): stop the work it was waiting for
                raise

    def close(self, wait_s: float = 1.0) -> None:
        """Cancel every queued job, stop the running ones and the workers, and wait at most ``wait_s``.

        A running job stops at its token's next check; the threads are daemons, so a call that cannot be
        stopped (G2P) does not hold the process either: SageMaker stops a container with SIGTERM and expects
        it gone within seconds.
        """
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(job, _Job):
                _call_soon(job.loop, job.future.cancel)
        with self._lock:
            running = list(self._running.values())
        for job in running:
            job.cancel.cancel()
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
            if job.future.cancelled() or job.cancel.cancelled:
                continue
            with self._lock:
                self._running[job.seq] = job
            try:
                result, error = job.fn(), None
            except Exception as exc:  # handed to the awaiting coroutine, which maps it
                result, error = None, exc
            finally:
                with self._lock:
                    del self._running[job.seq]
            _call_soon(job.loop, _settle, job.future, result, error)


def _call_soon(loop: asyncio.AbstractEventLoop, fn: Callable[..., object], *args: Any) -> None:
    """``fn(*args)`` on ``loop``'s thread, from any thread; nothing if the loop has closed meanwhile."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(fn, *args)
