"""``python -m kokoro_bench policy``: the first-piece policy across real-time factors, from the speech model.

The policy must hold from a fast GPU (rtf ~0.03) to a loaded CPU (~0.8). Measuring that on one machine
needs a server slowed on purpose (``--simulate-rtf``), which can only slow a machine down: the shared
2-core development machine itself runs at rtf 0.33 to 1.3 from one hour to the next, so a measured
sweep down to 0.2 is possible only on a faster host. This sweep therefore replays the benchmark's
scripted LLM timeline through the agent's real segmenter at each real-time factor and times the
resulting pieces with the speech model the policy is sized from (``speech_protocol.pace.SpeechModel``:
serial synthesis, a fixed cost per piece, real-time playback). The fixed cost is the one a CPU server of
that rtf advertises: mostly the edge silence it synthesizes and trims (``EDGE_SILENCE_S`` of audio per
piece, measured) at that rtf. It compares the agent's policy with the same policy blind to that cost (the
agent before servers advertised it), with the threshold it replaced (``ceil(rtf * 6 + 0.18)`` words, no
ramp) and with the two lower bounds of ``kokoro_bench.measuring.lower_bound``. Every row is a computation, labelled as such; the measured runs in
``bench/results/bench.json`` are where the model meets the engine.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer

from speech_protocol.pace import PIECE_OVERHEAD_S, SpeechModel, word_count
from speech_protocol.pieces.first_piece import SegmentPolicy, adaptive_policy
from speech_protocol.pieces.segmenter import Segmenter

from ..errors import BenchError
from ..settings import TOKENS_PER_S
from ..texts import TEXTS
from .lower_bound import lower_bound, natural_cuts, word_ready_times

RTFS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
SWEEP_TEXTS = ("typical", "long")
# Audio the engine synthesizes per piece and the server trims: median 0.64 s (0.60-0.74) over the 19
# pieces of the typical and long answers, 2-core CPU (docs/decisions/088-piece-overhead.md).
EDGE_SILENCE_S = 0.64


def cpu_piece_overhead_s(rtf: float) -> float:
    """The cost per piece a CPU server of real-time factor ``rtf`` advertises, as modelled for the sweep."""
    return round(PIECE_OVERHEAD_S + EDGE_SILENCE_S * rtf, 3)


def llm_timeline(text: str, tokens_per_s: float = TOKENS_PER_S) -> list[tuple[float, str]]:
    """(time, delta) as the scripted LLM writes ``text``: one token every ``1 / tokens_per_s`` seconds."""
    from voice_agent.llm import scripted_tokens  # beside Strands: only when the command runs

    return [((i + 1) / tokens_per_s, token) for i, token in enumerate(scripted_tokens(text))]


def pieces_of(deltas: list[tuple[float, str]], policy: SegmentPolicy) -> list[tuple[float, int]]:
    """(time the piece was cut, its words) for each piece the agent's segmenter cuts under ``policy``."""
    segmenter, pieces = Segmenter(policy), []
    for t, delta in deltas:
        pieces += [(t, word_count(p)) for p in segmenter.feed(delta)]
    pieces += [(deltas[-1][0], word_count(p)) for p in segmenter.flush()]
    return pieces


def first_audio_and_stall(pieces: list[tuple[float, int]], model: SpeechModel) -> tuple[float, float]:
    """Serial synthesis, playback from the first piece's end on; the listener's total wait after that."""
    done = first = None
    playhead = stall = 0.0
    for cut_at, words in pieces:
        done = (cut_at if done is None else max(cut_at, done)) + model.synth_s(words)
        if first is None:
            first = playhead = done
        elif done > playhead:
            stall += done - playhead
            playhead = done
        playhead += model.audio_s(words)
    if first is None:
        raise BenchError("no pieces to time: the segmenter cut nothing")
    return first, stall


# The policy before weak cuts (docs/decisions/165-weak-cuts.md): natural cuts only.
NATURAL_ONLY = SegmentPolicy(weak_cuts=False)


