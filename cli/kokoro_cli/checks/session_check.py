"""One utterance over a bidirectional session, sent the way the SageMaker SDK sends it: BINARY frames.

The check is the shared client session (:class:`speech_protocol.tts_session.TtsSession`) with
``binary_frames=True``; only the connector differs between a local server (WebSocket) and a deployed
endpoint (SageMaker's bidirectional stream). Replies are decoded by the session, so parts split or
merged anywhere still decode.
"""

from __future__ import annotations

import asyncio
import time

from kokoro_cli.checks.smoke_report import CheckResult, Outcome, judge_pcm
from speech_protocol.errors import TtsProtocolError, TtsServerError, TtsSessionClosed, TtsTimeout, TtsUnreachable
from speech_protocol.framing import SAMPLE_RATE, SAMPLE_WIDTH
from speech_protocol.server_events import Audio, End
from speech_protocol.transports.part_stream import Connector
from speech_protocol.tts_session import TtsSession

SMOKE_ID = "smoke"
MAX_AUDIO_S = 60.0  # a one-sentence smoke text never needs more; a server streaming on is broken
# SageMaker's ErrorCode when the container dropped its socket: before any audio, the BINARY-frame bug's mark.
STREAM_BROKEN = "StreamBroken"
BINARY_FRAME_HINT = (
    "the server ended the session without answering a BINARY frame; a server that reads frames with "
    "receive_text() fails on every real SageMaker request while /ping stays green"
)


def _failed(name: str, detail: str, started: float) -> CheckResult:
    return CheckResult(name, Outcome.FAILED, detail, elapsed_s=round(time.monotonic() - started, 3))


async def speak_once(
    connector: Connector, text: str, voice: str | None, name: str = "session", timeout_s: float = 60.0
) -> CheckResult:
    """Send one synthesize message and a close, each as a BINARY frame; pass on its whole audio.
    Raises :class:`~speech_protocol.errors.TtsTransportUnavailable` where the transport cannot run."""
    started = time.monotonic()
    pcm = bytearray()
    limit = int(MAX_AUDIO_S * SAMPLE_RATE * SAMPLE_WIDTH)
    try:
        async with TtsSession(connector, timeout_s=timeout_s, binary_frames=True) as session:
            async with asyncio.timeout(timeout_s):  # inside: closing the session is bounded on its own
                await session.synthesize(SMOKE_ID, text, voice, 1.0)
                await session.finish()
                async for event in session.events():
                    if isinstance(event, Audio) and event.id == SMOKE_ID:
                        pcm += event.pcm
                        if len(pcm) > limit:
                            return _failed(name, f"over {MAX_AUDIO_S:.0f} s of audio for one sentence", started)
                    if isinstance(event, End) and event.id == SMOKE_ID:
                        return judge_pcm(name, bytes(pcm), time.monotonic() - started)
    except TtsUnreachable as err:
        return _failed(name, err.message, started)
    except TtsServerError as err:
        if err.server_code == STREAM_BROKEN and not pcm:
            return _failed(name, f"{err.message} before any audio: {BINARY_FRAME_HINT}", started)
        return _failed(name, f"server error {err.message}", started)
    except (TimeoutError, TtsTimeout):
        return _failed(name, f"no end of the utterance within {timeout_s:.0f} s ({len(pcm)} audio bytes)", started)
    except TtsProtocolError as err:
        return _failed(name, f"the reply does not follow the session protocol: {err.message}", started)
    except TtsSessionClosed as err:
        if not pcm:
            return _failed(name, f"{err.message} before any audio: {BINARY_FRAME_HINT}", started)
        return _failed(name, f"{err.message} before the utterance's end event ({len(pcm)} audio bytes)", started)
    return _failed(name, f"the session ended without the utterance's end event ({len(pcm)} audio bytes)", started)
