"""A scripted model server that times every word: what the conversation needs from a speech session."""

from __future__ import annotations

import asyncio

from scripted_model_server import PCM_CHUNK, Peer, greet

from speech_protocol.client_messages import Cancel, Close, Synthesize
from speech_protocol.server_events import Audio, End, Start, Words

WORD_S = 0.1  # seconds of audio per word, as PCM_CHUNK holds


class WordServer:
    """Speaks as the real server does: each piece after ``pace_s`` per word of "synthesis", as ``start``,
    its audio (one chunk of WORD_S per word), its ``words`` (``words_after_s`` later) and ``end``; records
    the cancels it receives, each piece's text and voice, and when each session closes."""

    def __init__(self, pace_s: float, words_after_s: float = 0.0):
        self.pace_s = pace_s
        self.words_after_s = words_after_s  # a piece's words come this long after its audio (later chunks)
        self.cancels: list[Cancel] = []
        self.voices: list[str | None] = []  # each synthesize message's voice, in order
        self.texts: list[str] = []  # and its text
        self.closed = asyncio.Event()

    async def __call__(self, peer: Peer) -> None:
        await greet(peer)
        queue: asyncio.Queue = asyncio.Queue()
        gone = asyncio.Event()  # this session's socket closed: its "synthesis" stops, as the real server's does

        async def read() -> None:
            try:
                while True:
                    message = await peer.next_message()
                    if isinstance(message, Cancel):
                        self.cancels.append(message)
                    queue.put_nowait(message)
            finally:
                queue.put_nowait(None)
                gone.set()
                self.closed.set()

        reader = asyncio.create_task(read())
        try:
            while isinstance(message := await queue.get(), Synthesize):
                self.voices.append(message.voice)
                self.texts.append(message.text)
                words = message.text.split()
                if await _happens_within(gone, self.pace_s * len(words)):  # "synthesis", at WORD_S / pace_s real time
                    return
                await peer.send(Start(id=message.id))
                await peer.send(*(Audio(id=message.id, seq=i, pcm=PCM_CHUNK) for i in range(len(words))))
                spans = [
                    {"text": w, "start_s": round(i * WORD_S, 3), "end_s": round((i + 1) * WORD_S, 3)}
                    for i, w in enumerate(words)
                ]
                await asyncio.sleep(self.words_after_s)
                await peer.send(Words(id=message.id, words=spans))
                await peer.send(
                    End(id=message.id, audio_s=WORD_S * len(words), first_audio_s=0.0, synth_s=0.0, queued_s=0.0)
                )
            assert message is None or isinstance(message, (Close, Cancel)), message
        finally:
            reader.cancel()


async def _happens_within(event: asyncio.Event, seconds: float) -> bool:
    """Wait ``seconds``, or less if ``event`` is set first; whether it was."""
    try:
        await asyncio.wait_for(event.wait(), seconds)
    except TimeoutError:
        return False
    return True
