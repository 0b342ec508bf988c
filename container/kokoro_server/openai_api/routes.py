"""The OpenAI speech routes, on the pipeline ``/invocations`` uses: the same body reader and bounds, the
same normalizer and G2P (``runtime.plan``), the same scheduler (``runtime.render``, one piece per
sentence, the first first) and the same admission control, taken after the text was read so a refused
text holds no listener's share.

``stream_format: "audio"`` streams the encoded container as each piece is made; ``"sse"`` sends the same
bytes as ``speech.audio.delta`` events (base64 ``audio``), then ``speech.audio.done`` with ``usage``.
``/v1/audio/speech/timestamps`` answers one JSON document: the whole encoded audio and each written
word's time span in it (the spans a session's ``words`` event carries).
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from kokoro_server.admission import ServerBusy, Ticket
from kokoro_server.encoders import MEDIA_TYPES, Encoder, open_encoder
from kokoro_server.engine.word_timing import WordTimeline
from kokoro_server.errors import RequestError
from kokoro_server.g2p_pool import G2PFailed
from kokoro_server.openai_api.errors import openai_error
from kokoro_server.openai_api.request import MODELS, ParamError, SpeechRequest, parse_speech
from kokoro_server.openai_api.voices import OPENAI_VOICES
from kokoro_server.runtime import Chunk, NotReady, Rendered, SpeechRuntime
from kokoro_server.scheduler import PlaybackClock
from speech_protocol.messages import SAMPLE_RATE, ProtocolError

ReadJson = Callable[[Request], Awaitable[dict]]
UnlessHungUp = Callable[[Request, Awaitable[Any]], Awaitable[Any]]
REFUSED = (RequestError, ProtocolError, NotReady, ServerBusy, G2PFailed, ValueError)
# usage.output_tokens counts audio in the model's own unit, a 25 ms duration frame (600 samples).
AUDIO_TOKEN_SAMPLES = 600
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
        frames = math.ceil(self.samples / AUDIO_TOKEN_SAMPLES)
        return {"input_tokens": phonemes, "output_tokens": frames, "total_tokens": phonemes + frames}


def _runtime(request: Request) -> SpeechRuntime:
    return request.app.state.runtime


async def _rendered(runtime: SpeechRuntime, admitted: Admitted) -> AsyncIterator[Rendered]:
    """Each piece's audio as it is synthesized, ordered with every other listener's by the scheduler."""
    for chunk in admitted.chunks:
        rendered = await runtime.render(chunk, admitted.clock)
        admitted.clock.played(len(rendered.audio) / SAMPLE_RATE)
        admitted.samples += len(rendered.audio)
        yield rendered


async def _encoded(runtime: SpeechRuntime, admitted: Admitted, encoder: Encoder) -> AsyncIterator[bytes]:
    """The container's bytes, piece by piece; encoding runs on a thread, off the event loop."""
    async for rendered in _rendered(runtime, admitted):
        data = await asyncio.to_thread(encoder.encode, rendered.audio)
        if data:
            yield data
    tail = await asyncio.to_thread(encoder.finish)
    if tail:
        yield tail


def sse_event(event: dict) -> bytes:
    return f"data: {json.dumps(event)}\n\n".encode()


async def _sse(admitted: Admitted, audio: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    async for data in audio:
        yield sse_event({"type": "speech.audio.delta", "audio": base64.b64encode(data).decode("ascii")})
    yield sse_event({"type": "speech.audio.done", "usage": admitted.usage()})


def openai_routes(read_json: ReadJson, unless_hung_up: UnlessHungUp) -> list[Route]:
    """The routes, given the server's body reader and its hang-up guard (kokoro_server.server)."""

    async def admit(request: Request, *, timestamps: bool = False) -> Admitted | Response:
        """Read and check the body, read the text (G2P), then take a listener's share; or the refusal."""
        runtime = _runtime(request)
        try:
            speech = parse_speech(await read_json(request))
            if timestamps and speech.stream_format != "audio":
                raise ParamError("bad_stream_format", "the timestamps route answers one JSON document", "stream_format")
            clock = PlaybackClock()
            plan = runtime.plan(speech.input, speech.voice, speech.speed, clock, normalize=speech.normalize)
            chunks = await unless_hung_up(request, plan)
            if chunks is None:
                return Response(status_code=499)  # nobody is listening; the status only reaches the log
            return Admitted(speech, chunks, clock, runtime.admission.admit())
        except REFUSED as exc:
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
                audio = _encoded(_runtime(request), admitted, encoder)
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

        async def speak() -> tuple[bytes, WordTimeline]:
            timeline = WordTimeline(admitted.chunks[0].words)
            parts = []
            async for rendered in _rendered(_runtime(request), admitted):
                timeline.add(rendered.spans, len(rendered.audio))
                parts.append(await asyncio.to_thread(encoder.encode, rendered.audio))
            parts.append(await asyncio.to_thread(encoder.finish))
            return b"".join(parts), timeline

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

    return [
        Route("/v1/audio/speech", speech, methods=["POST"]),
        Route("/v1/audio/speech/timestamps", timestamps, methods=["POST"]),
        Route("/v1/audio/voices", voices, methods=["GET"]),
        Route("/v1/models", models, methods=["GET"]),
    ]


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
    """``GET /v1/audio/voices``: every voice this server speaks, OpenAI's names and their Kokoro voices."""
    runtime = _runtime(request)
    synth = runtime.synthesizer
    if synth is None:
        return openai_error(NotReady("model failed to load" if runtime.load_error else "model is loading"))
    body = {"voices": [*synth.voices.names, *OPENAI_VOICES], "aliases": OPENAI_VOICES, "default": synth.default_voice}
    return JSONResponse(body)
