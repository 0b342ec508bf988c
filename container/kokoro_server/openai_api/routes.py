"""The OpenAI speech routes, on the pipeline ``/invocations`` uses: the same body reader and bounds
(``kokoro_server.http_requests``), the same normalizer and G2P (``runtime.plan``), the same speaking loop
(``runtime.speak``, one chunk per sentence, the first first), the same encoders and the same admission control, taken after the text was read so a refused
text holds no listener's share.

``stream_format: "audio"`` streams the encoded container as each chunk is rendered; ``"sse"`` sends the same
bytes as ``speech.audio.delta`` events (base64 ``audio``), then ``speech.audio.done`` with ``usage``.
``/v1/audio/speech/timestamps`` answers one JSON document: the whole encoded audio and each written
word's time span in it (the spans a session's ``words`` event carries).
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from kokoro_server.encoders import MEDIA_TYPES, encoded, open_encoder
from kokoro_server.front_door import Admitted, admit, spoken_audio, streamed
from kokoro_server.http_requests import read_json, runtime_of, unless_hung_up
from kokoro_server.openai_api.errors import openai_error
from kokoro_server.openai_api.request import MODELS, ParamError, SpeechRequest, parse_speech
from kokoro_server.openai_api.voices import OPENAI_VOICES
from kokoro_server.runtime import NotReady
from speech_protocol.framing import SAMPLE_RATE

SSE = "text/event-stream"


def usage(admitted: Admitted) -> dict[str, int]:
    """OpenAI's usage: phonemes the model read in, 25 ms audio frames out."""
    phonemes = sum(len(chunk.phonemes) for chunk in admitted.spoken.chunks)
    frames = admitted.spoken.frames()
    return {"input_tokens": phonemes, "output_tokens": frames, "total_tokens": phonemes + frames}


def sse_event(event: dict) -> bytes:
    return f"data: {json.dumps(event)}\n\n".encode()


async def _sse(admitted: Admitted, audio: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    async for data in audio:
        yield sse_event({"type": "speech.audio.delta", "audio": base64.b64encode(data).decode("ascii")})
    yield sse_event({"type": "speech.audio.done", "usage": usage(admitted)})


async def admit_speech(request: Request, *, timestamps: bool = False) -> tuple[SpeechRequest, Admitted] | Response:
    """Read and check the body, read the text (G2P), then take a listener's share; or the refusal."""
    try:
        speech = parse_speech(await read_json(request))
        if timestamps and speech.stream_format != "audio":
            raise ParamError("bad_stream_format", "the timestamps route answers one JSON document", "stream_format")
        admitted = await admit(request, speech.synthesize())
        if admitted is None:
            return Response(status_code=499)  # nobody is listening; the status only reaches the log
        return speech, admitted
    except Exception as exc:  # every refusal, and a fault before any audio
        return openai_error(exc)


async def speech(request: Request) -> Response:
    """``POST /v1/audio/speech``: audio bytes, or SSE events, streamed from the first chunk on."""
    found = await admit_speech(request)
    if isinstance(found, Response):
        return found
    speech, admitted = found
    encoder = open_encoder(speech.response_format)
    audio = encoded(spoken_audio(request, admitted), encoder)
    if speech.stream_format == "sse":
        return streamed(admitted, encoder, _sse(admitted, audio), SSE, _request_id())
    return streamed(admitted, encoder, audio, MEDIA_TYPES[speech.response_format], _request_id())


async def timestamps(request: Request) -> Response:
    """``POST /v1/audio/speech/timestamps``: the whole audio and each written word's span in it."""
    found = await admit_speech(request, timestamps=True)
    if isinstance(found, Response):
        return found
    speech, admitted = found
    encoder = open_encoder(speech.response_format)

    async def speak() -> bytes:
        return b"".join([part async for part in encoded(spoken_audio(request, admitted), encoder)])

    try:
        audio = await unless_hung_up(request, speak())
    except Exception as exc:  # the engine failed mid-text: a 500 in the same shape
        return openai_error(exc)
    finally:
        admitted.end(encoder)
    if audio is None:
        return Response(status_code=499)
    return JSONResponse(
        {
            "audio": base64.b64encode(audio).decode("ascii"),
            "response_format": speech.response_format,
            "content_type": MEDIA_TYPES[speech.response_format],
            "sample_rate": SAMPLE_RATE,
            "duration_s": round(admitted.spoken.samples / SAMPLE_RATE, 4),
            "words": [{"text": w.text, "start_s": w.start_s, "end_s": w.end_s} for w in admitted.spoken.words()],
            "usage": usage(admitted),
        },
        headers=_request_id(),
    )


def _request_id() -> dict[str, str]:
    """OpenAI's ``x-request-id`` header: the SDK exposes it and LiveKit logs its absence."""
    return {"x-request-id": f"req_{uuid.uuid4().hex}"}


async def models(request: Request) -> Response:
    """``GET /v1/models``: the model names this server answers to (any other name is accepted too)."""
    data = [{"id": name, "object": "model", "created": 0, "owned_by": "kokoro-serve"} for name in MODELS]
    return JSONResponse({"object": "list", "data": data})


async def voices(request: Request) -> Response:
    """``GET /v1/audio/voices``: every voice this server speaks, OpenAI's names and their Kokoro voices, and
    each Kokoro voice's language."""
    runtime = runtime_of(request)
    synth = runtime.synthesizer
    if synth is None:
        return openai_error(NotReady("model failed to load" if runtime.load_error else "model is loading"))
    body = {
        "voices": [*synth.voices.names, *OPENAI_VOICES],
        "aliases": OPENAI_VOICES,
        "default": synth.default_voice,
        "languages": synth.voices.languages,
    }
    return JSONResponse(body)


OPENAI_ROUTES = [
    Route("/v1/audio/speech", speech, methods=["POST"]),
    Route("/v1/audio/speech/timestamps", timestamps, methods=["POST"]),
    Route("/v1/audio/voices", voices, methods=["GET"]),
    Route("/v1/models", models, methods=["GET"]),
]
