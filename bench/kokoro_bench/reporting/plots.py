"""One PNG per text: a timeline per strategy, stacked on one time axis so the designs compare at a glance.

Lanes, top to bottom: text arriving from the LLM (a tick per delta), pieces sent to speech, audio arriving
(a tick per chunk), and playback from the first byte (green while playing, red while starved). Dashed
lines mark the first audio byte and the first audible sample.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no display on a server or in CI
import matplotlib.pyplot as plt

from ..errors import BenchError
from ..measuring.strategies import Trace
from ..measuring.timeline import play

LANES = ("playback", "audio", "pieces", "text")
DPI = 72  # small files: the committed results stay well under 500 KB


def plot_text(traces: list[Trace], path: Path) -> Path:
    """Draw ``traces`` (one per strategy, same text) into ``path``."""
    if not traces:
        raise BenchError("nothing to plot")
    fig, axes = plt.subplots(len(traces), 1, figsize=(10, 1.9 * len(traces)), sharex=True, squeeze=False)
    for ax, trace in zip(axes[:, 0], traces):
        _draw(ax, trace)
    axes[-1, 0].set_xlabel("seconds since the request")
    fig.suptitle(f"{traces[0].text}: text, pieces, audio and playback per strategy", fontsize=10)
    fig.tight_layout()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=DPI)
    except OSError as err:
        raise BenchError(f"cannot write {path}: {err.strerror or err}") from err
    finally:
        plt.close(fig)
    return path


def _draw(ax, trace: Trace) -> None:
    playback = play(trace.audio)
    y = {lane: i for i, lane in enumerate(LANES)}
    ax.vlines(trace.deltas, y["text"] - 0.3, y["text"] + 0.3, color="0.4", linewidth=0.6)
    ax.plot([t for t, _ in trace.pieces], [y["pieces"]] * len(trace.pieces), "v", color="tab:blue", markersize=5)
    ax.vlines([a.t_s for a in trace.audio], y["audio"] - 0.3, y["audio"] + 0.3, color="tab:purple", linewidth=0.8)
    ax.broken_barh(
        [(s.start_s, s.duration_s) for s in playback.playing], (y["playback"] - 0.3, 0.6), facecolors="tab:green"
    )
    ax.broken_barh(
        [(s.start_s, s.duration_s) for s in playback.stalls], (y["playback"] - 0.3, 0.6), facecolors="tab:red"
    )
    ax.axvline(playback.ttfa_s, color="tab:purple", linestyle="--", linewidth=0.8)
    if playback.audible_s is not None:
        ax.axvline(playback.audible_s, color="tab:green", linestyle="--", linewidth=0.8)
    audible = f"{playback.audible_s:.2f} s" if playback.audible_s is not None else "none"
    ax.set_title(
        f"{trace.strategy}: first byte {playback.ttfa_s:.2f} s, audible {audible}, stall {playback.stall_s:.2f} s",
        fontsize=9,
        loc="left",
    )
    ax.set_yticks(range(len(LANES)), LANES, fontsize=8)
    ax.set_ylim(-0.6, len(LANES) - 0.4)
    ax.set_xlim(left=0)
    ax.grid(axis="x", linewidth=0.3)
