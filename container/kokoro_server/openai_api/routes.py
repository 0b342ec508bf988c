"""The OpenAI speech routes, on the pipeline ``/invocations`` uses: the same body reader and bounds
(``kokoro_server.http_requests``), the same normalizer and G2P (``runtime.plan``), the same speaking loop
(``runtime.speak``, one piece per sentence, the first first), the same encoders and the same admission control, taken after the text was read so a refused
text holds no listener's share.

``stream_format: "audio"`` streams the encoded container as each piece is made; ``"sse"`` sends the same
bytes as ``speech.audio.delta`` events (base64 ``audio``), then ``speech.audio.done`` with ``usage``.
``/v1/audio/speech/timestamps`` answers one JSON document: the whole encoded audio and each written
word's time span in it (the spans a session's ``words`` event carries).
"""

from __future__ import annotations

import base64
import json
import math
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import numpy as np
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from kokoro_server.admission import Ticket
from kokoro_server.encoders import MEDIA_TYPES, Encoder, encoded, open_encoder
from kokoro_server.engine.backend import FRAME_SAMPLES
from kokoro_server.engine.synthesizer import Rendered
from kokoro_server.engine.word_timing import WordTimeline
from kokoro_server.http_requests import read_json, runtime_of, unless_hung_up
from kokoro_server.openai_api.errors import openai_error
from kokoro_server.openai_api.request import MODELS, ParamError, SpeechRequest, parse_speech
from kokoro_server.openai_api.voices import OPENAI_VOICES
from kokoro_server.runtime import NotReady, SpeechRuntime
from kokoro_server.scheduler import PlaybackClock
from kokoro_server.text.chunks import Chunk
from speech_protocol.framing import SAMPLE_RATE

SSE = "text/event-stream"


@dataclass
class Admitted:
    """A request whose text is read and that holds a listener's share until its audio is out."""

    speech: SpeechRequest
    chunks: list[Chunk]
    clock: PlaybackClock
    ticket: Ticket
    samples: int = 0

    def usage(self) -> dict[str, int]:
        """OpenAI's usage: phonemes the model read in, 25 ms audio frames out."""
        phonemes = sum(len(chunk.phonemes) for chunk in self.chunks)
        frames = math.ceil(self.samples / FRAME_SAMPLES)
        return {"input_tokens": phonemes, "output_tokens": frames, "total_tokens": phonemes + frames}


async def _spoken(runtime: SpeechRuntime, admitted: Admitted) -> AsyncIterator[Rendered]:
    """Each piece as the runtime's speaking loop renders it, its samples counted for ``usage``."""
    async for rendered in runtime.speak(admitted.chunks, admitted.clock):
        admitted.samples += len(rendered.audio)
        yield rendered


def sse_event(event: dict) -> bytes:
    return f"data: {json.dumps(event)}\n\n".encode()


async def _sse(admitted: Admitted, audio: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    async for data in audio:
        yield sse_event({"type": "speech.audio.delta", "audio": base64.b64encode(data).decode("ascii")})
    yield sse_event({"type": "speech.audio.done", "usage": admitted.usage()})


async def admit(request: Request, *, timestamps: bool = False) -> Admitted | Response:
    """Read and check the body, read the text (G2P), then take a listener's share; or the refusal."""
    runtime = runtime_of(request)
    try:
        speech = parse_speech(await read_json(request))
        if timestamps and speech.stream_format != "audio":
            raise ParamError("bad_stream_format", "the timestamps route answers one JSON document", "stream_format")
        clock = PlaybackClock()
        plan = runtime.plan(
            speech.input, speech.voice, speech.speed, clock, normalize=speech.normalize, language=speech.language
        )
        chunks = await unless_hung_up(request, plan)
        if chunks is None:
            return Response(status_code=499)  # nobody is listening; the status only reaches the log
        return Admitted(speech, chunks, clock, runtime.admission.admit())
    except Exception as exc:  # every refusal, and a fault before any audio
        return openai_error(exc)


async def speech(request: Request) -> Response:
    """``POST /v1/audio/speech``: audio bytes, or SSE events, streamed from the first piece on."""
    admitted = await admit(request)
    if isinstance(admitted, Response):
        return admitted
    fmt = admitted.speech.response_format
    encoder = open_encoder(fmt)

    async def body() -> AsyncIterator[bytes]:
        try:
            audio = encoded((r.audio async for r in _spoken(runtime_of(request), admitted)), encoder)
            async for part in _sse(admitted, audio) if admitted.speech.stream_format == "sse" else audio:
                yield part
        finally:
            encoder.close()
            admitted.ticket.release()

    media_type = SSE if admitted.speech.stream_format == "sse" else MEDIA_TYPES[fmt]
    # The share is released by the background task too when the client left before the first byte.
    return StreamingResponse(
        body(), media_type=media_type, headers=_request_id(), background=_release(admitted, encoder)
    )


async def timestamps(request: Request) -> Response:
    """``POST /v1/audio/speech/timestamps``: the whole audio and each written word's span in it."""
    admitted = await admit(request, timestamps=True)
    if isinstance(admitted, Response):
        return admitted
    encoder = open_encoder(admitted.speech.response_format)

    timeline = WordTimeline(admitted.chunks[0].words)

    async def timed() -> AsyncIterator[np.ndarray]:
        async for rendered in _spoken(runtime_of(request), admitted):
            timeline.add(rendered.spans, len(rendered.audio))
            yield rendered.audio

    async def speak() -> tuple[bytes, WordTimeline]:
        return b"".join([part async for part in encoded(timed(), encoder)]), timeline

    try:
        spoken = await unless_hung_up(request, speak())
    except Exception as exc:  # the engine failed mid-text: a 500 in the same shape
        return openai_error(exc)
    finally:
        encoder.close()
        admitted.ticket.release()
    if spoken is None:
        return Response(status_code=499)
    audio, timeline = spoken
    return JSONResponse(
        {
            "audio": base64.b64encode(audio).decode("ascii"),
            "response_format": admitted.speech.response_format,
            "content_type": MEDIA_TYPES[admitted.speech.response_format],
            "sample_rate": SAMPLE_RATE,
            "duration_s": round(admitted.samples / SAMPLE_RATE, 4),
            "words": [{"text": w.text, "start_s": w.start_s, "end_s": w.end_s} for w in timeline.spans()],
            "usage": admitted.usage(),
        },
        headers=_request_id(),
    )


def _request_id() -> dict[str, str]:
    """OpenAI's ``x-request-id`` header: the SDK exposes it and LiveKit logs its absence."""
    return {"x-request-id": f"req_{uuid.uuid4().hex}"}


def _release(admitted: Admitted, encoder: Encoder) -> BackgroundTask:
    def release() -> None:
        encoder.close()
        admitted.ticket.release()

    return BackgroundTask(release)


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
