"""``python -m kokoro_bench languages``: what each of Kokoro's nine languages costs a G2P worker.

In a fresh process that loads G2P as a server's worker does (no torch, English first, as at its start),
then each other language in turn as a worker meets it: the time to build the language's G2P, its first
sentence (where a dictionary loads on first use: jieba), the median G2P time of a sentence over the
language's eight test sentences, and the memory the language adds to the worker. A worker builds English
at start and every other language when first read (docs/decisions/153-nine-languages.md): these figures are
what that choice trades.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from kokoro_bench.paths import DATA
from kokoro_server.settings import offline_environment

from ..measuring.machine import run_record

SENTENCES = DATA / "language_sentences.json"
REPEATS = 5
# Whisper's language codes, as the test sentences are keyed, by Kokoro's language letter.
SENTENCE_KEYS = {"a": "en", "b": "en", "e": "es", "f": "fr", "h": "hi", "i": "it", "p": "pt", "j": "ja", "z": "zh"}
# The measurement, run as a process of its own so that its memory is a worker's.
_PROBE = """
import gc, json, os, statistics, sys, time
from kokoro_server.text.g2p_worker import _without_torch
_without_torch()
from kokoro_server.text.languages import LANGUAGES, build_g2p
def rss():
    gc.collect()
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE') / 2**20
sentences, keys, repeats = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
english = None
for letter, lang in sorted(LANGUAGES.items(), key=lambda item: not item[1].english):
    if not lang.english and english is None:
        english = rss()
        print(json.dumps({"code": "english", "memory_mib": round(english, 1)}), flush=True)
    texts = sentences[keys[letter]]
    before = rss(); start = time.perf_counter()
    g2p = build_g2p(lang); built = time.perf_counter()
    g2p(texts[0]); first = time.perf_counter()
    times = []
    for _ in range(repeats):
        for text in texts:
            t = time.perf_counter(); g2p(text); times.append(time.perf_counter() - t)
    print(json.dumps({"code": lang.code, "build_s": round(built - start, 3), "first_sentence_s": round(first - built, 3),
        "sentence_ms": round(1000 * statistics.median(times), 2), "memory_mib": round(rss() - before, 1)}), flush=True)
print(json.dumps({"code": "worker", "memory_mib": round(rss(), 1)}))
"""


def measure(say) -> dict:
    probe = [sys.executable, "-c", _PROBE, SENTENCES.read_text(), json.dumps(SENTENCE_KEYS), str(REPEATS)]
    done = subprocess.run(probe, capture_output=True, text=True, timeout=900, check=True)
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    worker = rows.pop()["memory_mib"]
    english = next(row for row in rows if row["code"] == "english")["memory_mib"]
    languages = {row.pop("code"): row for row in rows if row["code"] != "english"}
    for code, figures in languages.items():
        say(
            f"{code:6} build {figures['build_s']:6.3f} s  first sentence {figures['first_sentence_s']:6.3f} s  "
            f"sentence {figures['sentence_ms']:7.2f} ms  memory {figures['memory_mib']:6.1f} MiB"
        )
    lazy = [code for code in languages if not code.startswith("en")]
    return {
        "languages": languages,
        # A language's own memory_mib is the worker's resident size before and after it (the allocator may
        # hand pages back meanwhile, so one can be negative); the whole worker's is what to plan with.
        "worker_memory_mib_english": english,
        "worker_memory_mib_all_nine": worker,
        "lazy": {
            "first_use_s": {c: round(languages[c]["build_s"] + languages[c]["first_sentence_s"], 3) for c in lazy},
            "all_at_start_extra_s": round(
                sum(languages[c]["build_s"] + languages[c]["first_sentence_s"] for c in lazy), 3
            ),
            "all_at_start_extra_mib": round(worker - english, 1),
        },
        **run_record(),
    }


def languages(
    json_path: Annotated[
        Path | None,
        typer.Option("--json", help="Also write the figures here (bench/results/languages.json is the record)."),
    ] = None,
) -> None:
    """Time and weigh each language's G2P in a worker of its own."""
    offline_environment()
    figures = measure(lambda line: typer.echo(line, err=True))
    lazy = figures["lazy"]
    typer.echo(
        f"loading the seven other languages at start would add {lazy['all_at_start_extra_s']} s and "
        f"{lazy['all_at_start_extra_mib']} MiB to each G2P worker"
    )
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(figures, indent=2) + "\n")
        typer.echo(f"wrote {json_path}", err=True)
