"""This project's pipecat service given what an LLM should not write: ``python pipecat_hostile.py BASE_URL NEXT OUT``.

Runs in .venv-clients. One ``KokoroServerTTSService`` in one running pipeline (the observer of
pipecat_stream.py notes what it pushes) is given, as LLM answers:

1. an empty answer (a response with one empty text frame): it must pass the service, no audio, no error;
2. a 10 KB token with no space in it (a runaway code or URL): the service speaks it, cut into pieces as any
   text, until an ``InterruptionFrame`` at its first audio;
3. NEXT (OUT/next.pcm), with the server's render count read at the interruption and after NEXT.

One JSON line on stdout says what came.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from pipecat.frames.frames import (
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
)
from pipecat.observers.base_observer import FramePushed
from pipecat.pipeline.task import PipelineTask
from pipecat_kokoro_server import KokoroServerTTSService
from pipecat_stream import HANG_S, Watch, renders, running, say

TOKEN = "a1b2c3d4" * 1280  # 10,240 characters, no space


class HostileWatch(Watch):
    """Also sees each LLM response's end leave the service: pipecat is done with that answer's text."""

    def __init__(self, tts: KokoroServerTTSService) -> None:
        super().__init__(tts)
        self.answers_done = asyncio.Queue[None]()

    async def on_push_frame(self, data: FramePushed) -> None:
        await super().on_push_frame(data)
        if data.source is self._tts and isinstance(data.frame, LLMFullResponseEndFrame):
            self.answers_done.put_nowait(None)


async def answer(task: PipelineTask, text: str) -> None:
    await task.queue_frames([LLMFullResponseStartFrame(), LLMTextFrame(text), LLMFullResponseEndFrame()])


async def main(base_url: str, following: str, out: Path) -> None:
    tts = KokoroServerTTSService(base_url=base_url, timeout_s=HANG_S)
    watch = HostileWatch(tts)
    async with running(tts, watch) as task:
        await answer(task, "")
        await asyncio.wait_for(watch.answers_done.get(), HANG_S)
        empty_turns = len(watch.order)  # audio contexts opened for it

        await answer(task, TOKEN)
        token = await watch.turn(empty_turns)
        await asyncio.wait_for(token.heard_audio.wait(), HANG_S)
        token_bytes_at_interrupt = await watch.interrupt(task, empty_turns)
        renders_at_interrupt = renders(base_url)

        await say(task, following)
        nxt = await watch.turn(empty_turns + 1)
        await asyncio.wait_for(nxt.stopped.wait(), HANG_S)
        renders_after_next = renders(base_url)

    (out / "next.pcm").write_bytes(bytes(nxt.audio))
    report = {
        "empty_turns": empty_turns,
        "token_bytes": token_bytes_at_interrupt,
        "token_audio_after_interrupt_bytes": len(token.audio) - token_bytes_at_interrupt,
        "renders_after_interrupt": renders_after_next - renders_at_interrupt,
        "errors": watch.errors,
    }
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
