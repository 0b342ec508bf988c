"""Everything the agent sends on one conversation socket goes through here, one frame at a time.

Two tasks write to a socket (the connection loop answers messages while a turn streams), so sends are
serialised. Events are encoded here, by :func:`~voice_agent.conversation.events.to_frame`. Audio is cut into frames of at most 32 KiB, and a turn's audio passes a gate: once the
listener interrupts, the gate closes before the turn's task is even cancelled, so not one more audio
frame of that turn leaves the agent.
"""

from __future__ import annotations

import asyncio
from typing import Any

from speech_protocol.framing import SAMPLE_WIDTH

from .events import ConversationEvent, to_frame
from .messages import MAX_AUDIO_FRAME_BYTES

# Whole samples per frame, so a client may decode each frame on its own.
_FRAME = MAX_AUDIO_FRAME_BYTES - MAX_AUDIO_FRAME_BYTES % SAMPLE_WIDTH


class AudioGate:
    """Open while a turn may still be heard; :meth:`close` is immediate and final."""

    def __init__(self) -> None:
        self.open = True

    def close(self) -> None:
        self.open = False


class Outbox:
    def __init__(self, websocket: Any):
        self._websocket = websocket
        self._lock = asyncio.Lock()

    async def send(self, event: ConversationEvent) -> None:
        async with self._lock:
            await self._websocket.send_text(to_frame(event))

    async def audio(self, pcm: bytes, gate: AudioGate) -> int:
        """Send ``pcm`` in frames while ``gate`` is open; returns the bytes that were sent."""
        sent = 0
        for start in range(0, len(pcm), _FRAME):
            async with self._lock:
                if not gate.open:
                    return sent
                await self._websocket.send_bytes(pcm[start : start + _FRAME])
            sent += min(_FRAME, len(pcm) - start)
        return sent
