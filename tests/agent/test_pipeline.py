"""The answer pipeline: LLM deltas -> segmenter -> one speech session -> events, on real sockets."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from scripted_model_server import PCM_CHUNK, Peer, close_after_first_message, greet, scripted_model_server
from servers import free_port

from speech_protocol.client_messages import Close, Synthesize
from speech_protocol.pieces.segmenter import Segmenter
from speech_protocol.server_events import Audio, End, Ready, Start
from speech_protocol.transports.websocket import WebSocketConnector
from speech_protocol.tts_session import TtsSession
from voice_agent.events import AudioChunk, ErrorEvent, PieceDone, PieceSent, Summary, TextDelta
from voice_agent.pipeline import VoiceChoice, speak_answer

VOICE = VoiceChoice("af_heart", 1.0)


async def deltas_of(*chunks: str) -> AsyncIterator[str]:
    for chunk in chunks:
        await asyncio.sleep(0)
        yield chunk


def session_at(url: str, timeout_s: float = 20.0) -> TtsSession:
    return TtsSession(WebSocketConnector(url), timeout_s=timeout_s)


async def collect(deltas: AsyncIterator[str], url: str, timeout_s: float = 20.0) -> list:
    return [e async for e in speak_answer(deltas, session_at(url, timeout_s), Segmenter(), VOICE)]


async def test_first_audio_arrives_while_the_llm_is_still_writing(model_server_url: str) -> None:
    """The LLM stalls after its first sentence until audio for it has reached the caller."""
    first_audio = asyncio.Event()

    async def llm() -> AsyncIterator[str]:
        yield "Good morning to you all. The"  # the next word confirms the sentence's end
        await asyncio.wait_for(first_audio.wait(), 30)  # a pipeline that waits for the LLM deadlocks here
        yield " rest comes later"

    events = []
    async for event in speak_answer(llm(), session_at(model_server_url), Segmenter(), VOICE):
        events.append(event)
        if isinstance(event, AudioChunk):
            first_audio.set()
    kinds = [type(e) for e in events]
    assert kinds.index(AudioChunk) < max(i for i, k in enumerate(kinds) if k is TextDelta)
    assert isinstance(events[-1], Summary) and events[-1].pieces == 2
    sent = [e.text for e in events if isinstance(e, PieceSent)]
    assert sent[-1] == "The rest comes later"  # no final punctuation, still spoken
    done = {e.id: e for e in events if isinstance(e, PieceDone)}
    assert done["p1"].audio_s > 0.5


async def test_summary_adds_up(model_server_url: str) -> None:
    events = await collect(deltas_of("Yes", ", of course."), model_server_url)
    summary = events[-1]
    assert isinstance(summary, Summary), events[-1]
    audio = sum(len(e.pcm) for e in events if isinstance(e, AudioChunk))
    assert summary.audio_s == pytest.approx(audio / 2 / 24_000, abs=0.002)
    assert summary.text == "Yes, of course." and summary.ttfa_s is not None and summary.ttfa_s <= summary.total_s


async def test_empty_answer_says_nothing(model_server_url: str) -> None:
    events = await collect(deltas_of(), model_server_url)
    assert len(events) == 1 and events[0].pieces == 0 and events[0].ttfa_s is None


async def test_unreachable_model_server_is_one_error_event() -> None:
    events = await collect(deltas_of("Hello there."), f"http://127.0.0.1:{free_port()}")
    assert isinstance(events[-1], ErrorEvent) and events[-1].code == "tts_unreachable"


async def test_llm_failure_is_one_error_event_and_closes_the_session() -> None:
    opened, closed = asyncio.Event(), asyncio.Event()

    async def script(peer: Peer) -> None:
        await greet(peer)
        opened.set()
        await peer.connection.wait_closed()
        closed.set()

    async def llm() -> AsyncIterator[str]:
        yield "Hello"
        await asyncio.wait_for(opened.wait(), 5)  # fail mid-answer, with the session open
        raise RuntimeError("model fell over")

    async with scripted_model_server(script) as url:
        events = await collect(llm(), url)
        await asyncio.wait_for(closed.wait(), 5)
    assert isinstance(events[-1], ErrorEvent) and events[-1].code == "internal_error"
    assert "model fell over" not in events[-1].message  # unexpected errors reveal only their type


async def test_server_closing_mid_answer_is_one_error_event() -> None:
    async with scripted_model_server(close_after_first_message) as url:
        events = await collect(deltas_of("One sentence here. ", "And another one."), url)
    assert [e.code for e in events if isinstance(e, ErrorEvent)] == ["tts_session_closed"]
    assert events[-1].type == "error"


async def test_consumer_leaving_stops_the_llm_and_closes_the_session() -> None:
    closed, llm_stopped = asyncio.Event(), asyncio.Event()
    messages: list = []

    async def script(peer: Peer) -> None:
        await greet(peer)
        try:
            while isinstance(message := await peer.next_message(), Synthesize):
                messages.append(message)
                await peer.speak(message)
            messages.append(message)
        finally:
            closed.set()

    async def endless_llm() -> AsyncIterator[str]:
        try:
            while True:
                await asyncio.sleep(0.01)
                yield "Another sentence. "
        finally:
            llm_stopped.set()

    async with scripted_model_server(script) as url:
        answer = speak_answer(endless_llm(), session_at(url), Segmenter(), VOICE)
        async for event in answer:
            if isinstance(event, AudioChunk):
                break
        await answer.aclose()
        await asyncio.wait_for(asyncio.gather(closed.wait(), llm_stopped.wait()), 5)
    assert messages and not any(isinstance(m, Close) for m in messages)


# -- the segmenter sized from the server's advertised real-time factor ----------------------------------------

ANSWER = (
    "Yes, of course, the museum is open every day, except on Mondays, from nine in the morning until six. "
    "There are a few things to keep in mind before you go."
)
RAMPED = [
    "Yes, of course,",
    "the museum is open every day,",
    "except on Mondays,",
    "from nine in the morning until six.",
    "There are a few things to keep in mind before you go.",
]
DEFAULT_CUTS = [
    "Yes, of course, the museum is open every day,",
    "except on Mondays, from nine in the morning until six.",
    "There are a few things to keep in mind before you go.",
]


def recording_server(
    rtf: object, heard: list[str], greeted: asyncio.Event | None = None, piece_overhead_s: object = None
):
    """A server that advertises ``rtf`` (and ``piece_overhead_s``) in its Ready (after ``greeted``, if
    given) and speaks every piece."""

    async def script(peer: Peer) -> None:
        if greeted is not None:
            await asyncio.wait_for(greeted.wait(), 5)
        await peer.send(Ready(session="scripted", rtf=rtf, piece_overhead_s=piece_overhead_s))  # type: ignore[arg-type]  # hostile rtf values on purpose
        while isinstance(message := await peer.next_message(), Synthesize):
            heard.append(message.text)
            await peer.speak(message, chunks=1)

    return scripted_model_server(script)


async def answer_after_ready(session: TtsSession, text: str = ANSWER) -> AsyncIterator[str]:
    """The LLM thinks until the session is open, as it does in production, then streams word by word."""
    async with asyncio.timeout(5):
        while not session.ready:
            await asyncio.sleep(0.005)
    for word in text.split(" "):
        yield word + " "


async def spoken_pieces(url: str, session: TtsSession, deltas: AsyncIterator[str], **options) -> list:
    return [e async for e in speak_answer(deltas, session, Segmenter(), VOICE, **options)]


async def test_the_servers_rtf_sizes_the_pieces_once_ready_has_arrived() -> None:
    heard: list[str] = []
    async with recording_server(0.44, heard) as url:
        session = session_at(url)
        events = await spoken_pieces(url, session, answer_after_ready(session))
    assert session.rtf == 0.44
    assert isinstance(events[-1], Summary) and events[-1].pieces == len(RAMPED)
    assert heard == RAMPED == [e.text for e in events if isinstance(e, PieceSent)]


async def test_a_ready_that_comes_after_the_first_words_still_sizes_the_first_piece() -> None:
    heard: list[str] = []
    written = asyncio.Event()

    async def early_llm(session: TtsSession) -> AsyncIterator[str]:
        first = "Yes, of course"  # cut nowhere yet: the clause's end is still unknown
        yield first
        written.set()
        async for delta in answer_after_ready(session, ANSWER.removeprefix(first)):
            yield delta

    async with recording_server(0.44, heard, written) as url:
        session = session_at(url)
        await spoken_pieces(url, session, early_llm(session))
    assert heard == RAMPED


@pytest.mark.parametrize("rtf", [None, 0, -0.4, float("nan"), float("inf"), "fast", True, [0.4]])
async def test_without_a_usable_rtf_the_fixed_default_policy_speaks_the_answer(rtf: object) -> None:
    heard: list[str] = []
    async with recording_server(rtf, heard) as url:
        session = session_at(url)
        events = await spoken_pieces(url, session, answer_after_ready(session))
    assert session.ready and session.rtf is None
    assert isinstance(events[-1], Summary) and heard == DEFAULT_CUTS


async def test_a_server_that_costs_more_per_piece_gets_fewer_longer_pieces() -> None:
    """The same rtf with the 2-core CPU's measured cost per piece (0.5 s): "Yes, of course," would end
    before the next piece is ready, so the first piece runs on to a later clause."""
    heard: list[str] = []
    async with recording_server(0.44, heard, piece_overhead_s=0.5) as url:
        session = session_at(url)
        await spoken_pieces(url, session, answer_after_ready(session))
    assert session.piece_overhead_s == 0.5
    assert " ".join(heard) == ANSWER
    assert len(heard[0].split()) > len(RAMPED[0].split()) and len(heard) < len(RAMPED)


@pytest.mark.parametrize("overhead", [-0.1, float("nan"), float("inf"), 11.0, "slow", True, [0.2]])
async def test_a_malformed_piece_overhead_is_ignored_and_the_rtf_still_sizes_the_pieces(overhead: object) -> None:
    heard: list[str] = []
    async with recording_server(0.44, heard, piece_overhead_s=overhead) as url:
        session = session_at(url)
        await spoken_pieces(url, session, answer_after_ready(session))
    assert session.rtf == 0.44 and session.piece_overhead_s is None
    assert heard == RAMPED


async def test_a_pipeline_told_not_to_adapt_keeps_its_segmenters_policy() -> None:
    heard: list[str] = []
    async with recording_server(0.44, heard) as url:
        session = session_at(url)
        await spoken_pieces(url, session, answer_after_ready(session), adapt_to_server=False)
    assert heard == DEFAULT_CUTS


def pace_changing_server(heard: list[str], rtf: float, piece_overhead_s: float, later: tuple[float, float] | None):
    """A server that advertises ``rtf`` and ``piece_overhead_s`` in its Ready and, if ``later`` is given,
    reports that pace on its first piece's ``end``, as a server whose running pace changed does."""

    async def script(peer: Peer) -> None:
        await peer.send(Ready(session="scripted", rtf=rtf, piece_overhead_s=piece_overhead_s))
        pace = later
        while isinstance(message := await peer.next_message(), Synthesize):
            heard.append(message.text)
            piece = message.id or ""
            await peer.send(Start(id=piece), Audio(id=piece, seq=0, pcm=PCM_CHUNK))
            news_rtf, news_overhead_s = pace or (None, None)
            await peer.send(End(piece, 0.1, 0.0, 0.0, 0.0, rtf=news_rtf, piece_overhead_s=news_overhead_s))
            pace = None

    return scripted_model_server(script)


