"""This project's pipecat service in a real pipeline against kokoro-serve: ``python pipecat_stream.py BASE_URL
ANSWER ABORTED NEXT OUT``.

Runs in .venv-clients (setup.sh installs plugins/pipecat-kokoro-server there). One
``KokoroServerTTSService`` in one ``PipelineTask``, and the turns an LLM would give it, each an
``LLMFullResponseStartFrame``, its text as ``LLMTextFrame`` tokens and an ``LLMFullResponseEndFrame``:

1. ANSWER, whole (OUT/answer.pcm), its word frames' times kept;
2. ABORTED, interrupted by an ``InterruptionFrame`` once its first audio has left the service;
3. NEXT (OUT/next.pcm), with the server's render count read before and after it;
4. NEXT as a ``TTSSpeakFrame`` after a settings update to another voice and speed 1.4 (OUT/faster.pcm);
5. NEXT with a voice the server does not have (an error, no audio), then 6. NEXT streamed once more with the
   first settings back (OUT/after_error.pcm).

An observer on the pipeline notes every frame the service pushes, with the pipeline clock's time. One JSON
line on stdout says what came.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from pipecat.frames.frames import (
    EndFrame,
    ErrorFrame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    TTSAudioRawFrame,
    TTSSpeakFrame,
    TTSStartedFrame,
    TTSStoppedFrame,
    TTSTextFrame,
    TTSUpdateSettingsFrame,
)
from pipecat.observers.base_observer import BaseObserver, FramePushed
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.runner import PipelineRunner
from pipecat.pipeline.task import PipelineParams, PipelineTask
from pipecat_kokoro_server import KokoroServerTTSService

# The session's patience while audio is owed: only a hang guard, as the shared test machine may be slow.
HANG_S = 600.0
NS = 1e9


def tokens(text: str) -> list[str]:
    """Roughly how an LLM streams: a word or a mark per delta, the space before a word kept with it."""
    return re.findall(r"\s*\w+|\s*[^\w\s]+", text)


def renders(base_url: str) -> int:
    """How many pieces the server has rendered so far (its /ping counter)."""
    with urllib.request.urlopen(f"{base_url}/ping", timeout=HANG_S) as response:
        return int(json.loads(response.read())["renders"])


@dataclass
class Turn:
    """What the service pushed for one audio context."""

    audio: bytearray = field(default_factory=bytearray)
    first_audio_ns: int | None = None
    last_audio_ns: int | None = None
    words: list[tuple[str, int]] = field(default_factory=list)
    heard_audio: asyncio.Event = field(default_factory=asyncio.Event)
    stopped: asyncio.Event = field(default_factory=asyncio.Event)


class Watch(BaseObserver):
    """Every frame the service pushes, by audio context, with the pipeline clock's time."""

    def __init__(self, tts: KokoroServerTTSService) -> None:
        super().__init__()
        self._tts = tts
        self.turns: dict[str, Turn] = {}
        self.order: list[str] = []
        self.started = asyncio.Event()
        self.errors: list[dict] = []
        self.interrupted_ns: int | None = None
        # Each turn's audio bytes when the service passed an InterruptionFrame on (it has handled it then):
        # whatever it pushes for an interrupted turn after that is audio of a turn that was stopped.
        self.audio_at_interrupt: dict[str, int] = {}
        self.interrupt_passed = asyncio.Event()

    async def on_push_frame(self, data: FramePushed) -> None:
        frame = data.frame
        if isinstance(frame, InterruptionFrame) and data.destination is self._tts:
            self.interrupted_ns = data.timestamp
        if isinstance(frame, InterruptionFrame) and data.source is self._tts:
            self.audio_at_interrupt = {context_id: len(turn.audio) for context_id, turn in self.turns.items()}
            self.interrupt_passed.set()
        if data.source is not self._tts:
            return
        if isinstance(frame, ErrorFrame):
            category = getattr(frame, "category", None)
            self.errors.append({"error": frame.error, "category": getattr(category, "value", None)})
            return
        context_id = getattr(frame, "context_id", None)
        if context_id is None:
            return
        if isinstance(frame, TTSStartedFrame) and context_id not in self.turns:
            self.turns[context_id] = Turn()
            self.order.append(context_id)
            self.started.set()
        turn = self.turns.get(context_id)
        if turn is None:
            return
        if isinstance(frame, TTSAudioRawFrame):
            turn.audio += frame.audio
            turn.first_audio_ns = turn.first_audio_ns or data.timestamp
            turn.last_audio_ns = data.timestamp
            turn.heard_audio.set()
        elif isinstance(frame, TTSTextFrame) and frame.pts is not None:
            turn.words.append((frame.text, frame.pts))
        elif isinstance(frame, TTSStoppedFrame):
            turn.stopped.set()

    async def interrupt(self, task: PipelineTask, index: int) -> int:
        """Interrupt the pipeline; the index-th turn's audio bytes once the service has handled it."""
        self.interrupt_passed.clear()
        await task.queue_frame(InterruptionFrame())
        await asyncio.wait_for(self.interrupt_passed.wait(), HANG_S)
        return self.audio_at_interrupt.get(self.order[index], 0)

    async def turn(self, index: int) -> Turn:
        """The index-th audio context the service opened (waiting for it)."""
        while len(self.order) <= index:
            self.started.clear()
            await asyncio.wait_for(self.started.wait(), HANG_S)
        return self.turns[self.order[index]]


