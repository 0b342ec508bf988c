"""Capacity and what it costs: the most concurrent voices a machine carries, in dollars per hour.

Capacity is measured, never estimated: the most concurrent sessions of the run's concurrency ladder
whose listeners never stalled and whose first audio stayed under ``FIRST_AUDIO_P95_S`` at p95. Cost then
follows from an instance price (``bench/kokoro_bench/data/instance_prices.json``, with its source and date, since
prices cannot be fetched here): dollars per concurrent voice-hour (price / capacity) and per hour of
speech delivered (price / audio hours per wall hour at that load). An instance whose engine and device
no run measured is reported as "not measured". A run is labelled with the machine it ran on (its GPU too),
since that is rarely the instance priced: the GPU row may come from a GPU run on another card
(docs/decisions/087-gpu-capacity-from-another-card.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import BenchError
from ..measuring.concurrency import ConcurrencyResult
from ..measuring.timeline import STALL_TOLERANCE_S
from ..paths import DATA

PRICES = DATA / "instance_prices.json"
FIRST_AUDIO_P95_S = 1.0  # a voice agent that takes longer than this to start speaking feels broken


@dataclass(frozen=True)
class Capacity:
    sessions: int | None  # None: not even one session met the bar on this run
    throughput_x: float | None  # audio seconds delivered per wall second at that load
    rtf: float | None  # the real-time factor the run measured on sentences


@dataclass(frozen=True)
class CostRow:
    instance: str
    usd_per_hour: float
    engine: str
    device: str
    measured: bool
    sessions: int | None
    usd_per_voice_hour: float | None
    usd_per_speech_hour: float | None
    note: str

    def cells(self) -> list[str]:
        """The row as the cost tables print it (the terminal's and the docs' alike), under ``COST_COLUMNS``."""

        def money(usd: float | None) -> str:
            return "-" if usd is None else f"{usd:.3f}"

        return [
            self.instance,
            money(self.usd_per_hour),
            f"{self.engine}/{self.device}",
            str(self.sessions or "-"),
            money(self.usd_per_voice_hour),
            money(self.usd_per_speech_hour),
            self.note,
        ]


COST_COLUMNS = ["instance", "$/hour", "engine", "sessions", "$ per voice-hour", "$ per hour of speech", "note"]


def capacity(concurrency: list[ConcurrencyResult], rtf: float | None) -> Capacity:
    ok = [c for c in concurrency if c.max_stall_s <= STALL_TOLERANCE_S and c.ttfa_p95_s < FIRST_AUDIO_P95_S]
    best = max(ok, key=lambda c: c.sessions, default=None)
    if best is None:
        return Capacity(None, None, rtf)
    return Capacity(best.sessions, best.throughput_x, rtf)


def load_prices(path: Path = PRICES) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise BenchError(f"cannot read the instance prices {path}: {err}") from err


@dataclass(frozen=True)
class MeasuredRun:
    """One run's capacity with the engine, device and machine it was measured on."""

    capacity: Capacity
    engine: str
    device: str
    machine: str  # e.g. "x86_64, 16 CPU cores, x86_64, NVIDIA H200"
    at_ladder_top: bool = False  # the capacity is the ladder's largest level: the limit was not reached


def at_ladder_top(cap: Capacity, concurrency: Sequence[ConcurrencyResult]) -> bool:
    """Whether even the run's largest load level passed (so the capacity is only a lower bound)."""
    return cap.sessions is not None and cap.sessions == max((c.sessions for c in concurrency), default=None)


def machine_label(meta: dict) -> str:
    """Where a run's figures were taken: its machine, and its GPU when it used one."""
    gpu = meta.get("gpu")
    return f"{meta['machine']}, {gpu}" if gpu else meta["machine"]


def cost_rows(runs: Sequence[MeasuredRun], prices: dict) -> list[CostRow]:
    """One row per priced instance, from the run that measured its engine and device (if any)."""
    rows = []
    for name, item in prices["instances"].items():
        price = float(item["usd_per_hour"])
        run = next((r for r in runs if (r.engine, r.device) == (item["engine"], item["device"])), None)
        sessions = run.capacity.sessions if run is not None else None
        if run is None or sessions is None:
            note = (
                f"not measured: needs a run of {item['engine']} on {item['device']}"
                if run is None
                else f"no load level kept zero stall and first audio p95 < 1 s at rtf {run.capacity.rtf} on {run.machine}"
            )
            rows.append(CostRow(name, price, item["engine"], item["device"], False, None, None, None, note))
            continue
        cap = run.capacity
        rows.append(
            CostRow(
                name,
                price,
                run.engine,
                run.device,
                True,
                sessions,
                round(price / sessions, 4),
                round(price / cap.throughput_x, 4) if cap.throughput_x else None,
                f"capacity measured on {run.machine} at rtf {cap.rtf}, not on the instance itself "
                f"({item.get('hardware', name)})"
                + ("; the most sessions the run tried, so a lower bound" if run.at_ladder_top else ""),
            )
        )
    return rows
