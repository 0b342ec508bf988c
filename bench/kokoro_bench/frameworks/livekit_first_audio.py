"""First audio of a streamed answer in LiveKit Agents: this project's plugin against LiveKit's OpenAI TTS.

``python livekit_first_audio.py BASE_URL SERVER_PIDS TEXT TOKENS_PER_S REPEATS``, run by ``kokoro_bench frameworks`` in
.venv-clients (LiveKit Agents as released; set-up installs the plugin there). TEXT is pushed token by token at
TOKENS_PER_S, as an LLM writes, into each TTS's stream: ``plugin`` is ``livekit.plugins.kokoro.TTS`` (one
speech session, pieces cut by the project's segmenter); ``openai_route`` is ``livekit.plugins.openai.TTS``
on the model server's OpenAI route, which is not a streaming TTS, so LiveKit speaks it as an agent does,
through ``tts.StreamAdapter`` (one request per sentence of its own sentence tokenizer). Each repeat runs
both, alternating; one JSON line on stdout gives, for each, the seconds from the first token to the first
audio frame and to the last, the audio's length, and the server's CPU seconds for the answer.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from livekit.agents import tts as lk_tts
from livekit.plugins import kokoro, openai
from streamed_answer import answer_figures, server_cpu_s, tokens

HANG_S = 600.0


async def first_audio(engine: lk_tts.TTS, server_pids: list[int], text: str, tokens_per_s: float) -> dict:
    stream = engine.stream()
    cpu_before = server_cpu_s(server_pids)
    start = time.perf_counter()

    async def feed() -> None:
        for token in tokens(text):
            stream.push_text(token)
            await asyncio.sleep(1 / tokens_per_s)
        stream.end_input()

    feeder = asyncio.create_task(feed())
    first = last = None
    samples = 0
    async for event in stream:
        now = time.perf_counter() - start
        first = now if first is None else first
        last = now
        samples += event.frame.samples_per_channel
    await feeder
    await stream.aclose()
    return answer_figures(first, last, samples, server_cpu_s(server_pids) - cpu_before)


async def main(base_url: str, server_pids: list[int], text: str, tokens_per_s: float, repeats: int) -> None:
    plugin = kokoro.TTS(base_url=base_url, timeout_s=HANG_S)
    plugin.prewarm()
    route = lk_tts.StreamAdapter(
        tts=openai.TTS(base_url=f"{base_url}/v1", api_key="not-checked", model="kokoro", voice="af_heart")
    )
    runs: dict[str, list[dict]] = {"plugin": [], "openai_route": []}
    for _ in range(repeats):
        for name, engine in (("plugin", plugin), ("openai_route", route)):
            runs[name].append(await first_audio(engine, server_pids, text, tokens_per_s))
    await plugin.aclose()
    await route.aclose()
    print(json.dumps(runs))


if __name__ == "__main__":
    asyncio.run(
        main(
            sys.argv[1], [int(pid) for pid in sys.argv[2].split(",")], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
        )
    )
