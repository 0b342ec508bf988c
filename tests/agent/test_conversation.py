"""The ``/ws`` conversation through the real AgentCore app on a real socket, with the scripted LLM and a
scripted model server that times every word (0.1 s of audio per word, sent at a set pace)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import pytest
from conversation_client import talk
from scripted_model_server import scripted_model_server
from test_app import agent_for
from websockets.exceptions import ConnectionClosed
from word_server import WORD_S, WordServer

from kokoro_processes.servers import agent_server_thread
from voice_agent.app import create_app
from voice_agent.conversation.history import INTERRUPTED_MARK
from voice_agent.conversation.messages import MAX_AUDIO_FRAME_BYTES, MAX_CLIENT_FRAME_CHARS
from voice_agent.settings import AgentSettings, LlmSettings, TtsSettings

# A bound against a hang, past what a broken agent would take to reach its own verdict; never a verdict itself.
HANG_S = 300
REPLY = "The river is calm today. You could walk along it after lunch, and bring a hat"


async def assert_silent_after(t, end: dict, next_turn: str) -> None:
    """Nothing of the ended turn is heard after its ``turn_end``, judged by order and count, not by a quiet
    window: the next turn is asked for at once, no audio frame comes between the ended turn's ``turn_end``
    and the next turn's ``turn_start``, and the frames up to the next ``turn_end`` are exactly the audio that
    turn reports as its own."""
    await t.send({"type": "prompt", "text": "And then?"})
    following = await t.until("turn_end", turn=next_turn)
    frames = t.received.frames[t.received.frames.index(end) + 1 : t.received.frames.index(following)]
    start = next(i for i, f in enumerate(frames) if isinstance(f, dict) and f["type"] == "turn_start")
    assert not any(isinstance(f, bytes) for f in frames[:start]), f"audio after {end['turn']}'s turn_end"
    heard = sum(len(f) for f in frames[start:] if isinstance(f, bytes)) / 48_000
    assert heard == pytest.approx(following["audio_s"]), f"audio of {end['turn']} inside {next_turn}"


@contextlib.asynccontextmanager
async def conversation_with(
    pace_s: float, reply: str = REPLY, words_after_s: float = 0.0, tokens_per_s: float = 200.0
) -> AsyncIterator[tuple[str, WordServer]]:
    server = WordServer(pace_s, words_after_s)
    async with scripted_model_server(server) as model_url:
        with agent_for(model_url, reply, tokens_per_s=tokens_per_s) as url:
            yield url, server


async def test_a_turn_streams_text_audio_words_and_ends_with_all_heard() -> None:
    async with conversation_with(pace_s=0.0) as (url, _), talk(url) as t:
        ready = await t.next()
        assert ready["type"] == "ready" and ready["sample_rate"] == 24_000 and ready["history"] == []
        await t.send({"type": "prompt", "text": "What should I do?"})
        end = await t.until("turn_end")
    r = t.received
    assert r.events()[1] == {"type": "turn_start", "turn": "t1", "prompt": "What should I do?"}
    assert "".join(e["text"] for e in r.events("text")) == REPLY
    audio = r.audio()
    assert audio and all(len(f) <= MAX_AUDIO_FRAME_BYTES and len(f) % 2 == 0 for f in audio)
    words = [w for e in r.events("words") for w in e["words"]]
    assert [w["text"] for w in words] == REPLY.split()
    # on the TURN's timeline: each piece continues where the audio before it ended
    assert [w["start_s"] for w in words] == pytest.approx([i * WORD_S for i in range(len(words))])
    assert end["turn"] == "t1" and end["interrupted"] is False and end["heard_text"] == REPLY
    assert end["audio_s"] == pytest.approx(sum(map(len, audio)) / 48_000) == pytest.approx(len(words) * WORD_S)


async def test_interrupt_stops_audio_at_once_and_keeps_only_what_was_heard() -> None:
    async with conversation_with(pace_s=0.05) as (url, server):
        async with talk(url, session="s-interrupt-0123456789-0123456789") as t:
            await t.until("ready")
            await t.send({"type": "prompt", "text": "Tell me about the river"})
            await t.until("words")  # the first piece is in: the listener is hearing it
            await t.send({"type": "interrupt", "played_s": 0.25})  # words start at 0.0, 0.1, 0.2, 0.3...
            end = await t.until("turn_end")
            assert end["interrupted"] is True and end["heard_text"] == "The river is"
            assert REPLY.startswith(end["heard_text"]) and end["played_s"] == 0.25
            await asyncio.wait_for(server.closed.wait(), HANG_S)
            assert server.cancels, "the speech session's pieces were not cancelled"
            await assert_silent_after(t, end, "t2")
        async with talk(url, session="s-interrupt-0123456789-0123456789") as again:
            ready = await again.until("ready")
    assert ready["history"][:2] == [
        {"role": "user", "text": "Tell me about the river", "interrupted": False},
        {"role": "assistant", "text": "The river is", "interrupted": True},
    ]


@pytest.mark.parametrize("played_s", [0.15, 0.45])
async def test_an_interrupt_right_after_the_first_audio_frame_keeps_the_words_heard(played_s: float) -> None:
    """The piece's words arrive after its audio: the interrupt waits for them instead of keeping nothing."""
    session = f"s-first-frame-{int(played_s * 100)}-0123456789-0123456789"
    async with conversation_with(pace_s=0.0, words_after_s=0.3) as (url, _):
        async with talk(url, session=session) as t:
            await t.until("ready")
            await t.send({"type": "prompt", "text": "Tell me about the river"})
            await t.first_audio()
            await t.send({"type": "interrupt", "played_s": played_s})
            end = await t.until("turn_end")
        async with talk(url, session=session) as again:
            ready = await again.until("ready")
    heard = "The river" if played_s == 0.15 else "The river is calm today."
    assert end["interrupted"] is True and end["heard_text"] == heard
    assert ready["history"][-1] == {"role": "assistant", "text": heard, "interrupted": True}


