"""What both HTTP front doors (``/invocations`` and the OpenAI routes) do to speak a whole text, written once:
read it (normalizer and G2P, ``runtime.plan``) unless the client hangs up meanwhile, take a listener's share
last (a text refused for its content holds none), speak it chunk by chunk, and stream it encoded, closing the
encoder and releasing the share however the response ends: finished, failed mid-text, or the client gone
before the first byte.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import numpy as np
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse

from kokoro_server.admission import Ticket
from kokoro_server.encoders import Encoder
from kokoro_server.http_requests import runtime_of, unless_hung_up
from kokoro_server.runtime import Spoken
from kokoro_server.scheduler import PlaybackClock
from speech_protocol.client_messages import Synthesize


@dataclass
class Admitted:
    """A text that is read and holds a listener's share until its audio is out."""

    spoken: Spoken  # its chunks, and the audio and word spans spoken so far
    clock: PlaybackClock
    ticket: Ticket

    def end(self, encoder: Encoder) -> None:
        """Close ``encoder`` and give the share back (both idempotent: the stream's end and the response's
        background task may both call it)."""
        encoder.close()
        self.ticket.release()


async def admit(request: Request, synthesize: Synthesize) -> Admitted | None:
    """The text read and a listener's share taken; None when the client hung up while it was read (answer
    499). Every refusal (the text's, the server's) raises, holding no share."""
    runtime = runtime_of(request)
    clock = PlaybackClock()
    chunks = await unless_hung_up(request, runtime.plan(synthesize, clock))
    if chunks is None:
        return None
    return Admitted(Spoken(chunks), clock, runtime.admission.admit())  # last: a text refused for its content holds none


async def spoken_audio(request: Request, admitted: Admitted) -> AsyncIterator[np.ndarray]:
    """Each chunk's audio as the runtime's speaking loop renders it (``admitted.spoken`` keeps the tally)."""
    async for rendered in runtime_of(request).speak(admitted.spoken, admitted.clock):
        yield rendered.audio


def streamed(
    admitted: Admitted, encoder: Encoder, body: AsyncIterator[bytes], media_type: str, headers: dict | None = None
) -> StreamingResponse:
    """``body`` streamed; :meth:`Admitted.end` when it ends or fails, and by the background task when the client
    left before the first byte (the body never started)."""

    async def ending() -> AsyncIterator[bytes]:
        try:
            async for part in body:
                yield part
        finally:
            admitted.end(encoder)

    return StreamingResponse(
        ending(), media_type=media_type, headers=headers, background=BackgroundTask(admitted.end, encoder)
    )
