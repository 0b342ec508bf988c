"""First audio of a streamed answer in pipecat: this project's service against pipecat's OpenAI TTS.

``python pipecat_first_audio.py BASE_URL SERVER_PIDS TEXT TOKENS_PER_S REPEATS``, run by ``kokoro_bench
frameworks`` in .venv-clients (pipecat as released; set-up installs the service there). Each TTS sits alone in
a running pipeline, and TEXT comes to it as an LLM's answer does: ``LLMFullResponseStartFrame``, a
``LLMTextFrame`` per token at TOKENS_PER_S, ``LLMFullResponseEndFrame``. ``plugin`` is
``pipecat_kokoro_server.KokoroServerTTSService`` (one speech session, pieces cut by the project's segmenter);
``openai_route`` is pipecat's ``OpenAITTSService`` on the model server's OpenAI route (its sentence
aggregator, one request per sentence), voice ``marin``, which the route speaks as ``af_heart``, the plugin's
voice. Each repeat runs both, alternating; one JSON line on stdout gives, for each, the seconds from the first
token to the first audio frame the service pushed and to the last (the turn ends at its ``TTSStoppedFrame``),
the audio's length, and the server's CPU seconds for the answer.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from pipecat.frames.frames import (
    EndFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    TTSAudioRawFrame,
    TTSStoppedFrame,
)
from pipecat.observers.base_observer import BaseObserver, FramePushed
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.services.openai.tts import OpenAITTSService
from pipecat.services.tts_service import TTSService
from pipecat.workers.runner import WorkerRunner
from pipecat_kokoro_server import KokoroServerTTSService
from streamed_answer import answer_figures, server_cpu_s, tokens

from speech_protocol.framing import SAMPLE_RATE

HANG_S = 600.0


class Answer(BaseObserver):
    """The audio one TTS pushes for the answer under way, timed from its first token."""

    def __init__(self, tts: TTSService) -> None:
        super().__init__()
        self._tts = tts
        self.start = time.perf_counter()
        self.first_s: float | None = None
        self.last_s: float | None = None
        self.samples = 0
        self.stopped = asyncio.Event()

    def begin(self) -> None:
        self.start, self.first_s, self.last_s, self.samples = time.perf_counter(), None, None, 0
        self.stopped.clear()

    async def on_push_frame(self, data: FramePushed) -> None:
        if data.source is not self._tts:
            return
        if isinstance(data.frame, TTSAudioRawFrame):
            now = time.perf_counter() - self.start
            self.first_s = now if self.first_s is None else self.first_s
            self.last_s = now
            self.samples += len(data.frame.audio) // 2
        elif isinstance(data.frame, TTSStoppedFrame):
            self.stopped.set()


async def first_audio(
    worker: PipelineWorker, answer: Answer, server_pids: list[int], text: str, tokens_per_s: float
) -> dict:
    cpu_before = server_cpu_s(server_pids)
    answer.begin()
    await worker.queue_frame(LLMFullResponseStartFrame())
    for token in tokens(text):
        await worker.queue_frame(LLMTextFrame(token))
        await asyncio.sleep(1 / tokens_per_s)
    await worker.queue_frame(LLMFullResponseEndFrame())
    await asyncio.wait_for(answer.stopped.wait(), HANG_S)
    return answer_figures(answer.first_s, answer.last_s, answer.samples, server_cpu_s(server_pids) - cpu_before)


async def main(base_url: str, server_pids: list[int], text: str, tokens_per_s: float, repeats: int) -> None:
    engines: dict[str, TTSService] = {
        "plugin": KokoroServerTTSService(
            base_url=base_url, settings=KokoroServerTTSService.Settings(voice="af_heart"), timeout_s=HANG_S
        ),
        "openai_route": OpenAITTSService(
            api_key="not-checked",
            base_url=f"{base_url}/v1",
            settings=OpenAITTSService.Settings(model="kokoro", voice="marin"),
            # As patient as the plugin: pipecat's default 3 s of quiet ends the context, and a loaded CPU server
            # can take longer than that for a sentence's first audio ("completed with no audio").
            stop_frame_timeout_s=HANG_S,
        ),
    }
    runner = WorkerRunner(handle_sigint=False)
    pipelines: dict[str, tuple[PipelineWorker, Answer]] = {}
    for name, tts in engines.items():
        answer = Answer(tts)
        worker = PipelineWorker(
            Pipeline([tts]),
            params=PipelineParams(audio_out_sample_rate=SAMPLE_RATE),
            observers=[answer],
            idle_timeout_secs=None,
        )
        await runner.add_workers(worker)
        pipelines[name] = (worker, answer)
    running = asyncio.create_task(runner.run())
    runs: dict[str, list[dict]] = {name: [] for name in engines}
    try:
        for _ in range(repeats):
            for name, (worker, answer) in pipelines.items():
                runs[name].append(await first_audio(worker, answer, server_pids, text, tokens_per_s))
    except BaseException:
        # Cancelled here, while pipecat's own tasks still run: left to asyncio.run, which cancels every task at
        # once, a worker would wait for ever on the tasks that carry its cancel frame, and the script would hang.
        await runner.cancel()
        raise
    else:
        for worker, _ in pipelines.values():
            await worker.queue_frame(EndFrame())
    finally:
        await asyncio.wait_for(running, HANG_S)
    print(json.dumps(runs))


if __name__ == "__main__":
    asyncio.run(
        main(
            sys.argv[1], [int(pid) for pid in sys.argv[2].split(",")], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
        )
    )
