"""Issue 21's figures in docs/benchmark.md, generated from their results files like the rest of the page.

- ``bench/results/piece_render.json`` (``python -m kokoro_bench pieces``): the render time of a 1-, 3-, 12- and
  19-word piece and the share of what the engine decoded that nobody hears. The engine still decodes the
  edge silence (docs/decisions/122-the-edge-silence-is-decoded.md), so there is no "after" to show.
- ``bench/results/pace_before.json`` and ``pace_after.json`` (and ``_2``, ``_3``, ``_4``: three more pairs): ``python -m
  kokoro_bench`` against a server that advertises only its warm-up pace and against one that sends its running
  pace (docs/decisions/121-first-piece-from-the-running-pace.md), one after the other in one run
  (docs/decisions/136-issue-21-figures.md): the pipelined first audio against the natural-cut bound.
- ``bench/results/one_word_before.json`` and ``one_word_after.json`` (and ``_2``: a second pair): the same command
  against one server, run by the client of the commit before a first piece could be one word and by the client
  after (docs/decisions/138-one-word-first-piece.md).
"""

from __future__ import annotations

import json

from ..paths import RESULTS

PIECES = RESULTS / "piece_render.json"
# Four pairs, each one script's run (before then after; pair 3 after then before): 1-3 on a shared machine,
# 4 on a quiet one.
PACE_RUNS = (
    ("before, pair 1", RESULTS / "pace_before.json"),
    ("after, pair 1", RESULTS / "pace_after.json"),
    ("before, pair 2", RESULTS / "pace_before_2.json"),
    ("after, pair 2", RESULTS / "pace_after_2.json"),
    ("after, pair 3", RESULTS / "pace_after_3.json"),
    ("before, pair 3", RESULTS / "pace_before_3.json"),
    ("before, pair 4", RESULTS / "pace_before_4.json"),
    ("after, pair 4", RESULTS / "pace_after_4.json"),
)
ONE_WORD_RUNS = (
    ("before, pair 1", RESULTS / "one_word_before.json"),
    ("after, pair 1", RESULTS / "one_word_after.json"),
    ("before, pair 2", RESULTS / "one_word_before_2.json"),
    ("after, pair 2", RESULTS / "one_word_after_2.json"),
)
COMMAND = "`python -m kokoro_bench --texts short,typical,long --concurrency 1 --sweep-words '' --server-url URL"
PACE_INTRO = (
    "Each pair is one script's run, before then after (pair 3: after then before). Pairs 1-3 ran on a "
    "shared machine whose load changed within a pair (the rtf column), so they compare the two servers "
    "only as far as their rtf agree; pair 4 ran on a quiet machine (load average 1.4-1.9: the two servers "
    "and the client).",
    "",
    f"{COMMAND} --repeats 1`, "
    "run against a server without the running pace (before: `kokoro-serve` of 7bab379, the commit before "
    "decision 121) and one with it (after), one after the other; the client is the same. "
    "*Advertised*: the rtf the server's `ready` carried; *measured*: the run's sentences.",
)
ONE_WORD_INTRO = (
    f"{COMMAND} --repeats R`, run against one server (main, started afresh for each pair) by two clients one "
    "after the other, on a quiet machine (load average 1.7-1.9): before, the client of ae84363, whose first "
    "piece holds at least two words; after, this one's, whose first piece may be a one-word opener such as "
    '"Sure," (three letters or more) when the speech model says the next piece is ready in time. Pair 1: '
    "R = 1; pair 2: R = 3 (medians; the first piece shown is the first repeat's). *Advertised*: the rtf the "
    "server's `ready` carried; *measured*: the run's sentences.",
)


def _piece(text: str, limit: int = 48) -> str:
    return text if len(text) <= limit else text[:limit].rstrip() + "..."


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def pieces_markdown(report: dict) -> list[str]:
    load = report.get("load_average_start")
    rtfs = [r["rtf"] for r in report["rows"]]
    out = [
        f"### Render time per piece (rtf {min(rtfs):.3f} to {max(rtfs):.3f}; `{report['command']}`, medians, "
        f"load average {load} at the start)",
        "",
        "The model call and the trim of one piece in-process. *Unheard*: the share of the decoded audio that "
        "the trim drops (edge silence). Decision 122 kept the engine decoding it, so these are today's figures "
        "and there is no after.",
        "",
        _row(["words", "piece", "render", "decoded", "heard", "unheard", "rtf (render / heard)"]),
        "|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        out.append(
            _row(
                [
                    str(r["words"]),
                    r["text"],
                    f"{r['render_s']:.3f} s",
                    f"{r['decoded_s']:.2f} s",
                    f"{r['heard_s']:.2f} s",
                    f"{r['unheard_share']:.0%}",
                    f"{r['rtf']:.3f}",
                ]
            )
        )
    return [*out, ""]


def pace_markdown(runs: list[tuple[str, dict]], title: str, decision: int, intro: tuple[str, ...]) -> list[str]:
    """One table of before/after runs: each text's pipelined first audio against its natural-cut bound."""
    rtfs = ", ".join(str(data["meta"]["rtf_measured"]) for _, data in runs)
    out = [
        f"### {title}, before and after (decision {decision}; rtf {rtfs} on sentences)",
        "",
        *intro,
        "",
        _row(["run", "text", "rtf advertised / measured", "pipelined audible", "natural-cut bound", "ratio", "stall"])
        + "\n|---|---|---|---|---|---|---|",
    ]
    for name, data in runs:
        meta = data["meta"]
        stalls = {r["text"]: r["stall_s"] for r in data["results"] if r["strategy"] == "pipelined"}
        for b in data["lower_bounds"]:
            out.append(
                _row(
                    [
                        name,
                        b["text"],
                        f"{meta['server_rtf_advertised']} / {meta['rtf_measured']}",
                        f"{b['pipelined_audible_s']:.2f} s: {_piece(b['pipelined_first_piece'])}",
                        f"{b['natural_audible_s']:.2f} s: {_piece(b['natural_first_piece'])}",
                        f"{b['natural_ratio']:.3f}",
                        f"{stalls.get(b['text'], 0.0):.2f} s",
                    ]
                )
            )
    return [*out, ""]


def markdown() -> list[str]:
    """Both sections, each only when its results files are there."""
    out = []
    if PIECES.is_file():
        out += pieces_markdown(json.loads(PIECES.read_text(encoding="utf-8")))
    for runs, title, decision, intro in (
        (PACE_RUNS, "The first piece from the running pace", 121, PACE_INTRO),
        (ONE_WORD_RUNS, "A one-word first piece", 138, ONE_WORD_INTRO),
    ):
        if all(path.is_file() for _, path in runs):
            loaded = [(name, json.loads(path.read_text(encoding="utf-8"))) for name, path in runs]
            out += pace_markdown(loaded, title, decision, intro)
    return out
