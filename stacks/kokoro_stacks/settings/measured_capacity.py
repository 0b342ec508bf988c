"""The autoscaling target's default: the capacity the benchmark measured for the engine, not a guess.

``python -m kokoro_bench report`` writes ``stacks/kokoro_stacks/settings/data/measured_capacity.json`` from the last results file: per
engine, the most concurrent sessions one server carried with zero stall and first audio p95 under 1 s,
with the machine and real-time factor it was measured at (docs/decisions/084-autoscaling-from-capacity.md).
On a machine too slow for 1-s first audio at any load, the most sessions it served with zero stall
(the entry's ``criterion`` says which).
An engine never measured (the GPU engine until a GPU run) keeps ``DEFAULT_SESSIONS``.
"""

from __future__ import annotations

import json
from pathlib import Path

MEASURED = Path(__file__).parent / "data" / "measured_capacity.json"
# Unmeasured engines: a GPU instance carries many sessions (rtf ~0.03 reported on an A10G), so 4 scales
# out early rather than late; `-c sessions_per_instance=N` overrides it.
DEFAULT_SESSIONS = 4


def measured_sessions(engine: str, path: Path = MEASURED) -> int:
    """Sessions per instance for ``engine``: measured if the file holds a figure, else the default."""
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return DEFAULT_SESSIONS
    entry = recorded.get(engine) if isinstance(recorded, dict) else None
    sessions = entry.get("sessions") if isinstance(entry, dict) else None
    return (
        sessions
        if isinstance(sessions, int) and not isinstance(sessions, bool) and 1 <= sessions <= 64
        else DEFAULT_SESSIONS
    )
