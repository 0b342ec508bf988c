"""First audio of one answer through a SageMaker endpoint (real or emulated), with the agent's transport.

    SSL_CERT_FILE=... .venv312/bin/python -m kokoro_devtools.sagemaker_emulator.first_audio --endpoint-url https://127.0.0.1:8443

Prints the seconds from opening the stream to the first audio frame (SDK client set-up, TLS and the
signed request included) and the server's advertised real-time factor, which the figure depends on.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from speech_protocol.server_events import Audio
from speech_protocol.transports.sagemaker import SageMakerConnector
from speech_protocol.tts_session import TtsSession
from speech_protocol.voices import DEFAULT_VOICE

PIECES = ("Good evening.", "Your table by the window is ready.")


async def first_audio(endpoint: str, region: str, endpoint_url: str | None, voice: str) -> tuple[float, float | None]:
    connector = SageMakerConnector(endpoint, region, endpoint_url=endpoint_url)
    started = time.monotonic()
    first: float | None = None
    async with TtsSession(connector, timeout_s=120.0) as session:
        for number, text in enumerate(PIECES):
            await session.synthesize(f"p{number}", text, voice, 1.0)
        await session.finish()
        async for event in session.events():
            if isinstance(event, Audio) and first is None:
                first = time.monotonic() - started
        if first is None:
            raise SystemExit("the answer ended without audio")
        return first, session.rtf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoint", default="kokoro-tts")
    parser.add_argument("--region", default="us-east-1")
    parser.add_argument("--endpoint-url", help="a SageMaker runtime instead of AWS's (the emulator)")
    parser.add_argument("--voice", default=DEFAULT_VOICE)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for _ in range(args.runs):
        seconds, rtf = asyncio.run(first_audio(args.endpoint, args.region, args.endpoint_url, args.voice))
        print(f"first audio {seconds:.2f} s after opening the stream (server rtf {rtf})", flush=True)


if __name__ == "__main__":
    main()
