"""``python -m kokoro_bench g2p``: the worst text-to-phoneme cost per character, over hostile token classes.

G2P runs before any audio, so its cost is pure delay, and one slow text delays every session behind it.
For each class of token (URLs, paths, dashes, digit runs, ...) this times misaki on one long token of that
class, first as misaki reads it alone ("before": lengths grow until one call passes ``--budget`` seconds,
because the cost grows faster than the length) and then through the server's guard (``after``: the
longest text a request may carry). Prints one line per class and writes the figures as JSON.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kokoro_server.settings import offline_environment
from speech_protocol.client_messages import MAX_TEXT_CHARS

from .machine import run_record

if TYPE_CHECKING:
    from kokoro_server.text.phonemes import Phonemizer

# One repeating unit per class; a text of the class is the unit repeated to the wanted length.
TOKEN_CLASSES = {
    "url": "a/",  # https://host/a/a/a/... (the prefix is added below)
    "path": "lib/",
    "dashes": "a-",
    "underscores": "a_",
    "ampersands": "a&",
    "digit_dashes": "1-",
    "digit_run": "7",
    "dotted": "a.",
    "mixed_case_digits": "aB1",
    "camel_case": "MyPage",
    "non_latin": "日本語",
    "long_word": "ab",
    "symbols": "#",
    "prose": "Hello there, how are you today? ",
}
BEFORE_LENGTHS = (50, 100, 200, 400, 800)


def sample(token_class: str, length: int) -> str:
    unit = TOKEN_CLASSES[token_class]
    prefix = "https://example.com/" if token_class == "url" else ""
    return (prefix + unit * length)[:length]


def _ms_per_char(phonemizer: Phonemizer, text: str) -> tuple[float, float]:
    start = time.perf_counter()
    phonemizer.phonemize(text, "a")
    seconds = time.perf_counter() - start
    return seconds, 1000 * seconds / len(text)


def worst(entries: list[dict]) -> dict:
    """The entry with the highest ms/char (an entry where misaki failed has none)."""
    return max(entries, key=lambda b: b.get("ms_per_char", 0.0))


def measure(budget_s: float, after_chars: int, say) -> dict:
    from kokoro_server.text.phonemes import Phonemizer, UnreadableText  # misaki, spaCy, torch: only when run

    raw, guarded = Phonemizer(bounded=False), Phonemizer()
    for g2p in (raw, guarded):
        g2p.phonemize("Warm up the tagger.", "a")
    classes: dict[str, dict] = {}
    for name in TOKEN_CLASSES:
        before: list[dict] = []
        for length in BEFORE_LENGTHS:
            try:
                seconds, per_char = _ms_per_char(raw, sample(name, length))
            except UnreadableText as err:  # misaki alone fails on this one (e.g. a number over 10**306)
                before.append({"chars": length, "error": str(err.__cause__)[:80]})
                break
            before.append({"chars": length, "s": round(seconds, 3), "ms_per_char": round(per_char, 3)})
            if seconds > budget_s:
                break
        seconds, per_char = _ms_per_char(guarded, sample(name, after_chars))
        slowest = worst(before)
        classes[name] = {
            "before": before,
            "after": {"chars": after_chars, "s": round(seconds, 3), "ms_per_char": round(per_char, 3)},
        }
        failed = " (then misaki failed)" if "error" in before[-1] else ""
        say(
            f"{name:18} before {slowest.get('ms_per_char', 0.0):9.3f} ms/char at {slowest['chars']:4} "
            f"chars{failed}   after {per_char:7.3f} ms/char at {after_chars} chars ({seconds:.2f} s)"
        )
    worst_before = max(classes, key=lambda c: worst(classes[c]["before"]).get("ms_per_char", 0.0))
    worst_after = max(classes, key=lambda c: classes[c]["after"]["ms_per_char"])
    return {
        "classes": classes,
        "worst_before": {"class": worst_before, **worst(classes[worst_before]["before"])},
        "worst_after": {"class": worst_after, **classes[worst_after]["after"]},
        # G2P is single-threaded: other load on the machine inflates every figure, so it is recorded.
        **run_record(),
    }


def g2p(
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Also write the figures here (bench/results/g2p.json is the record).")
    ] = None,
    budget: Annotated[
        float, typer.Option(help="Stop lengthening a class's 'before' text past this many seconds.")
    ] = 5.0,
    chars: Annotated[int, typer.Option(help="Length of each 'after' text.")] = MAX_TEXT_CHARS,
) -> None:
    """Time G2P on each token class, before and after the guard, and write the worst case."""
    offline_environment()
    figures = measure(budget, chars, lambda line: typer.echo(line, err=True))
    wb, wa = figures["worst_before"], figures["worst_after"]
    typer.echo(
        f"worst before: {wb['ms_per_char']} ms/char ({wb['class']}, {wb['chars']} chars); "
        f"worst after: {wa['ms_per_char']} ms/char ({wa['class']}, {wa['chars']} chars)"
    )
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(figures, indent=2) + "\n")
        typer.echo(f"wrote {json_path}", err=True)
