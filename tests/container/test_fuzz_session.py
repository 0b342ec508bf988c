"""Property-based fuzzing of the session's client frames on the real server: whatever a client sends
(TEXT or BINARY, one or several JSON lines, garbage), every answer is a typed event, the connection stays
up, and an utterance sent afterwards on the same session is spoken.

``close`` is left out of the generated messages: after it the session legitimately ends.
"""

from __future__ import annotations

import json

import websockets
from hostile_values import json_values, request_fields
from hypothesis import given, settings
from hypothesis import strategies as st
from session_client import ended, pcm_bytes, read_until, ws_url

from speech_protocol.client_messages import Synthesize, encode_client_message
from speech_protocol.server_events import StreamDecoder

FUZZ_EXAMPLES = 20
FINAL = "the-final-utterance"  # longer than any generated id, so never cancelled by the fuzz

messages = st.builds(
    lambda fields, kind: {**fields, **({} if kind is None else {"type": kind})},
    request_fields,
    st.none() | st.sampled_from(["synthesize", "cancel", "dance"]) | json_values,
)
json_lines = st.lists(messages, min_size=1, max_size=3).map(lambda ms: "\n".join(json.dumps(m) for m in ms))
frames = st.lists(
    json_lines
    | json_lines.map(str.encode)
    | st.binary(max_size=64)
    | st.sampled_from(["[" * 30_000, '{"speed": ' + "1" * 4_400 + "}", "", "\n\n"]),
    min_size=1,
    max_size=4,
)


@settings(max_examples=FUZZ_EXAMPLES)
@given(sent=frames)
async def test_any_frames_get_typed_events_and_the_session_goes_on(model_server_url, sent):
    async with websockets.connect(ws_url(model_server_url)) as ws:
        for frame in sent:
            await ws.send(frame)
        await ws.send(encode_client_message(Synthesize("Still here.", id=FINAL)))
        # StreamDecoder raises on any event that is not one of the protocol's types.
        events = await read_until(ws, StreamDecoder(), ended(FINAL))
    assert pcm_bytes(events, FINAL) > 0
