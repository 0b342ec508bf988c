"""This project's LiveKit plugin inside LiveKit's own ``AgentSession``: ``python livekit_session.py BASE_URL
ANSWER ABORTED NEXT OUT``.

Runs in .venv-clients. An ``AgentSession`` with ``kokoro.TTS`` as its TTS and no room: its audio output is a
recorder (an ``AudioOutput`` that keeps the frames and reports each segment played at once). The session speaks
as an agent does, ``session.say`` given the text as an async stream of LLM-sized tokens:

1. ANSWER, whole (OUT/answer.pcm);
2. ABORTED, interrupted (``SpeechHandle.interrupt``) once its first frame reached the output: the audio it
   had sent when the session cleared the output, and any after;
3. NEXT (OUT/next.pcm);
4. an empty text, 5. NEXT with a voice the server does not have (LiveKit's error event, no audio), and
   6. NEXT with the first voice back (OUT/after_error.pcm).

One JSON line on stdout says what came: the interrupted turn's audio before and after its interruption, the
server's renders from the interruption to the end of NEXT (its render counter), and the errors the session
reported.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from livekit import rtc
from livekit.agents import Agent, AgentSession
from livekit.agents.voice.io import AudioOutput, AudioOutputCapabilities
from livekit.plugins import kokoro
from livekit_stream import HANG_S, renders, tokens


class Recorder(AudioOutput):
    """The session's audio output: every frame kept; a segment counts as played once flushed."""

    def __init__(self) -> None:
        super().__init__(label="recorder", capabilities=AudioOutputCapabilities(pause=False))
        self.pcm = bytearray()
        self.frame_arrived = asyncio.Event()
        self.bytes_when_cleared: int | None = None  # when the session last stopped a segment (an interruption)
        self._segment_samples = 0

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        await super().capture_frame(frame)
        self.pcm += bytes(frame.data)
        self._segment_samples += frame.samples_per_channel
        self.frame_arrived.set()

    def flush(self) -> None:
        super().flush()
        self._finish(interrupted=False)

    def clear_buffer(self) -> None:
        self.bytes_when_cleared = len(self.pcm)
        self._finish(interrupted=True)

    def _finish(self, *, interrupted: bool) -> None:
        if self._pending_playback_count:
            self.on_playback_finished(playback_position=self._segment_samples / 24_000, interrupted=interrupted)
        self._segment_samples = 0


async def streamed(text: str) -> AsyncIterator[str]:
    for token in tokens(text):
        yield token
        await asyncio.sleep(0)


async def main(base_url: str, answer: str, aborted: str, following: str, out: Path) -> None:
    errors: list[dict] = []
    tts = kokoro.TTS(base_url=base_url, timeout_s=HANG_S)
    session = AgentSession(tts=tts)
    session.on("error", lambda event: errors.append({"type": type(event.error).__name__, "error": str(event.error)}))
    recorder = Recorder()
    session.output.audio = recorder
    await session.start(agent=Agent(instructions="Answer in short sentences."))

    await asyncio.wait_for(session.say(streamed(answer)).wait_for_playout(), HANG_S)
    (out / "answer.pcm").write_bytes(bytes(recorder.pcm))

    recorder.pcm.clear()
    recorder.frame_arrived.clear()
    cut = session.say(streamed(aborted))
    await asyncio.wait_for(recorder.frame_arrived.wait(), HANG_S)
    cut.interrupt()
    renders_at_abort = renders(base_url)
    await asyncio.wait_for(cut.wait_for_playout(), HANG_S)
    # Frames LiveKit had in hand when interrupt() was called still reach the output until it clears the
    # segment; after that, nothing more of the interrupted turn may come.
    interrupted_bytes = recorder.bytes_when_cleared or 0
    after_interrupt_bytes = len(recorder.pcm) - interrupted_bytes
    recorder.pcm.clear()

    await asyncio.wait_for(session.say(streamed(following)).wait_for_playout(), HANG_S)
    (out / "next.pcm").write_bytes(bytes(recorder.pcm))
    renders_after_abort = renders(base_url) - renders_at_abort
    errors_before_bad_input = list(errors)

    recorder.pcm.clear()
    await asyncio.wait_for(session.say("").wait_for_playout(), HANG_S)
    empty_bytes = len(recorder.pcm)
    tts.update_options(voice="zz_nobody")
    await asyncio.wait_for(session.say(streamed(following)).wait_for_playout(), HANG_S)
    refused_bytes = len(recorder.pcm) - empty_bytes
    tts.update_options(voice="af_heart")
    recorder.pcm.clear()
    await asyncio.wait_for(session.say(streamed(following)).wait_for_playout(), HANG_S)
    (out / "after_error.pcm").write_bytes(bytes(recorder.pcm))
    report = {
        "interrupted_bytes": interrupted_bytes,
        "audio_after_interrupt_bytes": after_interrupt_bytes,
        "renders_after_abort": renders_after_abort,
        "errors_before_bad_input": errors_before_bad_input,
        "empty_bytes": empty_bytes,
        "refused_bytes": refused_bytes,
        "errors": errors,
    }
    await session.aclose()
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], Path(sys.argv[5])))