@contextlib.asynccontextmanager
async def running(tts: KokoroServerTTSService, watch: Watch) -> AsyncIterator[PipelineTask]:
    """``tts`` alone in a running pipeline, ``watch`` observing it; on leaving, an EndFrame ends the pipeline
    and its run is awaited (cancelled instead if the block failed)."""
    task = PipelineTask(
        Pipeline([tts]), params=PipelineParams(audio_out_sample_rate=24_000), observers=[watch], idle_timeout_secs=None
    )
    runner = asyncio.create_task(PipelineRunner(handle_sigint=False).run(task))
    try:
        yield task
        await task.queue_frame(EndFrame())
        await asyncio.wait_for(runner, HANG_S)
    finally:
        if not runner.done():
            runner.cancel()


async def say(task: PipelineTask, text: str) -> None:
    await task.queue_frame(LLMFullResponseStartFrame())
    for token in tokens(text):
        await task.queue_frame(LLMTextFrame(token))
        await asyncio.sleep(0)
    await task.queue_frame(LLMFullResponseEndFrame())


async def drive(task: PipelineTask, watch: Watch, base_url: str, texts: tuple[str, str, str]) -> dict:
    answer, aborted, following = texts
    Settings = KokoroServerTTSService.Settings
    await say(task, answer)
    first = await watch.turn(0)
    await asyncio.wait_for(first.stopped.wait(), HANG_S)

    await say(task, aborted)
    cut = await watch.turn(1)
    await asyncio.wait_for(cut.heard_audio.wait(), HANG_S)
    cut_bytes_at_interrupt = await watch.interrupt(task, 1)
    renders_at_abort = renders(base_url)

    await say(task, following)
    nxt = await watch.turn(2)
    await asyncio.wait_for(nxt.stopped.wait(), HANG_S)
    renders_after_next = renders(base_url)

    await task.queue_frame(TTSUpdateSettingsFrame(delta=Settings(voice="am_michael", speed=1.4)))
    await task.queue_frame(TTSSpeakFrame(following))
    faster = await watch.turn(3)
    await asyncio.wait_for(faster.stopped.wait(), HANG_S)

    await task.queue_frame(TTSUpdateSettingsFrame(delta=Settings(voice="zz_nobody")))
    await task.queue_frame(TTSSpeakFrame(following))
    refused = await watch.turn(4)
    await asyncio.wait_for(refused.stopped.wait(), HANG_S)

    await task.queue_frame(TTSUpdateSettingsFrame(delta=Settings(voice="af_heart", speed=1.0)))
    await say(task, following)
    again = await watch.turn(5)
    await asyncio.wait_for(again.stopped.wait(), HANG_S)

    base = first.first_audio_ns or 0
    last_cut = cut.last_audio_ns or 0
    return {
        "pcm": {"answer": first.audio, "next": nxt.audio, "faster": faster.audio, "after_error": again.audio},
        "answer_words": [{"text": text, "start": (pts - base) / NS} for text, pts in first.words],
        "next_words": len(nxt.words),
        "interrupted_bytes": cut_bytes_at_interrupt,
        "audio_after_interrupt_bytes": len(cut.audio) - cut_bytes_at_interrupt,
        "interrupt_to_silence_ms": max(0.0, (last_cut - (watch.interrupted_ns or last_cut)) / 1e6),
        "renders_after_abort": renders_after_next - renders_at_abort,
        "refused_bytes": len(refused.audio),
    }


async def main(base_url: str, answer: str, aborted: str, following: str, out: Path) -> None:
    tts = KokoroServerTTSService(base_url=base_url, timeout_s=HANG_S)
    watch = Watch(tts)
    async with running(tts, watch) as task:
        report = await drive(task, watch, base_url, (answer, aborted, following))
    for name, pcm in report.pop("pcm").items():
        (out / f"{name}.pcm").write_bytes(bytes(pcm))
    report["errors"] = watch.errors
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], Path(sys.argv[5])))