async def test_the_next_answer_is_given_the_heard_history() -> None:
    """What the LLM is sent for turn 2: the interrupted answer as heard, marked, then the new prompt."""
    from strands import Agent

    from voice_agent.llm import ScriptedReplyModel

    seen: list = []

    class Recording(ScriptedReplyModel):
        async def stream(self, messages, *args, **kwargs):
            seen.append(json.loads(json.dumps([{"role": m["role"], "content": m["content"]} for m in messages])))
            async for event in super().stream(messages, *args, **kwargs):
                yield event

    server = WordServer(pace_s=0.05)
    settings = AgentSettings(
        tts=TtsSettings(transport="websocket", url="http://127.0.0.1:9", timeout_s=30.0),
        llm=LlmSettings(provider="scripted"),
    )
    async with scripted_model_server(server) as model_url:
        from speech_protocol.transports.websocket import WebSocketConnector

        app = create_app(
            settings,
            connector=WebSocketConnector(model_url),
            new_agent=lambda: Agent(model=Recording(REPLY, 200.0), callback_handler=None),
        )
        with agent_server_thread(app) as url:
            async with talk(url) as t:
                await t.until("ready")
                await t.send({"type": "prompt", "text": "first"})
                await t.until("words")
                await t.send({"type": "prompt", "text": "second", "played_s": 0.15})  # interrupts turn 1
                first_end = await t.until("turn_end", turn="t1")
                await t.until("turn_end", turn="t2")
    assert first_end["interrupted"] is True and first_end["heard_text"] == "The river"
    assert seen[1] == [
        {"role": "user", "content": [{"text": "first"}]},
        {"role": "assistant", "content": [{"text": "The river"}, {"text": INTERRUPTED_MARK}]},
        {"role": "user", "content": [{"text": "second"}]},
    ]


