"""pipecat's OpenAITTSService against kokoro-serve in a real pipeline: ``python pipecat_tts.py BASE_URL
TEXT OUT``.

Runs in .venv-clients (tests/frameworks/requirements.txt). The service asks for ``response_format="pcm"``
at 24 kHz and only sends OpenAI's voice names (it refuses others), here ``marin``. The audio frames that
reach the next processor are written to OUT as PCM16; one JSON line on stdout says their sample rate.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from pipecat.frames.frames import EndFrame, ErrorFrame, Frame, TTSAudioRawFrame, TTSSpeakFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.runner import PipelineRunner
from pipecat.pipeline.task import PipelineParams, PipelineTask
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.openai.tts import OpenAITTSService


class Collect(FrameProcessor):
    """The pipeline's last processor: keeps the audio and any error that reaches it."""

    def __init__(self) -> None:
        super().__init__()
        self.audio = bytearray()
        self.rates: set[int] = set()
        self.errors: list[str] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TTSAudioRawFrame):
            self.audio += frame.audio
            self.rates.add(frame.sample_rate)
        elif isinstance(frame, ErrorFrame):
            self.errors.append(frame.error)
        await self.push_frame(frame, direction)


async def main(base_url: str, text: str, out: Path) -> None:
    tts = OpenAITTSService(
        api_key="not-checked",
        base_url=base_url,
        settings=OpenAITTSService.Settings(model="kokoro", voice="marin"),
        stop_frame_timeout_s=60.0,  # as docs/openai-api.md says: a loaded CPU server can be quiet for over 3 s
    )
    collect = Collect()
    task = PipelineTask(Pipeline([tts, collect]), params=PipelineParams(audio_out_sample_rate=24_000))
    await task.queue_frames([TTSSpeakFrame(text), EndFrame()])
    await PipelineRunner(handle_sigint=False).run(task)
    out.write_bytes(bytes(collect.audio))
    print(json.dumps({"sample_rates": sorted(collect.rates), "errors": collect.errors}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
