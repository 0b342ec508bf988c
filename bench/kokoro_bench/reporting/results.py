"""Every figure of a run as plain dataclasses, and the one function that writes them as JSON.

``results`` holds one entry per text and strategy with at least ``text``, ``strategy``, ``ttfa_s``,
``audible_s``, ``last_audio_s`` and ``stall_s`` (006-benchmark-targets.md); each figure is the median over the repeats.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BenchError
from ..measuring.concurrency import ConcurrencyResult
from ..measuring.lower_bound import BoundResult
from ..measuring.overhead import Overhead
from ..measuring.strategies import Trace
from ..measuring.timeline import play
from ..stats import median, median_of
from .cost import Capacity, CostRow


@dataclass(frozen=True)
class StrategyResult:
    text: str
    strategy: str
    ttfa_s: float
    audible_s: float | None
    last_audio_s: float
    stall_s: float
    end_s: float  # last sample played
    audio_s: float
    pieces: int
    first_piece: str
    repeats: int
    streamed_first_byte_s: float | None  # whole: when sentence streaming would have started the audio
    # Across the repeats, each a session of its own sized by the server's pace at that moment: how far first
    # audio moved, and the first piece each chose (a flip between two is what moves it most).
    audible_min_s: float | None = None
    audible_max_s: float | None = None
    audible_spread: float | None = None  # (max - min) / median
    first_pieces: tuple[str, ...] = ()


@dataclass(frozen=True)
class SweepResult:
    """The pipelined strategy with one first-piece length: what cutting earlier or later costs."""

    policy: str  # "4 words" or "adaptive"
    first_piece_min_words: int
    ttfa_s: float
    audible_s: float | None
    stall_s: float
    first_piece: str


@dataclass(frozen=True)
class Target:
    name: str
    value: float | None
    goal: str
    met: bool | None  # None: not measured in this run


@dataclass
class BenchReport:
    meta: dict[str, Any]
    results: list[StrategyResult] = field(default_factory=list)
    ratios: list[dict[str, Any]] = field(default_factory=list)
    overhead: Overhead | None = None
    sweep: list[SweepResult] = field(default_factory=list)
    concurrency: list[ConcurrencyResult] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    lower_bounds: list[BoundResult] = field(default_factory=list)
    capacity: Capacity | None = None
    cost: list[CostRow] = field(default_factory=list)


def summarize(traces: list[Trace]) -> StrategyResult:
    """The medians of one text and strategy over its repeats."""
    if not traces:
        raise BenchError("no runs to summarize")
    playbacks = [play(t.audio) for t in traces]
    audible = [p.audible_s for p in playbacks if p.audible_s is not None]
    audible_s = median(audible)
    first = traces[0]
    return StrategyResult(
        text=first.text,
        strategy=first.strategy,
        ttfa_s=median_of([p.ttfa_s for p in playbacks], "ttfa_s"),
        audible_s=audible_s,
        last_audio_s=median_of([p.last_audio_s for p in playbacks], "last_audio_s"),
        stall_s=median_of([p.stall_s for p in playbacks], "stall_s"),
        end_s=median_of([p.end_s for p in playbacks], "end_s"),
        audio_s=median_of([p.audio_s for p in playbacks], "audio_s"),
        pieces=len(first.pieces),
        first_piece=first.pieces[0][1] if first.pieces else "",
        repeats=len(traces),
        streamed_first_byte_s=median([t.streamed_first_byte_s for t in traces]),
        audible_min_s=min(audible, default=None),
        audible_max_s=max(audible, default=None),
        audible_spread=round((max(audible) - min(audible)) / audible_s, 3) if audible_s else None,
        first_pieces=tuple(t.pieces[0][1] if t.pieces else "" for t in traces),
    )


def write_json(report: BenchReport, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(report), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as err:
        raise BenchError(f"cannot write {path}: {err.strerror or err}") from err
