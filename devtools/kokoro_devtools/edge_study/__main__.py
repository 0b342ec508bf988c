"""``python -m kokoro_devtools.edge_study --json bench/results/edge_study.json``: the edge-silence study's figures."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from kokoro_devtools.edge_study import Model, compare, decode, edge_tokens
from kokoro_server import assets as model_assets
from kokoro_server.engine.normalize import normalize
from kokoro_server.engine.phonemes import Phonemizer, chunk_phonemes
from kokoro_server.engine.voices import VoiceBank

# Short pieces (where the edge silence weighs most) and a few sentences, as the agent cuts them.
SENTENCES = (
    "Yes, of course.",
    "Here is a plan",
    "Thanks for asking,",
    '"Quoted!" she said.',
    "Why not?",
    "Hello there.",
    "Of course, the museum is open every day.",
    "Bring water and a hat.",
    "Well, maybe.",
    "Sure!",
    "Thank you so much",
    "No.",
)
# (treatment, lead, trail): frames for "capped", half-frames for "sliced" (lead 6: 75 ms; trail 14: 175 ms,
# the 120 ms pause trimming keeps and a margin).
TREATMENTS = (("capped", 14, 8), ("capped", 14, 4), ("capped", 10, 4), ("sliced", 6, 14), ("sliced", 8, 16))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args(argv)
    assets = model_assets.resolve("onnx")
    model = Model(assets, args.threads)
    phonemizer, voice = Phonemizer(), VoiceBank(assets).get("af_heart")
    rows: list[dict[str, Any]] = []
    for text in SENTENCES:
        (phonemes,) = chunk_phonemes(phonemizer.phonemize(normalize(text).spoken, voice.lang)[0])
        style = voice.vector_for(len(phonemes))
        head, tail = edge_tokens([p.isalpha() for p in phonemes if p in model.vocab])
        base = decode(model, phonemes, style, "whole", 0, 0)
        start, stop = base.bounds()
        rows.append(
            {"text": text, "treatment": "whole", "unheard_s": round((len(base.audio) - (stop - start)) / 24_000, 3)}
        )
        for treatment, lead, trail in TREATMENTS:
            other = decode(model, phonemes, style, treatment, lead, trail)
            rows.append({"text": text, "treatment": f"{treatment} {lead}/{trail}", **compare(base, other, head, tail)})
    summary = {}
    for name in dict.fromkeys(r["treatment"] for r in rows):
        mine = [r for r in rows if r["treatment"] == name]
        summary[name] = {
            key: {
                "median": float(np.median([r[key] for r in mine])),
                "min": min(r[key] for r in mine),
                "max": max(r[key] for r in mine),
            }
            for key in mine[0]
            if key not in ("text", "treatment")
        }
        print(name, "  ".join(f"{k} {v['median']:g} [{v['min']:g}, {v['max']:g}]" for k, v in summary[name].items()))
    if args.json:
        args.json.write_text(
            json.dumps({"command": "python -m kokoro_devtools.edge_study", "summary": summary, "rows": rows}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
