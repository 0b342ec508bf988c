"""The batching scheduler: batches of one key, most urgent first; an urgent piece waits at most one batch;
cancelled rows never run; each caller gets its own row's outcome (docs/decisions/125-batched-synthesis.md).

The worker is held on a gate while the queue is set up, so every order asserted here is decided by the
scheduler, never by how fast this machine is. A batch that waits to fill is given a long wait: a scheduler
that failed to cut it short for an urgent piece would hang the test rather than pass it.
"""

from __future__ import annotations

import asyncio
from contextlib import closing

import pytest
from scheduler_jobs import held, queued

from kokoro_server.engine.backend import CancelToken, RenderCancelled
from kokoro_server.engine.batch import frame_groups, token_bucket
from kokoro_server.scheduler import PlaybackClock, Scheduler
from kokoro_server.settings import ServerSettings

LONG_WAIT_S = 600.0


class Recorder:
    """A batch runner that records each batch's items and returns each item doubled (or raises it)."""

    def __init__(self) -> None:
        self.batches: list[list[object]] = []

    def __call__(self, items: list[object], tokens: list[CancelToken]) -> list[object]:
        self.batches.append(list(items))
        return [item if isinstance(item, BaseException) else item * 2 for item in items]  # type: ignore[operator] # items are ints or exceptions here


def buffered(seconds: float) -> PlaybackClock:
    """A session with ``seconds`` of audio ahead of its listener."""
    clock = PlaybackClock()
    clock.played(seconds)
    return clock


async def _taken(scheduler: Scheduler, job: asyncio.Future) -> None:
    """Until the worker has taken ``job``, just queued, off the queue (it then fills its batch, or runs it)."""
    await queued(job)
    while scheduler._heap:  # noqa: SLF001 - the queue itself: what this waits on
        await asyncio.sleep(0.005)


async def _filling(scheduler: Scheduler, runner: Recorder) -> asyncio.Future:
    """A long piece (1) that the worker has taken and holds while its batch waits to fill."""
    filling = asyncio.ensure_future(scheduler.run_batched(runner, 1, "long", buffered(5.0)))
    await _taken(scheduler, filling)
    return filling


async def test_jobs_of_one_key_share_batches_most_urgent_first():
    with closing(Scheduler(workers=1, max_batch=3)) as scheduler:
        runner = Recorder()
        async with held(scheduler):
            jobs = [
                asyncio.ensure_future(scheduler.run_batched(runner, n, "long", buffered(10.0 - n))) for n in range(1, 6)
            ]
            await queued(*jobs)
        assert await asyncio.gather(*jobs) == [2, 4, 6, 8, 10]
        assert runner.batches == [[5, 4, 3], [2, 1]]  # the latest-played (most urgent) session first


class _Runtime:
    """Hands its batch runner as the server's runtime does: a bound method, a new object at each access."""

    def __init__(self) -> None:
        self.recorder = Recorder()

    def render_batch(self, items: list[object], tokens: list[CancelToken]) -> list[object]:
        return self.recorder(items, tokens)


async def test_a_bound_method_runner_batches_the_jobs_of_separate_callers():
    """Each session's render asks for ``runtime.render_batch`` anew; the jobs share a batch all the same (they
    once never did: the scheduler compared runners by identity)."""
    with closing(Scheduler(workers=1, max_batch=4)) as scheduler:
        runtime = _Runtime()
        async with held(scheduler):
            jobs = [asyncio.ensure_future(scheduler.run_batched(runtime.render_batch, n, "k")) for n in (1, 2, 3)]
            await queued(*jobs)
        assert await asyncio.gather(*jobs) == [2, 4, 6]
        assert runtime.recorder.batches == [[1, 2, 3]]


async def test_a_first_piece_goes_before_a_full_batch_of_long_pieces():
    with closing(Scheduler(workers=1, max_batch=2, batch_wait_s=LONG_WAIT_S)) as scheduler:
        runner = Recorder()
        async with held(scheduler):
            longs = [
                asyncio.ensure_future(scheduler.run_batched(runner, n, "long", buffered(5.0))) for n in (1, 2, 3, 4)
            ]
            await queued(*longs)
            first = asyncio.ensure_future(scheduler.run_batched(runner, 100, "short", PlaybackClock()))
            await queued(first)
        await asyncio.gather(first, *longs)
        # the first piece's batch is cut short (nothing else of its key, the long pieces are due), then the
        # full batches of long pieces
        assert runner.batches == [[100], [1, 2], [3, 4]]


