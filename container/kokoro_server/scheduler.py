"""Runs engine work for every session on a few worker threads, the most urgent listener first.

Why not one thread per request: on a CPU (and largely on one GPU) concurrent inferences only slow each
other down, so the model gets a fixed number of workers (``--workers``, default 1, with the backend using
all cores inside each call). Why a priority queue: with FIFO, a session's first sentence waits behind
other sessions' long paragraphs. Each job carries its session's *deadline*: the moment that session's
listener runs out of audio if it plays everything from the first byte in real time. A session that has not
produced audio yet is due when its job would end if it ran at once: its arrival time plus the job's
predicted cost. So a new session's first piece runs before any session that already has audio buffered
ahead (first-piece priority), a session about to starve runs before one with seconds in hand (earliest
deadline first), and among sessions that have heard nothing yet a short first piece ("Hello.") is not
held behind another's long one, which it delays by its own short render only
(docs/decisions/166-first-pieces-by-their-cost.md).

A job carries a :class:`~kokoro_server.engine.backend.CancelToken`: cancelled, it is dropped while queued
and stopped while running (the engine checks the token), so audio no one will hear never holds a worker
(docs/decisions/120-cancel-the-running-inference.md).

A render under way is *preempted* (:meth:`Scheduler.run_preemptible`) when a job arrives that would wait for
it past its own deadline by more than its own run takes, and more than the render's listener would wait in
exchange: it is stopped, queued again at its deadline and run once more after the pressing job. So "Hello."
arriving while another listener's long chunk is being rendered waits for its own render only, if that
listener has seconds of audio in hand, or has heard nothing yet and the render is far from its end. A job is
preempted at most once, which bounds the work thrown away to one render per job
(docs/decisions/168-preempt-a-render-that-can-wait.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kokoro_server.engine.backend import CancelToken, RenderCancelled

T = TypeVar("T")


class PlaybackClock:
    """Tracks how far ahead of its listener a session's audio is."""

    def __init__(self) -> None:
        self.first_audio_at: float | None = None
        self.audio_s = 0.0

    def deadline(self, cost_s: float = 0.0) -> float:
        """When the listener runs dry; with no audio yet, when a job of ``cost_s`` seconds started now would end."""
        if self.first_audio_at is None:
            return time.monotonic() + cost_s
        return self.first_audio_at + self.audio_s

    def played(self, seconds: float) -> None:
        if self.first_audio_at is None:
            self.first_audio_at = time.monotonic()
        self.audio_s += seconds


@dataclass(order=True)
class _Job:
    deadline: float
    seq: int
    # Given the token of this run: the caller's, or for a preemptible job one the scheduler cancels too.
    # None for a batchable job: its runner runs it.
    fn: Callable[[CancelToken], Any] | None = field(compare=False)
    future: asyncio.Future = field(compare=False)
    loop: asyncio.AbstractEventLoop = field(compare=False)
    cancel: CancelToken = field(compare=False)
    # Batchable jobs: the runner that takes several items at once, the item, and the key of the jobs it may
    # share a batch with (the same runner and key).
    runner: BatchRunner | None = field(default=None, compare=False)
    item: Any = field(default=None, compare=False)
    key: Hashable = field(default=None, compare=False)
    cost_s: float = field(default=0.0, compare=False)  # the predicted seconds of its run
    preemptible: bool = field(default=False, compare=False)
    # While a preemptible job runs: when it started and the token that stops this run only.
    started: float = field(default=0.0, compare=False)
    attempt: CancelToken | None = field(default=None, compare=False)
    preempted: bool = field(default=False, compare=False)

    def can_yield_to(self, other: _Job, now: float) -> bool:
        """Whether this running job should be stopped for ``other`` and run again after it: other's listener
        would wait less by more than other's own run takes (so other ends within twice its time alone), plus
        whatever this job's listener would wait more. A listener with audio enough in hand waits no more;
        one with none yet loses other's run and the work thrown away (docs/decisions/168)."""
        if not self.preemptible or self.preempted or self.attempt is None:
            return False
        end = self.started + self.cost_s  # predicted, if it runs on
        again = now + other.cost_s + self.cost_s  # if other runs first and this one then from the start
        saves = _late(end + other.cost_s, other.deadline) - _late(now + other.cost_s, other.deadline)
        loses = _late(again, self.deadline) - _late(end, self.deadline)
        return saves > loses + other.cost_s

    @property
    def dropped(self) -> bool:
        return self.future.cancelled() or self.cancel.cancelled

    def joins(self, head: _Job) -> bool:
        # ==, not `is`: the runtime's runner is a bound method, a new object at each access (equal ones share
        # their instance and function)
        return self.runner is not None and self.runner == head.runner and self.key == head.key


def _late(end: float, deadline: float) -> float:
    """How long after ``deadline`` a job that ends at ``end`` ends (0 in time)."""
    return max(0.0, end - deadline)