async def test_interrupting_a_finished_turn_still_playing_corrects_its_history() -> None:
    async with conversation_with(pace_s=0.0) as (url, _), talk(url, session="s-late-0123456789-0123456789") as t:
        await t.until("ready")
        await t.send({"type": "prompt", "text": "hi"})
        first = await t.until("turn_end")
        await t.send({"type": "interrupt", "played_s": 0.45})
        late = await t.until("turn_end")
        await t.send({"type": "interrupt", "played_s": 0.1})
        again = await t.until("error")
        await t.send({"type": "prompt", "text": "more"})
        await t.until("turn_end", turn="t2")
        await t.send({"type": "prompt", "text": "and?", "played_s": 0.15})  # t2 was still playing
        cut = await t.until("turn_end", turn="t2")
        await t.until("turn_end", turn="t3")
    assert cut["interrupted"] is True and cut["heard_text"] == "The river"
    assert first["interrupted"] is False
    assert late["turn"] == "t1" and late["interrupted"] is True and late["heard_text"] == "The river is calm today."
    assert again["code"] == "no_turn"


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("not json", "bad_json"),
        ('{"type": "prompt", "text": "hi", "speed": ' + "7" * 4_400 + "}", "bad_json"),  # past Python's int limit
        ("[" * 8_000 + "]" * 8_000, "bad_json"),  # past the recursion limit
        ("[1, 2]", "bad_message"),
        ('{"type": "dance"}', "unknown_type"),
        ('{"type": "prompt"}', "missing_text"),
        ('{"type": "prompt", "text": "  "}', "empty_text"),
        ('{"type": "prompt", "text": 5}', "bad_text"),
        ('{"type": "prompt", "text": "hi", "speed": 9}', "bad_speed"),
        ('{"type": "prompt", "text": "hi", "voice": "../x"}', "bad_voice"),
        ('{"type": "interrupt", "played_s": 1.0}', "no_turn"),
        ('{"type": "interrupt"}', "missing_played_s"),
        ('{"type": "interrupt", "played_s": -1}', "bad_played_s"),
        ('{"type": "interrupt", "played_s": "soon"}', "bad_played_s"),
        ("x" * (MAX_CLIENT_FRAME_CHARS + 1), "frame_too_large"),
        (b"\x00\x01", "bad_frame"),
    ],
)
async def test_bad_input_is_a_typed_error_and_the_conversation_goes_on(frame: str | bytes, code: str) -> None:
    async with conversation_with(pace_s=0.0) as (url, _), talk(url) as t:
        await t.until("ready")
        await t.send(frame)
        err = await t.until("error")
        assert err["code"] == code and err["message"]
        await t.send({"type": "prompt", "text": "still there?"})
        end = await t.until("turn_end")
    assert end["heard_text"] == REPLY


async def test_a_client_vanishing_ends_its_turn_at_once() -> None:
    """The hang-up ends the turn where it is: the speech session closes with only the pieces the LLM had
    written by then sent to be spoken. An agent that went on would send the whole answer (the LLM writes it in
    about 30 s) and close its speech session only once all of it was spoken (two minutes at this pace)."""
    long_reply = "This answer goes on and on. " * 100
    async with conversation_with(pace_s=0.2, reply=long_reply, tokens_per_s=20.0) as (url, server):
        async with talk(url) as t:
            await t.until("ready")
            await t.send({"type": "prompt", "text": "talk"})
            await t.first_audio()
        await asyncio.wait_for(server.closed.wait(), HANG_S)
        sent = sum(len(text.split()) for text in server.texts)
    assert 0 < sent < len(long_reply.split()) // 2, sent


async def test_bye_ends_the_turn_and_closes_the_socket() -> None:
    async with conversation_with(pace_s=0.2) as (url, server), talk(url) as t:
        await t.until("ready")
        await t.send({"type": "prompt", "text": "talk"})
        await t.first_audio()
        await t.send({"type": "bye"})
        with pytest.raises(ConnectionClosed):
            while True:
                await t.next()
        await asyncio.wait_for(server.closed.wait(), HANG_S)
    assert t.connection.close_code == 1000


@pytest.mark.slow
async def test_real_model_server_speaks_a_turn_and_an_interrupt_silences_it(model_server_url: str) -> None:
    from speech import assert_heard

    with agent_for(model_server_url, REPLY, tokens_per_s=40.0) as url:
        async with talk(url) as t:
            await t.until("ready")
            await t.send({"type": "prompt", "text": "What should I do?"})
            whole = await t.until("turn_end")
            pcm = b"".join(t.received.audio())
            await t.send({"type": "prompt", "text": "Again?"})
            await t.first_audio()
            await t.send({"type": "interrupt", "played_s": 0.6})
            cut = await t.until("turn_end", turn="t2")
            await assert_silent_after(t, cut, "t3")
    assert whole["interrupted"] is False and whole["heard_text"] == REPLY
    assert_heard(pcm, 24_000, REPLY, max_wer=0.15)
    assert cut["interrupted"] is True and REPLY.startswith(cut["heard_text"])


async def test_a_session_answers_one_turn_at_a_time_across_sockets() -> None:
    session = "s-busy-0123456789-0123456789-0123"
    async with conversation_with(pace_s=0.2) as (url, _):
        async with talk(url, session) as a, talk(url, session) as b:
            await a.until("ready")
            await b.until("ready")
            await a.send({"type": "prompt", "text": "talk"})
            await a.first_audio()
            await b.send({"type": "prompt", "text": "me too"})
            busy = await b.until("error")
            end = await b.until("turn_end")
            await a.until("turn_end")
        async with talk(url, session) as again:
            ready = await again.until("ready")
    assert busy["code"] == "session_busy" and busy["turn"] == "t1" and end["heard_text"] == ""
    assert [h["text"] for h in ready["history"]] == ["talk", REPLY]  # the refused turn left no trace
