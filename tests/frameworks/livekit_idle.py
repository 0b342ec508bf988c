"""This project's LiveKit plugin while the last piece's audio is owed: ``python livekit_idle.py BASE_URL``.

Runs in .venv-clients, against a scripted server that speaks the stream's one piece in part and then holds
its end. Once the stream's first audio frame is out (the text is all sent, only the piece's end is owed),
the process's CPU seconds over one second of waiting are read; then the stream is closed (its cancel reaches
the server). One JSON line on stdout gives them: a stream that waits for the server's next event uses almost
none, one that spins uses the second whole.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from livekit.plugins import kokoro

WAIT_S = 1.0


async def main(base_url: str) -> None:
    tts = kokoro.TTS(base_url=base_url, timeout_s=60)
    stream = tts.stream()
    stream.push_text("Hello there.")
    stream.end_input()
    frames = aiter(stream)
    await anext(frames)
    before = time.process_time()
    await asyncio.sleep(WAIT_S)
    waiting_cpu_s = time.process_time() - before
    await stream.aclose()
    await tts.aclose()
    print(json.dumps({"waiting_cpu_s": round(waiting_cpu_s, 3), "wait_s": WAIT_S}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
