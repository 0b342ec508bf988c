"""Server overhead: the server's time to first audio for a piece over the engine's own time, in-process.

The engine is loaded in this process through the server's own :class:`~kokoro_server.runtime.SpeechRuntime`
(same settings, same warm-up) and called directly, bypassing the scheduler and the socket. Each piece is
timed both ways in turn while the other side is idle, so they never compete for the CPU. The server's
time is the client's: from sending the message to the first audio event, wire and all.

The same pieces also give a real-time factor measured on sentence-sized pieces (synthesis seconds per
audio second, from each piece's End), which the run records beside the rtf the server advertises in
Ready, as a check on it: the server measures that one on its own sentence-length warm-up text
(``WARM_UP_TEXT``), and it is the one the pipelined strategy, like the agent, sizes its pieces from.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from kokoro_server.assets import AssetError, resolve
from kokoro_server.environment import ServerEnvironment
from kokoro_server.runtime import SpeechRuntime
from kokoro_server.settings import ServerSettings
from kokoro_server.text.reading import Reading
from speech_protocol.environment import from_env
from speech_protocol.errors import TtsError
from speech_protocol.server_events import Audio, End
from speech_protocol.transports.websocket import WebSocketConnector
from speech_protocol.tts_session import TtsSession

from ..errors import BenchError
from ..stats import median_of


@dataclass(frozen=True)
class PieceOverhead:
    text: str
    engine_s: float  # in-process: G2P + first chunk
    server_s: float  # client-observed: message sent -> first audio event
    ratio: float
    audio_s: float
    server_synth_s: float  # the server's own synthesis time for the whole piece (End.synth_s)


@dataclass(frozen=True)
class Overhead:
    pieces: tuple[PieceOverhead, ...]
    median_ratio: float
    median_extra_s: float  # server minus engine, seconds per piece: what the socket and scheduler add
    longest_piece_s: float  # the slowest piece in-process: the longest a session can wait for another's
    rtf: float  # median synthesis seconds per audio second of the pieces, as the server measured them


async def measure_overhead(
    url: str, pieces: list[str], *, engine: str, device: str, voice: str, openings: tuple[str, ...] = ()
) -> Overhead:
    """``pieces`` (sentences) give every figure; ``openings`` (short pieces) are timed too, for the speech
    model's fit, but kept out of the real-time factor, which is the sentences' as the server's is."""
    if not pieces:
        raise BenchError("no pieces to measure the server overhead on")
    runtime = await load_engine(engine, device, voice)
    try:
        results = []
        for piece in [*pieces, *openings]:
            engine_s = _engine_first_audio(runtime, piece, voice)
            server_s, end = await _server_first_audio(url, piece, voice)
            results.append(
                PieceOverhead(
                    piece,
                    round(engine_s, 4),
                    round(server_s, 4),
                    round(server_s / engine_s, 3),
                    end.audio_s,
                    end.synth_s,
                )
            )
    finally:
        runtime.close()
    return Overhead(
        pieces=tuple(results),
        median_ratio=median_of([r.ratio for r in results], "server/engine first-audio ratio"),
        median_extra_s=median_of([r.server_s - r.engine_s for r in results], "server overhead"),
        longest_piece_s=max(r.engine_s for r in results),
        rtf=median_of(
            [r.server_synth_s / r.audio_s for r in results[: len(pieces)] if r.audio_s > 0], "rtf (no piece had audio)"
        ),
    )


# The server's path variables (KOKORO_ONNX_MODEL, ...): the server the benchmark starts inherits them, and
# the in-process engine must load the same files.
_PATH_FIELDS = ("onnx_model", "torch_model", "voices_dir", "config", "assets_dir")


def _server_paths() -> dict[str, Path]:
    found = from_env(ServerEnvironment, os.environ)
    return {name: found[name] for name in _PATH_FIELDS if name in found}


async def load_engine(engine: str, device: str, voice: str) -> SpeechRuntime:
    """The server's own loading and warm-up, run in this process, from the files the server loads."""
    try:
        runtime = SpeechRuntime(
            ServerSettings(engine=engine, device=device, voice=voice), resolve(engine, **_server_paths())
        )
    except (AssetError, ValueError) as err:
        raise BenchError(f"cannot load the engine in-process: {err}") from err
    await runtime.load()
    if runtime.synthesizer is None:
        runtime.close()
        raise BenchError(f"the engine failed to load in-process: {runtime.load_error}")
    return runtime


def _engine_first_audio(runtime: SpeechRuntime, piece: str, voice: str) -> float:
    synth, pool = runtime.synthesizer, runtime.g2p_pool
    if synth is None or pool is None:
        raise BenchError("the in-process engine is not loaded")
    start = time.perf_counter()
    chunks = Reading(piece, synth.voice(voice), 1.0, pool.read).whole()
    synth.render(chunks[0])
    return time.perf_counter() - start


async def _server_first_audio(url: str, piece: str, voice: str) -> tuple[float, End]:
    first: float | None = None
    try:
        async with TtsSession(WebSocketConnector(url), timeout_s=120) as session:
            start = time.perf_counter()
            await session.synthesize("overhead", piece, voice, 1.0)
            await session.finish()
            async for event in session.events():
                if isinstance(event, Audio) and first is None:
                    first = time.perf_counter() - start
                elif isinstance(event, End):
                    if first is None:
                        raise BenchError(f"the server spoke no audio for {piece[:40]!r}")
                    return first, event
    except TtsError as err:
        raise BenchError(f"server overhead: {err.code}: {err.message}") from err
    raise BenchError("the server ended the session without ending the piece")
