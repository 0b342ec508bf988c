"""One benchmark run's figures as markdown tables: what ``python -m kokoro_bench`` prints when it ends, and
what ``python -m kokoro_bench report`` writes into docs/benchmark.md from the results file. One renderer for
both, from the results file's own shape (a dict), so the terminal and the page can never disagree.
"""

from __future__ import annotations

from ..measuring.concurrency import ConcurrencyResult
from .cost import COST_COLUMNS, Capacity, MeasuredRun, at_ladder_top, capacity, cost_rows, load_prices, machine_label
from .markers import commit_of


def s(value: float | None, digits: int = 2, unit: str = "") -> str:
    return "-" if value is None else f"{value:.{digits}f}{unit}"


def table(header: list[str], rows: list[list]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows),
        "",
    ]


def capacity_of(data: dict) -> dict:
    """The run's capacity (older results files hold only the concurrency ladder it is derived from)."""
    if data.get("capacity"):
        return data["capacity"]
    ladder = [ConcurrencyResult(**c) for c in data.get("concurrency", [])]
    return capacity(ladder, data["meta"].get("rtf_measured")).__dict__


def measured_run(data: dict) -> MeasuredRun:
    m, cap = data["meta"], Capacity(**capacity_of(data))
    ladder = [ConcurrencyResult(**c) for c in data.get("concurrency", [])]
    return MeasuredRun(cap, m["engine"], m["device"], machine_label(m), at_ladder_top(cap, ladder))


def _ladder(concurrency: list[dict]) -> list[str]:
    return table(
        ["sessions", "first byte p50 / p95", "max stall", "aggregate rtf", "throughput vs one"],
        [
            [
                c["sessions"],
                f"{s(c['ttfa_p50_s'])} / {s(c['ttfa_p95_s'])} s",
                s(c["max_stall_s"], 2, " s"),
                s(c["aggregate_rtf"], 3),
                s(c["throughput_vs_one"]),
            ]
            for c in concurrency
        ],
    )


def _gpu_section(gpu: dict) -> list[str]:
    m, cap = gpu["meta"], capacity_of(gpu)
    return [
        f"### GPU run: concurrent sessions (pipelined, rtf {m.get('rtf_measured')}; {m.get('engine')} on "
        f"{m.get('device')}, {machine_label(m)})",
        "",
        f"Run of {m.get('date')} (commit {commit_of(m)}); texts {', '.join(m.get('texts', {}))}; medians of "
        f"{m.get('repeats')}; advertised rtf {m.get('server_rtf_advertised')}. Most concurrent sessions with zero "
        f"stall and first audio p95 < 1 s: **{cap['sessions'] or 'none'}**"
        + (" (the largest level tried: the limit lies higher)" if measured_run(gpu).at_ladder_top else "")
        + ".",
        "",
        *_ladder(gpu.get("concurrency", [])),
    ]


def _first_audio(data: dict, rtf) -> list[str]:
    out = ["### First audio per text and strategy (seconds from the request)", ""]
    out += table(
        ["text", "strategy", "first byte", "audible", "last audio", "stall", "played to", "first piece"],
        [
            [
                r["text"],
                r["strategy"],
                s(r["ttfa_s"]),
                s(r["audible_s"]),
                s(r["last_audio_s"]),
                s(r["stall_s"]),
                s(r["end_s"]),
                r["first_piece"][:48] if r["strategy"] == "pipelined" else "",
            ]
            for r in data["results"]
        ],
    )
    pipelined = [r for r in data["results"] if r["strategy"] == "pipelined" and r.get("first_pieces")]
    if pipelined:
        out += [f"### Pipelined first audio across the repeats (rtf {rtf}; each repeat a session of its own)", ""]
        out += table(
            ["text", "repeats", "audible min / median / max", "spread", "first piece of each repeat"],
            [
                [
                    r["text"],
                    r["repeats"],
                    f"{s(r['audible_min_s'])} / {s(r['audible_s'])} / {s(r['audible_max_s'])}",
                    s(r["audible_spread"], 3),
                    " · ".join(f'"{piece[:40]}"' for piece in r["first_pieces"]),
                ]
                for r in pipelined
            ],
        )
    if data.get("ratios"):
        out += [f"### Pipelined over the designs it replaces (rtf {rtf}; lower is better)", ""]
        out += table(
            ["text", "audible / whole", "audible / sequential", "first byte / whole", "first byte / sequential"],
            [
                [r["text"], *(s(r[k], 3) for k in ("audible_vs_whole", "audible_vs_sequential", "ttfa_vs_whole"))]
                + [s(r["ttfa_vs_sequential"], 3)]
                for r in data["ratios"]
            ],
        )
    return out