class CountingSegmenter(Segmenter):
    """The real segmenter, counting the pieces it has cut so far."""

    def __init__(self) -> None:
        super().__init__()
        self.cut = 0

    def feed(self, delta: str) -> list[str]:
        pieces = super().feed(delta)
        self.cut += len(pieces)
        return pieces


async def answer_around_the_first_piece(
    session: TtsSession, segmenter: CountingSegmenter, changed_to: float
) -> AsyncIterator[str]:
    """Word by word until the first piece is cut (the pipeline feeds each word before asking for the next),
    then, once the session has heard the server's new pace, the rest."""
    first, *rest = ANSWER.split(" ")
    async for delta in answer_after_ready(session, first):
        yield delta
    while rest and not segmenter.cut:
        yield rest.pop(0) + " "
    async with asyncio.timeout(5):
        while session.rtf != changed_to:
            await asyncio.sleep(0.005)
    for word in rest:
        yield word + " "


@pytest.mark.parametrize(
    ("later", "expected"),
    [
        # slower (load arrived): no piece after the first would sustain itself short of a sentence
        ((0.9, 0.5), [RAMPED[0], " ".join(RAMPED[1:4]), RAMPED[4]]),
        # faster: the ramp of short pieces ends sooner
        ((0.2, 0.02), [*RAMPED[:2], " ".join(RAMPED[2:4]), RAMPED[4]]),
    ],
    ids=["slower", "faster"],
)
async def test_a_pace_that_changes_mid_session_changes_the_cuts(later: tuple[float, float], expected: list) -> None:
    """The answer that a server keeping its Ready's pace (rtf 0.44) gets cut as ``RAMPED``, on a server whose
    first piece's ``end`` reports another running pace: the pieces after the first follow the new pace."""
    heard: list[str] = []
    async with pace_changing_server(heard, 0.44, 0.05, later) as url:
        session, segmenter = session_at(url), CountingSegmenter()
        deltas = answer_around_the_first_piece(session, segmenter, later[0])
        events = [e async for e in speak_answer(deltas, session, segmenter, VOICE)]
    assert isinstance(events[-1], Summary)
    assert (session.rtf, session.piece_overhead_s) == later
    assert heard == expected != RAMPED