def threshold_policy(rtf: float) -> SegmentPolicy:
    """The policy before the speech model: a first piece of ``ceil(rtf * 6 + 0.18)`` words, no ramp."""
    return SegmentPolicy(first_piece_min_words=math.ceil(rtf * 6 + 0.18))


def sweep(rtfs: tuple[float, ...] = RTFS, texts: tuple[str, ...] = SWEEP_TEXTS) -> list[dict]:
    rows = []
    for text in texts:
        deltas = llm_timeline(TEXTS[text])
        words, ready = word_ready_times(deltas)
        for rtf in rtfs:
            overhead_s = cpu_piece_overhead_s(rtf)
            model = SpeechModel(rtf, overhead_s=overhead_s)
            row: dict[str, str | float] = {"text": text, "rtf": rtf, "piece_overhead_s": overhead_s}
            firsts: dict[str, float] = {}
            for name, policy in (
                ("policy", adaptive_policy(rtf, piece_overhead_s=overhead_s)),
                ("natural_only", adaptive_policy(rtf, NATURAL_ONLY, piece_overhead_s=overhead_s)),
                ("threshold", threshold_policy(rtf)),
            ):
                first, stall = first_audio_and_stall(pieces_of(deltas, policy), model)
                firsts[name] = round(first, 3)
                row[f"{name}_first_s"], row[f"{name}_stall_s"] = firsts[name], round(stall, 3)
            bound_natural_s = lower_bound(words, ready, model, natural_cuts(words)).first_audio_s
            bound_any_s = lower_bound(words, ready, model).first_audio_s
            row["bound_any_s"], row["bound_natural_s"] = bound_any_s, bound_natural_s
            row["policy_vs_natural"] = round(firsts["policy"] / bound_natural_s, 3)
            row["policy_vs_any"] = round(firsts["policy"] / bound_any_s, 3)
            rows.append(row)
    return rows


def markdown(rows: list[dict]) -> list[str]:
    """The sweep as a table (``python -m kokoro_bench report`` puts it in docs/benchmark.md)."""
    model = SpeechModel(0.5)
    out = [
        f"Computed, not measured: the scripted LLM at {TOKENS_PER_S:g} tokens/s through the agent's segmenter, "
        f"timed with the speech model (cost per piece + rtf x audio, {model.words_per_s} words/s; the cost "
        f"per piece is {PIECE_OVERHEAD_S} s + {EDGE_SILENCE_S} s x rtf, a CPU server's edge silence). "
        "Policy: sized from the rtf and the cost per piece, as servers advertise both, with weak cuts where "
        "natural ones would stall; natural only: the same policy without weak cuts; threshold: the rule "
        "before the speech model. First audio in seconds from the request; stall in seconds.",
        "",
        "| text | rtf | cost per piece | policy: first / stall | natural only: first / stall | "
        "threshold: first / stall | bound, natural cuts | bound, any word | policy / natural bound | "
        "policy / any-word bound |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    out += [
        f"| {r['text']} | {r['rtf']} | {r['piece_overhead_s']:.2f} | "
        f"{r['policy_first_s']:.2f} / {r['policy_stall_s']:.2f} | "
        f"{r['natural_only_first_s']:.2f} / {r['natural_only_stall_s']:.2f} | "
        f"{r['threshold_first_s']:.2f} / {r['threshold_stall_s']:.2f} | {r['bound_natural_s']:.2f} | "
        f"{r['bound_any_s']:.2f} | {r['policy_vs_natural']:.3f} | {r['policy_vs_any']:.3f} |"
        for r in rows
    ]
    return out


def run(json_path: Annotated[Path | None, typer.Option("--json", help="Write the rows here.")] = None) -> None:
    """Compute the policy sweep and print it (no server, no engine: a few seconds)."""
    rows = sweep()
    typer.echo("\n".join(markdown(rows)))
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(
            json.dumps({"tokens_per_s": TOKENS_PER_S, "rows": rows}, indent=1) + "\n", encoding="utf-8"
        )
