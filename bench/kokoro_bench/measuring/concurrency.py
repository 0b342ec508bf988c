"""Several sessions on one server at once: does each first piece still come quickly, and is throughput kept?

Each session runs the pipelined strategy on the same text; session ``i`` starts ``i * stagger_s`` after
the first, so later sessions' first pieces arrive while earlier ones are mid-answer: the case where a
first-in-first-out server would make a new listener wait behind other sessions' long pieces.

Aggregate real-time factor: wall seconds from the first request to the end of the last session, per second of
audio delivered over all sessions (below 1: faster than real time). Throughput is its inverse.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace

from ..stats import percentile
from .strategies import Run, speak
from .timeline import play


@dataclass(frozen=True)
class ConcurrencyResult:
    sessions: int
    ttfa_p50_s: float
    ttfa_p95_s: float
    audible_p50_s: float
    audible_p95_s: float
    max_stall_s: float
    audio_s: float
    wall_s: float
    aggregate_rtf: float
    throughput_x: float  # audio seconds delivered per wall second
    throughput_vs_one: float | None = None  # against the 1-session figure of the same run


async def concurrent_sessions(sessions: int, text_name: str, run: Run, stagger_s: float) -> ConcurrencyResult:
    start = time.perf_counter()

    async def one(index: int):
        await asyncio.sleep(index * stagger_s)
        trace = await speak("pipelined", text_name, run)
        return play(trace.audio), time.perf_counter() - start

    outcomes = await asyncio.gather(*(one(i) for i in range(sessions)))
    playbacks = [p for p, _ in outcomes]
    wall = max(finished for _, finished in outcomes)
    audio = sum(p.audio_s for p in playbacks)
    ttfa = [p.ttfa_s for p in playbacks]
    audible = [p.audible_s if p.audible_s is not None else p.end_s for p in playbacks]
    return ConcurrencyResult(
        sessions=sessions,
        ttfa_p50_s=percentile(ttfa, 50),
        ttfa_p95_s=percentile(ttfa, 95),
        audible_p50_s=percentile(audible, 50),
        audible_p95_s=percentile(audible, 95),
        max_stall_s=round(max(p.stall_s for p in playbacks), 4),
        audio_s=round(audio, 3),
        wall_s=round(wall, 3),
        aggregate_rtf=round(wall / audio, 4),
        throughput_x=round(audio / wall, 4),
    )


def against_one(results: list[ConcurrencyResult]) -> list[ConcurrencyResult]:
    """Each level's throughput as a fraction of the single session's (None without a 1-session run)."""
    one = next((r for r in results if r.sessions == 1), None)
    if one is None:
        return results
    return [replace(r, throughput_vs_one=round(r.throughput_x / one.throughput_x, 3)) for r in results]
