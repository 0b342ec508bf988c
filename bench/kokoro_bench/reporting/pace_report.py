"""Issue 21's figures in docs/benchmark.md, generated from their results files like the rest of the page.

- ``bench/results/piece_render.json`` (``python -m kokoro_bench pieces``): the render time of a 1-, 3-, 12- and
  19-word piece and the share of what the engine decoded that nobody hears. The engine still decodes the
  edge silence (docs/decisions/122-the-edge-silence-is-decoded.md), so there is no "after" to show.
- ``bench/results/pace_before.json`` and ``pace_after.json`` (and ``_2``, ``_3``, ``_4``: three more pairs): ``python -m
  kokoro_bench`` against a server that advertises only its warm-up pace and against one that sends its running
  pace (docs/decisions/121-first-piece-from-the-running-pace.md), one after the other in one run
  (docs/decisions/136-issue-21-figures.md): the pipelined first audio against the natural-cut bound.
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


def pace_markdown(runs: list[tuple[str, dict]]) -> list[str]:
    out = [
        "### The first piece from the running pace, before and after (decision 121; rtf "
        + ", ".join(str(data["meta"]["rtf_measured"]) for _, data in runs)
        + " on sentences)",
        "",
        "Each pair is one script's run, before then after (pair 3: after then before). Pairs 1-3 ran on a "
        "shared machine whose load changed within a pair (the rtf column), so they compare the two servers "
        "only as far as their rtf agree; pair 4 ran on a quiet machine (load average 1.4-1.9: the two servers "
        "and the client).",
        "",
        "`python -m kokoro_bench --texts short,typical,long --concurrency 1 --sweep-words '' --repeats 1 --server-url URL`, "
        "run against a server without the running pace (before: `kokoro-serve` of 7bab379, the commit before "
        "decision 121) and one with it (after), one after the other; the client is the same. "
        "*Advertised*: the rtf the server's `ready` carried; *measured*: the run's sentences.",
        "",
        _row(
            ["server", "text", "rtf advertised / measured", "pipelined audible", "natural-cut bound", "ratio", "stall"]
        )
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
    if all(path.is_file() for _, path in PACE_RUNS):
        out += pace_markdown([(name, json.loads(path.read_text(encoding="utf-8"))) for name, path in PACE_RUNS])
    return out
