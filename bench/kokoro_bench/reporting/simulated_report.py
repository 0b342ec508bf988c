"""The first-piece policy measured on a server slowed on purpose: one table from the runs' results files.

``python -m kokoro_bench --simulate-rtf R --json bench/results/simulated/rtf_R.json ...`` runs the whole
benchmark against a server whose synthesis takes at least ``R`` seconds per audio second. It can only
slow a machine down, so the runs cover the real-time factors from this machine's own speed up; the
computed sweep (``kokoro_bench.measuring.policy_sweep``) covers the rest. ``python -m kokoro_bench report`` puts this table in
docs/benchmark.md under the computed one, so the model and the measurement sit side by side.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..paths import RESULTS
from .run_tables import table

SIMULATED = RESULTS / "simulated"


def load_runs(folder: Path = SIMULATED) -> list[dict]:
    """Every slowed run's results, slowest last (none where no such run was made)."""
    runs = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    return sorted(runs, key=lambda run: run["meta"].get("simulate_rtf") or 0)


def _row(run: dict, bound: dict) -> list[str]:
    m, text = run["meta"], bound["text"]
    by = {r["strategy"]: r for r in run["results"] if r["text"] == text}
    piped, one = by.get("pipelined", {}), by.get("sequential", {})
    vs_one = f"{piped['audible_s'] / one['audible_s']:.3f}" if piped.get("audible_s") and one.get("audible_s") else "-"
    return [
        f"{m.get('simulate_rtf')}",
        f"{m.get('rtf_measured')}",
        f"{m.get('server_piece_overhead_advertised_s')}",
        text,
        f"{bound['pipelined_audible_s']:.2f}",
        f"{piped.get('stall_s', 0):.2f}",
        vs_one,
        f"{bound['natural_audible_s']:.2f}",
        f"{bound['natural_ratio']:.3f}",
        f"{bound['ratio']:.3f}",
        f"{piped.get('repeats', 1)}: {piped['audible_spread']:.3f}" if piped.get("audible_spread") is not None else "-",
        " · ".join(f'"{piece}"' for piece in piped.get("first_pieces") or [bound["pipelined_first_piece"]]),
    ]


def markdown(runs: list[dict]) -> list[str]:
    if not runs:
        return []
    header = [
        "slowed to rtf",
        "rtf measured",
        "cost per piece (Ready)",
        "text",
        "first audible",
        "stall",
        "vs one at a time",
        "bound, natural cuts",
        "vs natural bound",
        "vs any-cut bound",
        "repeats: spread of first audible",
        "first piece (of each repeat)",
    ]
    rows = [_row(run, bound) for run in runs for bound in run.get("lower_bounds", [])]
    dates = sorted({run["meta"].get("date", "")[:16] for run in runs})
    return [
        "### The first-piece policy measured on a slowed server (`python -m kokoro_bench --simulate-rtf R`)",
        "",
        f"Runs of {', '.join(dates)}, one per row group; first audible and stall in seconds from the request, "
        "medians of the run's repeats; the bounds use the speech model fitted on each run.",
        "",
        *table(header, rows),
    ]
