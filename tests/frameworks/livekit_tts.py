"""LiveKit Agents' OpenAI TTS class against kokoro-serve: ``python livekit_tts.py BASE_URL FORMAT TEXT OUT``.

Runs in .venv-clients (tests/frameworks/requirements.txt). With ``model="kokoro"`` the plugin asks for
``stream_format="sse"`` (it keeps plain audio for tts-1 and tts-1-hd) and decodes ``response_format``
with its own decoder; the frames it hands an agent are written to OUT as PCM16, and one JSON line on
stdout says their sample rate and count.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from livekit.plugins import openai


async def main(base_url: str, fmt: str, text: str, out: Path) -> None:
    tts = openai.TTS(base_url=base_url, api_key="not-checked", model="kokoro", voice="af_heart", response_format=fmt)
    frames = [event.frame async for event in tts.synthesize(text)]
    await tts.aclose()
    out.write_bytes(b"".join(bytes(frame.data) for frame in frames))
    print(json.dumps({"sample_rate": frames[0].sample_rate, "frames": len(frames)}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])))
