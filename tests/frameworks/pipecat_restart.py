"""This project's pipecat service across a model server restart: ``python pipecat_restart.py BASE_URL TEXT OUT``.

Runs in .venv-clients. One ``KokoroServerTTSService`` in one running pipeline speaks TEXT as a streamed LLM
answer (OUT/before.pcm), prints ``spoken`` and waits for a line on stdin, while the test kills the model
server and starts a new one on the same address; then the same service, in the same pipeline, speaks TEXT
again (OUT/after.pcm). One JSON line on stdout lists the errors the service pushed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from pipecat_kokoro_server import KokoroServerTTSService
from pipecat_stream import HANG_S, Watch, running, say


async def main(base_url: str, text: str, out: Path) -> None:
    tts = KokoroServerTTSService(base_url=base_url, timeout_s=HANG_S)
    watch = Watch(tts)
    async with running(tts, watch) as task:
        for index, name in enumerate(("before", "after")):
            if index:
                await asyncio.to_thread(sys.stdin.readline)  # the server is restarted meanwhile
            await say(task, text)
            turn = await watch.turn(index)
            await asyncio.wait_for(turn.stopped.wait(), HANG_S)
            (out / f"{name}.pcm").write_bytes(bytes(turn.audio))
            if not index:
                print("spoken", flush=True)
    print(json.dumps({"errors": watch.errors}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
