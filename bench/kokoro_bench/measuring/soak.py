"""``python -m kokoro_bench soak --minutes M --sessions N``: hours of mixed traffic on one server, in minutes.

Users of Kokoro servers report memory that grows over days and work that goes on after the client left.
The soak drives one local model server (started here, 127.0.0.1 only) with ``N`` clients in a loop until
``M`` minutes have passed: normal answers, answers cancelled mid-way, clients that vanish mid-utterance
and bad frames, in rotation; with ``--terminated``, also renders stopped while they run (a cancel, or a
client that vanishes, right after the server said it started:
docs/decisions/120-cancel-the-running-inference.md), so that what a stopped render leaves behind shows
too. Every 5 s it samples the RSS, open descriptors, threads and processes of the server's process tree
(the server and its G2P workers), and it reports the RSS slope after warm-up, the descriptors, threads
and processes before and after, the sessions completed and every error by
kind (expected ones, such as ``server_busy`` or a bad frame's error, apart).
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import time
from dataclasses import dataclass, field

import websockets

from speech_protocol.client_messages import Cancel, Synthesize, encode_client_message
from speech_protocol.errors import SERVER_BUSY
from speech_protocol.server_events import Audio, End, Error, ServerEvent, Start, StreamDecoder
from speech_protocol.transports.websocket import session_url

from ..errors import BenchError
from .process_stats import Sample, sample, slope_per_minute

SAMPLE_EVERY_S = 5.0
WAIT_S = 120.0  # one event may take this long on a saturated 2-core machine
MAX_MINUTES, MAX_SESSIONS = 24 * 60, 32
SENTENCES = ("The museum opens at nine.", "Tickets cost twelve dollars for adults.")
LONG = " ".join(["The river walk takes about forty minutes at an easy pace."] * 6)
BAD_FRAMES = ("not json", '{"type": "mystery"}', "x" * (70 * 1024))
EXPECTED = {SERVER_BUSY, "bad_json", "unknown_type", "frame_too_large"}  # what the bad frames provoke


@dataclass
class Tally:
    completed: collections.Counter = field(default_factory=collections.Counter)
    expected: collections.Counter = field(default_factory=collections.Counter)
    unexpected: collections.Counter = field(default_factory=collections.Counter)
    heard_before_stop: int = 0  # cancels mid-render that came too late: the render had finished


class _RawSocket:
    """One soak client on a raw WebSocket (not TtsSession: it sends bad frames on purpose)."""

    def __init__(self, ws):
        self.ws, self.decoder = ws, StreamDecoder()
        self.pending: collections.deque[ServerEvent] = collections.deque()

    async def next(self):
        while not self.pending:
            self.pending.extend(self.decoder.feed(await asyncio.wait_for(self.ws.recv(), WAIT_S)))
        return self.pending.popleft()

    async def until(self, kind, tally: Tally):
        """Read to the next ``kind`` event; errors are tallied (the bad frames' errors as expected)."""
        while not isinstance(event := await self.next(), kind):
            if isinstance(event, Error):
                (tally.expected if event.code in EXPECTED else tally.unexpected)[event.code] += 1
        return event

    async def say(self, text: str, uid: str) -> None:
        await self.ws.send(encode_client_message(Synthesize(text, id=uid)))


async def _normal(s: _RawSocket, tally: Tally) -> None:
    for i, text in enumerate(SENTENCES):
        await s.say(text, f"n{i}")
    for _ in SENTENCES:
        await s.until(End, tally)


async def _cancel(s: _RawSocket, tally: Tally) -> None:
    await s.say(LONG, "c")
    await s.until(Audio, tally)
    await s.ws.send(encode_client_message(Cancel("c")))
    await s.until(End, tally)


async def _vanish(s: _RawSocket, tally: Tally) -> None:
    await s.say(LONG, "v")
    await s.until(Audio, tally)
    s.ws.transport.abort()  # gone without a close frame


async def _bad(s: _RawSocket, tally: Tally) -> None:
    for frame in BAD_FRAMES:
        await s.ws.send(frame)
    await s.say(SENTENCES[0], "b")
    await s.until(End, tally)


async def _cancel_mid_render(s: _RawSocket, tally: Tally) -> None:
    """Cancel once the server has started the render: it is stopped where it is, and the End says so."""
    await s.say(LONG, "t")
    await s.until(Start, tally)
    await s.ws.send(encode_client_message(Cancel("t")))
    heard = False
    while not isinstance(event := await s.until((Audio, End), tally), End):
        heard = True  # the render finished before the cancel reached it
    tally.heard_before_stop += heard
    if not event.cancelled:
        tally.unexpected["render_not_cancelled"] += 1


async def _vanish_mid_render(s: _RawSocket, tally: Tally) -> None:
    await s.say(LONG, "w")
    await s.until(Start, tally)
    s.ws.transport.abort()


SCENARIOS = {"normal": _normal, "cancel": _cancel, "vanish": _vanish, "bad_frames": _bad}
# Renders stopped while they run: with them the rotation has two terminated runs in six.
TERMINATED = {"cancel_mid_render": _cancel_mid_render, "vanish_mid_render": _vanish_mid_render}


async def _client(url: str, index: int, deadline: float, tally: Tally, scenarios: dict) -> None:
    names = itertools.islice(itertools.cycle(scenarios), index, None)  # clients start staggered in the mix
    while time.monotonic() < deadline:
        name = next(names)
        try:
            async with websockets.connect(session_url(url), max_size=None, open_timeout=WAIT_S) as ws:
                s = _RawSocket(ws)
                first = await s.next()
                if isinstance(first, Error) and first.code == SERVER_BUSY:
                    tally.expected[SERVER_BUSY] += 1
                    await asyncio.sleep(first.retry_after_s or 1.0)
                    continue
                await scenarios[name](s, tally)
            tally.completed[name] += 1
        except (OSError, TimeoutError, websockets.WebSocketException) as err:
            if name.startswith("vanish"):
                tally.completed[name] += 1  # closing an aborted socket complains; the scenario is done
            else:
                tally.unexpected[type(err).__name__] += 1


async def _sampler(pid: int, start: float, deadline: float, samples: list[Sample]) -> None:
    while time.monotonic() < deadline:
        samples.append(sample(pid, time.monotonic() - start))
        await asyncio.sleep(SAMPLE_EVERY_S)


async def soak(url: str, pid: int, minutes: float, sessions: int, *, terminated: bool = False) -> dict:
    """Run the traffic; the report as a plain dict (printed and optionally written as JSON)."""
    if not 0 < minutes <= MAX_MINUTES or not 1 <= sessions <= MAX_SESSIONS:
        raise BenchError(f"--minutes between 0 and {MAX_MINUTES}, --sessions between 1 and {MAX_SESSIONS}")
    tally = Tally()
    samples: list[Sample] = []
    start = time.monotonic()
    deadline = start + minutes * 60
    sampler = asyncio.create_task(_sampler(pid, start, deadline, samples))
    scenarios = {**SCENARIOS, **(TERMINATED if terminated else {})}
    await asyncio.gather(*(_client(url, i, deadline, tally, scenarios) for i in range(sessions)))
    await sampler
    await asyncio.sleep(3)  # let the last sessions' handlers finish before the final count
    final = sample(pid, time.monotonic() - start)
    warm_after = min(60.0, minutes * 60 * 0.25)
    warm = [s for s in samples if s.t_s >= warm_after] or samples[-1:]
    slope = slope_per_minute(warm)
    return {
        "minutes": minutes,
        "sessions": sessions,
        "terminated": terminated,
        "completed": dict(tally.completed),
        "heard_before_stop": tally.heard_before_stop,
        "expected_errors": dict(tally.expected),
        "unexpected_errors": dict(tally.unexpected),
        "rss_mb": {"start": samples[0].rss_mb, "after_warm_up": warm[0].rss_mb, "end": final.rss_mb},
        "rss_slope_mb_per_min": slope,
        "rss_growth_pct_per_30_min": None if slope is None else round(100 * slope * 30 / warm[0].rss_mb, 2),
        "fds": {"after_warm_up": warm[0].fds, "end": final.fds},
        "threads": {"after_warm_up": warm[0].threads, "end": final.threads},
        "processes": {"after_warm_up": warm[0].processes, "end": final.processes},
        "samples": [s.__dict__ for s in samples] + [final.__dict__],
    }
