"""Ratios against the two designs replaced, and where each target of 006-benchmark-targets.md stands.

Targets (2-core CPU): on the typical and long texts, audible first audio <= 0.10 x whole answer and
<= 0.35 x one-at-a-time, zero stall, and audible first audio that moves by at most 20 % of its median
across the repeats (each a session sized by the server's pace at that moment: docs/decisions/165-weak-cuts.md); server overhead <= 1.10; with 4 sessions, throughput >= 0.9 x one
session's and each first piece not starved: its p95 first audio later than one session's alone by no more
than the longest single piece takes to synthesize (one piece already in the engine is never interrupted, so
that wait is the floor; a first-in-first-out server would add every queued piece of every other session).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..measuring.concurrency import ConcurrencyResult
from ..measuring.lower_bound import BoundResult
from ..measuring.overhead import Overhead
from ..measuring.timeline import STALL_TOLERANCE_S
from .results import StrategyResult, Target

TARGET_TEXTS = ("typical", "long")


def _by(results: list[StrategyResult], text: str, strategy: str) -> StrategyResult | None:
    return next((r for r in results if r.text == text and r.strategy == strategy), None)


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


def ratios(results: list[StrategyResult]) -> list[dict[str, Any]]:
    """Per text: the pipelined figures over the whole-answer and one-at-a-time figures."""
    out = []
    for text in dict.fromkeys(r.text for r in results):
        mine, whole, seq = (_by(results, text, s) for s in ("pipelined", "whole", "sequential"))
        if mine is None:
            continue
        out.append(
            {
                "text": text,
                "audible_vs_whole": _ratio(mine.audible_s, whole.audible_s if whole else None),
                "audible_vs_sequential": _ratio(mine.audible_s, seq.audible_s if seq else None),
                "ttfa_vs_whole": _ratio(mine.ttfa_s, whole.ttfa_s if whole else None),
                "ttfa_vs_sequential": _ratio(mine.ttfa_s, seq.ttfa_s if seq else None),
                "end_vs_whole": _ratio(mine.end_s, whole.end_s if whole else None),
                "end_vs_sequential": _ratio(mine.end_s, seq.end_s if seq else None),
            }
        )
    return out


def _at_most(name: str, value: float | None, limit: float, goal: str) -> Target:
    return Target(name, value, goal, None if value is None else value <= limit)


def evaluate(
    results: list[StrategyResult],
    overhead: Overhead | None,
    concurrency: list[ConcurrencyResult],
    bounds: Sequence[BoundResult] = (),
) -> list[Target]:
    targets = []
    by_text = {r["text"]: r for r in ratios(results)}
    bound_of = {b.text: b for b in bounds}
    for text in TARGET_TEXTS:
        row = by_text.get(text, {})
        mine = _by(results, text, "pipelined")
        targets += [
            _at_most(f"{text}: audible vs whole answer", row.get("audible_vs_whole"), 0.10, "<= 0.10"),
            _at_most(f"{text}: audible vs one at a time", row.get("audible_vs_sequential"), 0.35, "<= 0.35"),
            _at_most(
                f"{text}: audible vs lower bound (any word cut)",
                bound_of[text].ratio if text in bound_of else None,
                1.2,
                "<= 1.2",
            ),
            _at_most(
                f"{text}: audible vs lower bound (natural cuts)",
                bound_of[text].natural_ratio if text in bound_of else None,
                1.2,
                "<= 1.2",
            ),
            _at_most(f"{text}: stall (s)", mine.stall_s if mine else None, STALL_TOLERANCE_S, "0"),
            _at_most(
                f"{text}: spread of audible first audio across repeats",
                mine.audible_spread if mine and mine.repeats > 1 else None,
                0.20,
                "<= 0.20",
            ),
        ]
    targets.append(_at_most("server overhead", overhead.median_ratio if overhead else None, 1.10, "<= 1.10"))
    one = next((c for c in concurrency if c.sessions == 1), None)
    four = next((c for c in concurrency if c.sessions == 4), None)
    throughput = four.throughput_vs_one if four else None
    targets.append(
        Target("4 sessions: throughput vs one", throughput, ">= 0.9", None if throughput is None else throughput >= 0.9)
    )
    wait = round(four.ttfa_p95_s - one.ttfa_p95_s, 3) if four and one else None
    bound = overhead.longest_piece_s if overhead else None
    targets.append(
        Target(
            "4 sessions: extra first-audio wait p95 (s)",
            wait,
            "<= one piece" if bound is None else f"<= {bound:.2f} (one piece)",
            None if wait is None or bound is None else wait <= bound,
        )
    )
    return targets
