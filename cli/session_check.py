"""One utterance over a bidirectional session, sent the way the SageMaker SDK sends it: a BINARY frame.

The same exchange runs over a WebSocket to a local server and over SageMaker's bidirectional stream to a
deployed endpoint; only the :class:`Channel` differs. Replies are reassembled with the protocol's
:class:`~kokoro_server.protocol.StreamDecoder`, so parts split or merged anywhere still decode.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Protocol

from cli.smoke_report import CheckResult, Outcome, judge_pcm
from kokoro_server.protocol import (
    SAMPLE_RATE,
    SAMPLE_WIDTH,
    Audio,
    Close,
    End,
    Error,
    StreamDecoder,
    Synthesize,
    encode_client_message,
)

SMOKE_ID = "smoke"
MAX_AUDIO_S = 60.0  # a one-sentence smoke text never needs more; a server streaming on is broken
BINARY_FRAME_HINT = (
    "the server ended the session without answering a BINARY frame; a server that reads frames with "
    "receive_text() fails on every real SageMaker request while /ping stays green"
)


class ChannelError(Exception):
    """The channel broke while sending; the message says how (refused, closed, stream failure)."""


class Channel(Protocol):
    """A duplex byte channel: what the check needs from a WebSocket or a SageMaker stream."""

    async def send_binary(self, data: bytes) -> None:
        """Send ``data`` as one BINARY frame/part; raise :class:`ChannelError` when that fails."""
    def parts(self) -> AsyncIterator[bytes | str]: ...
    def closed_reason(self) -> str | None: ...


def _failed(name: str, detail: str, started: float) -> CheckResult:
    return CheckResult(name, Outcome.FAILED, detail, elapsed_s=round(time.monotonic() - started, 3))


async def speak_once(
    channel: Channel, text: str, voice: str | None, name: str = "session", timeout_s: float = 60.0
) -> CheckResult:
    """Send one synthesize message and a close, each as a BINARY frame; pass on its whole audio."""
    started = time.monotonic()
    decoder, pcm = StreamDecoder(), bytearray()
    limit = int(MAX_AUDIO_S * SAMPLE_RATE * SAMPLE_WIDTH)
    try:
        async with asyncio.timeout(timeout_s):
            await channel.send_binary(
                encode_client_message(Synthesize(text=text, id=SMOKE_ID, voice=voice)).encode()
            )
            await channel.send_binary(encode_client_message(Close()).encode())
            async for part in channel.parts():
                for event in decoder.feed(part):
                    if isinstance(event, Error):
                        return _failed(name, f"server error {event.code}: {event.message}", started)
                    if isinstance(event, Audio) and event.id == SMOKE_ID:
                        pcm += event.pcm
                        if len(pcm) > limit:
                            return _failed(name, f"over {MAX_AUDIO_S:.0f} s of audio for one sentence", started)
                    if isinstance(event, End) and event.id == SMOKE_ID:
                        return judge_pcm(name, bytes(pcm), time.monotonic() - started)
    except ChannelError as err:
        return _failed(name, f"sending failed: {err}", started)
    except TimeoutError:
        return _failed(name, f"no end of the utterance within {timeout_s:.0f} s ({len(pcm)} audio bytes)", started)
    except (ValueError, TypeError, AttributeError, KeyError) as err:  # StreamDecoder on a malformed reply
        return _failed(name, f"the reply does not follow the session protocol: {err}", started)
    closed = channel.closed_reason() or "the session ended"
    if not pcm:
        return _failed(name, f"{closed} before any audio: {BINARY_FRAME_HINT}", started)
    return _failed(name, f"{closed} before the utterance's end event ({len(pcm)} audio bytes)", started)
