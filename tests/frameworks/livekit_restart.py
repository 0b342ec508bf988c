"""This project's LiveKit plugin across a model server restart: ``python livekit_restart.py BASE_URL TEXT OUT``.

Runs in .venv-clients. One ``kokoro.TTS`` speaks TEXT (OUT/before.pcm), prints ``spoken`` and waits for a
line on stdin, while the test kills the model server and starts a new one on the same address; then the
same TTS speaks TEXT again (OUT/after.pcm). One JSON line on stdout says what each turn delivered and the
errors the TTS reported.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from livekit.plugins import kokoro
from livekit_stream import HANG_S, push_answer


async def speak(tts: kokoro.TTS, text: str) -> bytes:
    stream = tts.stream()
    feeder = asyncio.create_task(push_answer(stream, text))
    pcm = bytearray()
    async for event in stream:
        pcm += bytes(event.frame.data)
    await feeder
    await stream.aclose()
    return bytes(pcm)


async def main(base_url: str, text: str, out: Path) -> None:
    errors: list[str] = []
    tts = kokoro.TTS(base_url=base_url, timeout_s=HANG_S)
    tts.on("error", lambda error: errors.append(type(error.error).__name__))
    (out / "before.pcm").write_bytes(await speak(tts, text))
    print("spoken", flush=True)
    await asyncio.to_thread(sys.stdin.readline)  # the server is restarted meanwhile
    (out / "after.pcm").write_bytes(await speak(tts, text))
    await tts.aclose()
    print(json.dumps({"errors": errors}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
