"""This project's LiveKit plugin and pipecat service on a SageMaker endpoint: ``python sagemaker_turns.py
ENDPOINT_URL TEXT OUT``.

Runs in .venv-clients (Python 3.12, with AWS's bidirectional SageMaker client). ENDPOINT_URL is a SageMaker
runtime (the test's emulator, whose CA is in ``SSL_CERT_FILE``) serving an endpoint named ``kokoro-tts``; each
plugin is given ``SageMakerConnector("kokoro-tts", "us-east-1", endpoint_url=ENDPOINT_URL)`` in place of a
model server's URL and speaks TEXT streamed token by token: LiveKit's ``kokoro.TTS`` (OUT/livekit.pcm) and
pipecat's ``KokoroServerTTSService`` in a running pipeline (OUT/pipecat.pcm). One JSON line on stdout says how
many timed words each gave and the errors pipecat's service pushed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from livekit.plugins import kokoro
from livekit_stream import HANG_S, speak
from pipecat_kokoro_server import KokoroServerTTSService
from pipecat_stream import Watch, running, say

from speech_protocol.transports.sagemaker import SageMakerConnector

ENDPOINT = "kokoro-tts"
REGION = "us-east-1"


async def livekit_turn(endpoint_url: str, text: str) -> tuple[bytes, int]:
    tts = kokoro.TTS(connector=SageMakerConnector(ENDPOINT, REGION, endpoint_url=endpoint_url), timeout_s=HANG_S)
    pcm, words, _ = await speak(tts, text)
    await tts.aclose()
    return pcm, len(words)


async def pipecat_turn(endpoint_url: str, text: str) -> tuple[bytes, int, list[dict]]:
    tts = KokoroServerTTSService(
        connector=SageMakerConnector(ENDPOINT, REGION, endpoint_url=endpoint_url), timeout_s=HANG_S
    )
    watch = Watch(tts)
    async with running(tts, watch) as task:
        await say(task, text)
        turn = await watch.turn(0)
        await asyncio.wait_for(turn.stopped.wait(), HANG_S)
    return bytes(turn.audio), len(turn.words), watch.errors


async def main(endpoint_url: str, text: str, out: Path) -> None:
    livekit_pcm, livekit_words = await livekit_turn(endpoint_url, text)
    pipecat_pcm, pipecat_words, errors = await pipecat_turn(endpoint_url, text)
    (out / "livekit.pcm").write_bytes(livekit_pcm)
    (out / "pipecat.pcm").write_bytes(pipecat_pcm)
    print(json.dumps({"livekit_words": livekit_words, "pipecat_words": pipecat_words, "errors": errors}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
