"""This project's LiveKit plugin against kokoro-serve: ``python livekit_stream.py BASE_URL ANSWER ABORTED NEXT OUT``.

Runs in .venv-clients (setup.sh installs plugins/livekit-plugins-kokoro there). One ``kokoro.TTS``, three
streams on it, each fed token by token as an LLM writes: ANSWER spoken whole (its frames to OUT/answer.pcm,
its timed transcripts collected), ABORTED closed once its first audio has arrived (an interruption), then
NEXT (OUT/next.pcm), with the server's render count read before and after it, and NEXT once more through ``synthesize`` (OUT/chunked.pcm). One JSON line on stdout
says what came: sample rates, the words with their times, the session's errors.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import urllib.request
from pathlib import Path

from livekit.agents.types import USERDATA_TIMED_TRANSCRIPT
from livekit.plugins import kokoro

# The session's patience while audio is owed: only a hang guard, as the shared test machine may be slow.
HANG_S = 600.0


def tokens(text: str) -> list[str]:
    """Roughly how an LLM streams: a word or a mark per delta, the space before a word kept with it."""
    return re.findall(r"\s*\w+|\s*[^\w\s]+", text)


async def push_answer(stream: kokoro.SynthesizeStream, text: str) -> None:
    for token in tokens(text):
        stream.push_text(token)
        await asyncio.sleep(0)  # let the stream run between deltas, as it would between LLM tokens
    stream.end_input()


async def speak(tts: kokoro.TTS, text: str) -> tuple[bytes, list[dict], set[int]]:
    stream = tts.stream()
    feeder = asyncio.create_task(push_answer(stream, text))
    pcm, words, rates = bytearray(), [], set()
    async for event in stream:
        pcm += bytes(event.frame.data)
        rates.add(event.frame.sample_rate)
        for word in event.frame.userdata.get(USERDATA_TIMED_TRANSCRIPT, []):
            words.append({"text": str(word), "start": word.start_time, "end": word.end_time})
    await feeder
    await stream.aclose()
    return bytes(pcm), words, rates


def renders(base_url: str) -> int:
    """How many pieces the server has rendered so far (its /ping counter)."""
    with urllib.request.urlopen(f"{base_url}/ping", timeout=HANG_S) as response:
        return int(json.loads(response.read())["renders"])


async def interrupt(tts: kokoro.TTS, text: str) -> int:
    """Close the stream as soon as its first audio frame is in; the bytes it had delivered by then."""
    stream = tts.stream()
    feeder = asyncio.create_task(push_answer(stream, text))
    first = await anext(stream)
    await stream.aclose()
    await feeder
    return len(first.frame.data)


async def main(base_url: str, answer: str, aborted: str, following: str, out: Path) -> None:
    errors: list[str] = []
    tts = kokoro.TTS(base_url=base_url, timeout_s=HANG_S)
    tts.on("error", lambda error: errors.append(repr(error.error)))
    tts.prewarm()
    pcm, words, rates = await speak(tts, answer)
    (out / "answer.pcm").write_bytes(pcm)
    interrupted_bytes = await interrupt(tts, aborted)
    renders_at_abort = renders(base_url)
    next_pcm, next_words, next_rates = await speak(tts, following)
    renders_after_next = renders(base_url)
    (out / "next.pcm").write_bytes(next_pcm)
    chunked = [event async for event in tts.synthesize(following)]
    (out / "chunked.pcm").write_bytes(b"".join(bytes(event.frame.data) for event in chunked))
    await tts.aclose()
    report = {
        "sample_rates": sorted(rates | next_rates | {event.frame.sample_rate for event in chunked}),
        "answer_seconds": len(pcm) / 2 / 24_000,
        "words": words,
        "next_words": len(next_words),
        "interrupted_bytes": interrupted_bytes,
        "renders_after_abort": renders_after_next - renders_at_abort,
        "errors": errors,
    }
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], Path(sys.argv[5])))