@pytest.mark.parametrize(
    ("max_batch", "key", "batches"),
    [
        # of another key (urgent: due on arrival): it ends the wait and runs next, after at most that batch
        pytest.param(4, "short", [[1], [2]], id="an-urgent-piece-waits-at-most-that-batch"),
        # of the same key: it joins; full, the batch runs without waiting out the long wait
        pytest.param(2, "long", [[1, 2]], id="a-piece-of-the-same-key-joins-it"),
    ],
)
async def test_a_piece_arriving_while_a_batch_fills(max_batch: int, key: str, batches: list[list[int]]):
    with closing(Scheduler(workers=1, max_batch=max_batch, batch_wait_s=LONG_WAIT_S)) as scheduler:
        runner = Recorder()
        filling = await _filling(scheduler, runner)
        arriving = asyncio.ensure_future(scheduler.run_batched(runner, 2, key, PlaybackClock()))
        assert await asyncio.gather(filling, arriving) == [2, 4]
        assert runner.batches == batches


async def test_cancelled_rows_are_dropped_before_their_batch_runs():
    with closing(Scheduler(workers=1, max_batch=4)) as scheduler:
        runner = Recorder()
        async with held(scheduler):
            token = CancelToken()
            kept = [asyncio.ensure_future(scheduler.run_batched(runner, n, "k")) for n in (1, 2)]
            doomed = asyncio.ensure_future(scheduler.run_batched(runner, 3, "k", cancel=token))
            vanished = asyncio.ensure_future(scheduler.run_batched(runner, 4, "k"))
            await queued(*kept, doomed, vanished)
            token.cancel()
            vanished.cancel()  # its client hung up
        assert await asyncio.gather(*kept) == [2, 4]
        with pytest.raises(RenderCancelled):
            await doomed
        assert runner.batches == [[1, 2]]


async def test_each_caller_gets_its_own_rows_outcome_and_a_failed_batch_fails_all():
    with closing(Scheduler(workers=1, max_batch=4)) as scheduler:
        runner = Recorder()
        async with held(scheduler):
            ok = asyncio.ensure_future(scheduler.run_batched(runner, 1, "k"))
            bad = asyncio.ensure_future(scheduler.run_batched(runner, ValueError("row"), "k"))
            await queued(ok, bad)
        assert await ok == 2
        with pytest.raises(ValueError, match="row"):
            await bad

        def broken(items: list[object], tokens: list[CancelToken]) -> list[object]:
            raise ZeroDivisionError

        with pytest.raises(ZeroDivisionError):
            await scheduler.run_batched(broken, 1, "k")


async def test_max_batch_one_runs_every_batchable_job_alone_in_deadline_order():
    with closing(Scheduler(workers=1)) as scheduler:
        runner = Recorder()
        async with held(scheduler):
            later = asyncio.ensure_future(scheduler.run_batched(runner, 1, "k", buffered(30.0)))
            first = asyncio.ensure_future(scheduler.run_batched(runner, 2, "k", PlaybackClock()))
            await queued(later, first)
        await asyncio.gather(later, first)
        assert runner.batches == [[2], [1]]


async def test_a_job_submitted_after_close_is_cancelled():
    scheduler = Scheduler(workers=1, max_batch=2)
    scheduler.close()
    with pytest.raises(asyncio.CancelledError):
        await scheduler.run(lambda: 1)


@pytest.mark.parametrize(("max_batch", "wait_s"), [(0, 0.0), (2, -1.0)])
def test_batch_settings_are_checked(max_batch: int, wait_s: float):
    with pytest.raises(ValueError):
        Scheduler(workers=1, max_batch=max_batch, batch_wait_s=wait_s)


def test_token_buckets_are_powers_of_two_from_16():
    assert [token_bucket(n) for n in (1, 16, 17, 100, 510)] == [16, 16, 32, 128, 512]


def test_frame_groups_bound_the_ratio_and_the_padded_frames():
    frames = [100, 400, 120, 140, 90]
    assert frame_groups(frames, max_frames=10_000, ratio=1.5) == [[4, 0, 2], [3], [1]]
    assert frame_groups(frames, max_frames=300, ratio=1.5) == [[4, 0], [2, 3], [1]]
    assert frame_groups([20_000], max_frames=300) == [[0]]  # longer than the bound alone: still spoken


@pytest.mark.parametrize("bad", [{"max_batch": 0}, {"max_batch": 65}, {"batch_wait_ms": -1.0}, {"batch_wait_ms": 1e3}])
def test_server_settings_refuse_batching_out_of_range(bad: dict):
    with pytest.raises(ValueError, match="max_batch"):
        ServerSettings(**bad)


async def test_closing_while_a_batch_waits_to_fill_cancels_it():
    scheduler = Scheduler(workers=1, max_batch=4, batch_wait_s=LONG_WAIT_S)
    runner = Recorder()
    filling = await _filling(scheduler, runner)
    scheduler.close()
    with pytest.raises(asyncio.CancelledError):
        await filling
    assert runner.batches == [] and not any(t.is_alive() for t in scheduler._threads)  # noqa: SLF001 - the workers themselves
