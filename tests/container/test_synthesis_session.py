"""The bidirectional session on a real socket: the known traps, ordering, cancel and bad input."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
import websockets
from session_client import ends, pcm_bytes, read_until, ws_url

from speech_protocol.client_messages import Close, Synthesize, encode_client_message
from speech_protocol.http.server_status import read_status
from speech_protocol.server_events import Audio, End, Error, Ready, Start, StreamDecoder, Words


def renders(base_url: str) -> int:
    """The parts the server has rendered so far (its /ping counter; each sentence of a text is a part)."""
    return read_status(base_url).renders


async def test_binary_frame_message_is_spoken(model_server_url):
    """The SageMaker SDK sends BINARY frames by default; they must work like TEXT ones."""
    async with websockets.connect(ws_url(model_server_url)) as ws:
        await ws.send(encode_client_message(Synthesize("Binary frames work.", id="b1")).encode())
        events = await read_until(ws, StreamDecoder(), ends(1))
    ready = events[0]
    assert isinstance(ready, Ready)
    # The pace measured at warm-up on the real weights: clients size their pieces from both figures.
    assert ready.rtf > 0 and ready.piece_overhead_s >= 0
    assert [type(e) for e in events if not isinstance(e, Audio)] == [Ready, Start, Words, End]
    assert pcm_bytes(events, "b1") > 24000  # over half a second of audio


async def test_many_utterances_pipelined_in_order_last_without_punctuation(model_server_url):
    texts = ["The first sentence.", "A second one follows!", "And the last has no full stop"]
    async with websockets.connect(ws_url(model_server_url)) as ws:
        for i, text in enumerate(texts):  # sent back to back, no waiting
            await ws.send(encode_client_message(Synthesize(text, id=f"s{i}")))
        events = await read_until(ws, StreamDecoder(), ends(3))
    order = [e.id for e in events if isinstance(e, (Start, End))]
    assert order == ["s0", "s0", "s1", "s1", "s2", "s2"]
    last = next(e for e in events if isinstance(e, End) and e.id == "s2")
    assert last.audio_s > 1.0 and pcm_bytes(events, "s2") == round(last.audio_s * 24000) * 2
    assert all(not e.cancelled for e in events if isinstance(e, End))


async def test_real_stream_reassembles_after_arbitrary_resplitting(model_server_url):
    """What the platform may do to response parts: concatenate and cut anywhere."""
    raw: list[bytes] = []
    async with websockets.connect(ws_url(model_server_url)) as ws:
        await ws.send(encode_client_message(Synthesize("Split me anywhere, please.", id="x")))
        original = await read_until(ws, StreamDecoder(), ends(1), raw)
    data = b"".join(raw)
    rng = random.Random(7)
    for _ in range(20):
        cuts = sorted(rng.sample(range(1, len(data)), rng.randint(1, 200)))
        decoder, events = StreamDecoder(), []
        for a, b in zip([0, *cuts], [*cuts, len(data)]):
            events += decoder.feed(data[a:b])
        assert events == original and decoder.pending == 0


async def test_bad_messages_get_errors_and_session_goes_on(model_server_url):
    bad = [
        "{oops",
        b"\xff\xfe",
        '{"type": "dance"}',
        '{"text": ""}',
        '{"text": "hi", "speed": 99}',
        json.dumps({"text": "hi", "voice": "zz_nobody", "id": "v"}),
        "[]",
    ]
    async with websockets.connect(ws_url(model_server_url)) as ws:
        for frame in bad:
            await ws.send(frame)
        await ws.send(encode_client_message(Synthesize("Still talking.", id="ok")))
        events = await read_until(ws, StreamDecoder(), lambda ev: any(isinstance(e, End) for e in ev))
    codes = [e.code for e in events if isinstance(e, Error)]
    assert codes == [
        "bad_json",
        "bad_encoding",
        "unknown_type",
        "empty_text",
        "bad_speed",
        "unknown_voice",
        "bad_message",
    ]
    assert next(e for e in events if isinstance(e, Error) and e.code == "unknown_voice").id == "v"
    assert pcm_bytes(events, "ok") > 0


async def test_cancel_stops_the_current_utterance(model_server_url):
    """Cancelled at its first audio, the twelve-sentence utterance (twelve parts, ~34 s of audio) stops where it
    is: the server renders at most the part it was in and one more (its render counter), not the rest."""
    long_text = " ".join(f"This is sentence number {i} of a long paragraph." for i in range(12))
    renders_before = renders(model_server_url)
    async with websockets.connect(ws_url(model_server_url)) as ws:
        await ws.send(encode_client_message(Synthesize(long_text, id="long")))
        decoder = StreamDecoder()
        await read_until(ws, decoder, lambda ev: any(isinstance(e, Audio) for e in ev))
        await ws.send('{"type": "cancel", "id": "long"}')
        await ws.send(encode_client_message(Synthesize("After the cancel.", id="next")))
        events = await read_until(ws, decoder, ends(2))
    end = next(e for e in events if isinstance(e, End) and e.id == "long")
    assert end.cancelled
    assert renders(model_server_url) - renders_before <= 3, "rendered on past the cancel"  # long's 1-2, next's 1
    assert pcm_bytes(events, "next") > 0


async def test_close_finishes_queued_work_then_closes(model_server_url):
    async with websockets.connect(ws_url(model_server_url)) as ws:
        await ws.send(encode_client_message(Synthesize("Queued before close.", id="q")))
        await ws.send(encode_client_message(Close()))
        await ws.send(encode_client_message(Synthesize("Too late.", id="late")))
        decoder, events = StreamDecoder(), []
        with pytest.raises(websockets.ConnectionClosedOK):
            while True:
                events += decoder.feed(await asyncio.wait_for(ws.recv(), timeout=60))
    assert any(isinstance(e, End) and e.id == "q" for e in events)
    assert [e.code for e in events if isinstance(e, Error)] == ["session_closing"]


async def test_new_session_accepted_while_another_synthesizes(model_server_url):
    """A session opened while another's long text is being rendered is greeted and served between that text's
    parts: its piece waits in the queue for a small part of the long text's synthesis, not all of it."""
    long_text = " ".join(f"Busy sentence {i} keeps the model working." for i in range(8))
    async with websockets.connect(ws_url(model_server_url)) as busy:
        await busy.send(encode_client_message(Synthesize(long_text, id="busy")))
        busy_decoder = StreamDecoder()
        busy_events = await read_until(busy, busy_decoder, lambda ev: any(isinstance(e, Start) for e in ev))
        async with websockets.connect(ws_url(model_server_url)) as second:
            ready = StreamDecoder().feed(await asyncio.wait_for(second.recv(), timeout=10))
            await second.send(encode_client_message(Synthesize("Me too.", id="m")))
            events = await read_until(second, StreamDecoder(), ends(1))
        busy_events += await read_until(busy, busy_decoder, ends(1))
    assert isinstance(ready[0], Ready) and pcm_bytes(events, "m") > 0
    mine = next(e for e in events if isinstance(e, End))
    theirs = next(e for e in busy_events if isinstance(e, End))
    assert mine.queued_s < 0.5 * theirs.synth_s, (mine, theirs)