# A batch's work: the items and their tokens in, one outcome per item out (its result, or the exception
# its caller gets).
BatchRunner = Callable[[list[Any], list[CancelToken]], list[Any]]


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
    """Earliest-deadline-first queue in front of ``workers`` threads; owned by the app's lifespan.

    With ``max_batch`` > 1, a worker that takes a batchable job (:meth:`run_batched`) fills a batch with up
    to ``max_batch - 1`` more queued jobs of the same key, most urgent first, waiting at most
    ``batch_wait_s`` for them to arrive, never past the head's own deadline (a new session's first piece
    is due on arrival: its batch does not wait) and only while nothing else is queued: a job of another key
    that arrives (a first piece, a session about to starve) ends the wait and runs next, so an urgent job
    is held back by at most one batch (docs/decisions/125-batched-synthesis.md). With ``max_batch`` 1 every job runs alone,
    in deadline order, as it always has.
    """

    def __init__(self, workers: int = 1, name: str = "synth", *, max_batch: int = 1, batch_wait_s: float = 0.0):
        if workers < 1:
            raise ValueError("workers must be at least 1")
        if max_batch < 1 or batch_wait_s < 0:
            raise ValueError("max_batch must be at least 1 and batch_wait_s at least 0")
        self.max_batch = max_batch
        self.batch_wait_s = batch_wait_s
        self._heap: list[_Job] = []
        self._ready = threading.Condition()
        self._closed = False
        self._seq = itertools.count()
        self._running: dict[int, _Job] = {}  # by seq: what the workers are running now, for close()
        self._lock = threading.Lock()
        self._busy = 0  # workers running a job or batch
        self.preempted = 0  # runs stopped for a more pressing job and queued again: /ping's count
        self.stopped = 0  # runs a cancel stopped (no one would hear them): /ping's count
        self._threads = [threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True) for i in range(workers)]
        for thread in self._threads:
            thread.start()

    async def run(
        self,
        fn: Callable[[], T],
        clock: PlaybackClock | None = None,
        cancel: CancelToken | None = None,
        cost_s: float = 0.0,
    ) -> T:
        """Run blocking ``fn`` on a worker, ordered by ``clock``'s deadline for a job of ``cost_s`` seconds.

        ``cancel`` is the token ``fn`` checks, if it can stop part-way. Once it is cancelled this raises
        :class:`RenderCancelled` at once and the job is dropped if still queued; if it runs, ``fn`` stops
        where it checks and its outcome is discarded. Cancelling the awaiting task cancels the token too.
        """

        def ignoring_the_token(_run: CancelToken) -> T:  # fn checks ``cancel`` itself, if at all
            return fn()

        return await self._submit(ignoring_the_token, None, None, None, clock, cancel, cost_s)

    async def run_preemptible(
        self,
        fn: Callable[[CancelToken], T],
        clock: PlaybackClock | None = None,
        cancel: CancelToken | None = None,
        cost_s: float = 0.0,
    ) -> T:
        """As :meth:`run`, for ``fn`` that may be stopped and run again: it gets the token of its run, which
        is cancelled when ``cancel`` is and when the scheduler preempts the run for a job due before it would
        end. A preempted run that raises :class:`RenderCancelled` is queued again at its deadline (its caller
        sees nothing of it); one that ends anyway (it did not stop in time) keeps its outcome."""
        return await self._submit(fn, None, None, None, clock, cancel, cost_s, preemptible=True)

    async def run_batched(
        self,
        runner: BatchRunner,
        item: Any,
        key: Hashable,
        clock: PlaybackClock | None = None,
        cancel: CancelToken | None = None,
        cost_s: float = 0.0,
    ) -> Any:
        """Run ``runner([item, ...], [token, ...])`` on a worker, ``item`` possibly beside other queued items
        of the same ``runner`` and ``key``; returns ``item``'s outcome (raises it if it is an exception).
        Ordering and cancelling as :meth:`run`: a row cancelled while its batch runs is the runner's to drop."""
        return await self._submit(None, runner, item, key, clock, cancel, cost_s)

    async def _submit(
        self,
        fn: Callable[[CancelToken], Any] | None,
        runner: BatchRunner | None,
        item: Any,
        key: Hashable,
        clock: PlaybackClock | None,
        cancel: CancelToken | None,
        cost_s: float,
        preemptible: bool = False,
    ) -> Any:
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()
        token = cancel or CancelToken()
        deadline = clock.deadline(cost_s) if clock else time.monotonic() + cost_s
        job = _Job(deadline, next(self._seq), fn, future, loop, token, runner, item, key, cost_s, preemptible)
        with self._ready:
            if self._closed:
                future.cancel()  # as a job still queued at close() is
            else:
                heapq.heappush(self._heap, job)
                self._ready.notify_all()
                self._preempt_for(job)
        with token.on_cancel(lambda: _call_soon(loop, _abandon, future)):
            try:
                return await future
            except asyncio.CancelledError:
                token.cancel()  # the caller is gone (a client hung up): stop the work it was waiting for
                raise

    def _preempt_for(self, job: _Job) -> None:
        """Stop one running job that can yield to ``job``, if ``job`` is next in line and no worker is free.
        Called with the queue's lock held."""
        if self._heap[0] is not job:
            return
        now = time.monotonic()
        with self._lock:
            if self._busy < len(self._threads):  # a worker is idle: it takes the job now
                return
            victim = next((run for run in self._running.values() if run.can_yield_to(job, now)), None)
            if victim is None:
                return
            victim.preempted = True
            attempt = victim.attempt
        assert attempt is not None  # can_yield_to checked it
        attempt.cancel()  # its run stops at the engine's next check; its worker then takes the queue's head

    def _requeue(self, job: _Job) -> None:
        """Queue a job that a preemption stopped again, at its deadline and place."""
        job.attempt = None
        with self._ready:
            self.preempted += 1
            if self._closed:
                _call_soon(job.loop, job.future.cancel)
                return
            heapq.heappush(self._heap, job)
            self._ready.notify_all()

    def close(self, wait_s: float = 1.0) -> None:
        """Cancel every queued job, stop the running ones and the workers, and wait at most ``wait_s``.

        A running job stops at its token's next check; the threads are daemons, so a call that cannot be
        stopped (G2P) does not hold the process either: SageMaker stops a container with SIGTERM and expects
        it gone within seconds.
        """
        with self._ready:
            queued, self._heap = self._heap, []
            self._closed = True
            self._ready.notify_all()
        for job in queued:
            _call_soon(job.loop, job.future.cancel)
        with self._lock:
            running = list(self._running.values())
        for job in running:
            job.cancel.cancel()
        deadline = time.monotonic() + wait_s
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))

    def _take(self) -> list[_Job] | None:
        """The most urgent job that is still wanted, with its batch; None once closed."""
        with self._ready:
            while True:
                while not self._heap and not self._closed:
                    self._ready.wait()
                if self._closed:
                    return None
                head = heapq.heappop(self._heap)
                if not head.dropped:
                    break
            batch = [head]
            if head.runner is None or self.max_batch == 1:
                return batch
            # Never past the head's own deadline: a first piece (due on arrival) does not wait at all.
            fill_until = min(time.monotonic() + self.batch_wait_s, head.deadline)
            while True:
                self._fill(batch)
                wait_s = fill_until - time.monotonic()
                # Anything else queued (of another key: this key's are in the batch) is work the worker
                # would idle in front of: the batch runs now, and that job right after it.
                if self._closed:  # while the batch waited: its jobs go as queued ones do
                    for job in batch:
                        _call_soon(job.loop, job.future.cancel)
                    return None
                if len(batch) >= self.max_batch or self._heap or wait_s <= 0:
                    return batch
                self._ready.wait(wait_s)

    def _fill(self, batch: list[_Job]) -> None:
        """Move queued jobs that join ``batch``'s head into it, most urgent first, up to ``max_batch``; drop
        cancelled ones on the way. Called with the queue's lock held."""
        kept: list[_Job] = []
        for job in sorted(self._heap):
            if job.dropped:
                continue
            if len(batch) < self.max_batch and job.joins(batch[0]):
                batch.append(job)
            else:
                kept.append(job)
        self._heap = kept  # sorted: a valid heap

    def _work(self) -> None:
        while True:
            jobs = self._take()
            if jobs is None:
                return
            head = jobs[0]
            with self._lock:
                self._busy += 1
                self._running.update((job.seq, job) for job in jobs)
                if head.preemptible:  # alone: batches are never preemptible
                    head.started, head.attempt = time.monotonic(), CancelToken()
            try:
                outcomes = self._execute(jobs)
            finally:
                with self._lock:
                    self._busy -= 1
                    for job in jobs:
                        del self._running[job.seq]
            if head.preempted and head.attempt is not None and isinstance(outcomes[0][1], RenderCancelled):
                if not head.dropped:  # stopped for a more pressing job, not for its own cancel
                    self._requeue(head)
                    continue
            with self._lock:
                self.stopped += sum(isinstance(error, RenderCancelled) for _, error in outcomes)
            for job, (result, error) in zip(jobs, outcomes, strict=True):
                _call_soon(job.loop, _settle, job.future, result, error)

    @staticmethod
    def _execute(jobs: list[_Job]) -> list[tuple[Any, BaseException | None]]:
        """Each job's result or error: a plain job runs its ``fn``, batchable ones their shared runner."""
        try:
            head = jobs[0]
            runner, fn = head.runner, head.fn
            if runner is None and fn is not None:
                if head.attempt is None:
                    return [(fn(head.cancel), None)]
                with head.cancel.on_cancel(head.attempt.cancel):  # its caller's cancel stops this run too
                    return [(fn(head.attempt), None)]
            assert runner is not None  # a job has a fn or a runner
            outcomes = runner([job.item for job in jobs], [job.cancel for job in jobs])
        except Exception as exc:  # handed to the awaiting coroutines, which map it
            return [(None, exc)] * len(jobs)
        return [(None, out) if isinstance(out, BaseException) else (out, None) for out in outcomes]


def _call_soon(loop: asyncio.AbstractEventLoop, fn: Callable[..., object], *args: Any) -> None:
    """``fn(*args)`` on ``loop``'s thread, from any thread; nothing if the loop has closed meanwhile."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(fn, *args)