def _overhead(overhead: dict) -> list[str]:
    return [
        f"### Server overhead (rtf {overhead['rtf']} on these pieces): median {overhead['median_ratio']:.3f} "
        f"(server first audio over the in-process engine's), {overhead['median_extra_s'] * 1000:+.0f} ms per piece",
        "",
        *table(
            ["piece", "engine", "server", "ratio"],
            [[p["text"][:48], s(p["engine_s"], 3), s(p["server_s"], 3), s(p["ratio"], 3)] for p in overhead["pieces"]],
        ),
    ]


def _bounds(bounds: list[dict]) -> list[str]:
    b0 = bounds[0]
    return [
        f"### Against the lower bound (rtf {b0['rtf']}, {b0['overhead_s']} s per piece, "
        f"{b0['words_per_s']} words/s, fitted on this run)",
        "",
        "Two bounds: the earliest zero-stall first audio of any cut at word boundaries, and of the cuts the "
        "segmenter makes without breaking a phrase (clause and sentence ends, before a phrase-opening word).",
        "",
        *table(
            [
                "text",
                "bound: any word cut",
                "bound: natural cuts",
                "pipelined",
                "ratio (any)",
                "ratio (natural)",
                "first piece: any / natural / pipelined",
            ],
            [
                [
                    b["text"],
                    s(b["bound_audible_s"]),
                    s(b.get("natural_audible_s")),
                    s(b["pipelined_audible_s"]),
                    s(b["ratio"], 3),
                    s(b.get("natural_ratio"), 3),
                    f"{b['bound_first_piece']} / {b.get('natural_first_piece', '')} / {b['pipelined_first_piece']}",
                ]
                for b in bounds
            ],
        ),
    ]


def _sweep(sweep: list[dict], rtf) -> list[str]:
    return [
        f"### First-piece length, pipelined (rtf {rtf})",
        "",
        *table(
            ["policy", "min words", "first byte", "audible", "stall", "first piece"],
            [
                [w["policy"], w["first_piece_min_words"], s(w["ttfa_s"]), s(w["audible_s"]), s(w["stall_s"])]
                + [w["first_piece"][:50]]
                for w in sweep
            ],
        ),
    ]


def _capacity(data: dict, gpu: dict | None) -> list[str]:
    cap, prices = capacity_of(data), load_prices()
    rows = cost_rows([measured_run(data), *([measured_run(gpu)] if gpu else [])], prices)
    return [
        f"### Capacity and cost (rtf {cap['rtf']})",
        "",
        f"Most concurrent sessions with zero stall and first audio p95 < 1 s: **{cap['sessions'] or 'none'}**.",
        "",
        *table(COST_COLUMNS, [c.cells() for c in rows]),
        f"Prices: {prices['kind']}, {prices['region']}, {prices['date']}; source: {prices['source']}",
        "",
    ]


def run_markdown(data: dict, gpu: dict | None = None) -> str:
    """The run's figures, each table headed with the real-time factor it was measured at."""
    m = data["meta"]
    rtf = m.get("rtf_measured")
    out = [
        f"Run of {m.get('date')} (commit {commit_of(m)}): {m.get('machine')}; {m.get('engine')} on "
        f"{m.get('device')}; LLM {m.get('tokens_per_s')} tokens/s; medians of {m.get('repeats')}; load average "
        f"{m.get('load_average_start')} at the start. Real-time factor: advertised {m.get('server_rtf_advertised')}, "
        f"measured on sentences **{rtf}**"
        + (f" (synthesis slowed on purpose to {m['simulate_rtf']})" if m.get("simulate_rtf") else "")
        + ".",
        "",
        *_first_audio(data, rtf),
    ]
    if data.get("overhead"):
        out += _overhead(data["overhead"])
    if data.get("lower_bounds"):
        out += _bounds(data["lower_bounds"])
    if data.get("sweep"):
        out += _sweep(data["sweep"], rtf)
    if data.get("concurrency"):
        out += [f"### Concurrent sessions (pipelined, rtf {rtf}; the server's listener limit lifted)", ""]
        out += _ladder(data["concurrency"])
    if gpu is not None:
        out += _gpu_section(gpu)
    if capacity_of(data):
        out += _capacity(data, gpu)
    verdict = {True: "met", False: "not met", None: "not measured"}
    out += [f"### Targets (rtf {rtf})", ""]
    out += table(
        ["target", "measured", "goal", ""],
        [[t["name"], s(t["value"], 3), t["goal"], verdict[t["met"]]] for t in data["targets"]],
    )
    return "\n".join(out).rstrip() + "\n"