async def test_client_vanishing_mid_utterance_leaves_server_healthy(model_server_url):
    for _ in range(3):
        ws = await websockets.connect(ws_url(model_server_url))
        await ws.send(encode_client_message(Synthesize("I will hang up on you now. " * 5)))
        ws.transport.abort()  # a TCP reset: no closing handshake
    async with websockets.connect(ws_url(model_server_url)) as ws:
        await ws.send(encode_client_message(Synthesize("Healthy.", id="h")))
        events = await read_until(ws, StreamDecoder(), ends(1))
    assert pcm_bytes(events, "h") > 0


async def test_oversized_frame_closes_only_that_session(model_server_url):
    async with websockets.connect(ws_url(model_server_url), max_size=None) as ws:
        await ws.recv()
        await ws.send(b"x" * (2 << 20))
        with pytest.raises(websockets.ConnectionClosed) as info:
            await asyncio.wait_for(ws.recv(), timeout=30)
    assert info.value.rcvd is None or info.value.rcvd.code == 1009
    async with websockets.connect(ws_url(model_server_url)) as ws:
        await ws.send(encode_client_message(Synthesize("Next session.", id="n")))
        assert pcm_bytes(await read_until(ws, StreamDecoder(), ends(1)), "n") > 0


async def test_frame_over_protocol_limit_is_an_error_not_a_close(model_server_url):
    async with websockets.connect(ws_url(model_server_url)) as ws:
        await ws.send(b"{" * (100 * 1024))
        await ws.send(encode_client_message(Synthesize("Fine.", id="f")))
        events = await read_until(ws, StreamDecoder(), ends(2))
    assert [e.code for e in events if isinstance(e, Error)] == ["frame_too_large"]


async def test_a_bare_text_never_takes_an_id_the_client_used(model_server_url):
    """The server names a bare ``{"text"}`` ``u<n>``; a client that already used ``u1`` and ``u2`` keeps
    them to itself, so every ``end`` names one utterance."""
    async with websockets.connect(ws_url(model_server_url)) as ws:
        await ws.send(json.dumps({"type": "synthesize", "id": "u1", "text": "One."}))
        await ws.send(json.dumps({"type": "synthesize", "id": "u2", "text": "Two."}))
        await ws.send(json.dumps({"text": "Three."}))
        events = await read_until(ws, StreamDecoder(), ends(3))
    assert [e.id for e in events if isinstance(e, End)] == ["u1", "u2", "u3"]
