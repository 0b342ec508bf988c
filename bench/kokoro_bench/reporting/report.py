"""The run's figures as plain-text tables (what ``python -m kokoro_bench`` prints), ratios and targets last."""

from __future__ import annotations

from .cost import COST_COLUMNS
from .results import BenchReport


def _s(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]

    def line(cells):
        return "  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def render(report: BenchReport) -> str:
    m = report.meta
    out = [
        f"machine: {m['machine']}; engine {m['engine']} on {m['device']}; LLM {m['tokens_per_s']:g} tokens/s; "
        f"load average {m['load_average_start']} -> {m.get('load_average_end')}",
        f"real-time factor: advertised {m.get('server_rtf_advertised')}, measured on sentences "
        f"{m.get('rtf_measured')}; adaptive first piece: >= {m.get('first_piece_min_words')} words, "
        f"clause cuts until {m.get('ramp_words')} words are out",
        "",
        "per text and strategy (seconds from the request; audible = first sample above -40 dBFS played;",
        "whole = complete audio delivered at once; 'if streamed' = its first byte had the server streamed it)",
    ]
    out += _table(
        [
            "text",
            "strategy",
            "first byte",
            "audible",
            "last audio",
            "stall",
            "played to",
            "audio",
            "pieces",
            "if streamed",
        ],
        [
            [
                r.text,
                r.strategy,
                _s(r.ttfa_s),
                _s(r.audible_s),
                _s(r.last_audio_s),
                _s(r.stall_s),
                _s(r.end_s),
                _s(r.audio_s, 1),
                str(r.pieces),
                _s(r.streamed_first_byte_s) if r.strategy == "whole" else "-",
            ]
            for r in report.results
        ],
    )
    out += ["", "pipelined over the designs it replaces (lower is better)"]
    out += _table(
        ["text", "audible/whole", "audible/sequential", "first byte/whole", "first byte/sequential"],
        [
            [
                r["text"],
                _s(r["audible_vs_whole"], 3),
                _s(r["audible_vs_sequential"], 3),
                _s(r["ttfa_vs_whole"], 3),
                _s(r["ttfa_vs_sequential"], 3),
            ]
            for r in report.ratios
        ],
    )
    if report.overhead:
        o = report.overhead
        out += [
            "",
            f"server overhead: median {o.median_ratio:.3f} (server first audio / in-process engine), "
            f"{o.median_extra_s * 1000:+.0f} ms per piece",
        ]
        out += _table(
            ["piece", "engine", "server", "ratio"],
            [[p.text[:48], _s(p.engine_s, 3), _s(p.server_s, 3), _s(p.ratio, 3)] for p in o.pieces],
        )
    if report.lower_bounds:
        b0 = report.lower_bounds[0]
        out += [
            "",
            f"pipelined against the lower bound (earliest zero-stall first audio of any word cut, this run's "
            f"LLM timeline; synthesis {b0.overhead_s:.3f} s + rtf {b0.rtf:.3f} x audio, "
            f"{b0.words_per_s:.2f} words/s)",
        ]
        out += _table(
            [
                "text",
                "bound audible",
                "natural-cut bound",
                "pipelined audible",
                "ratio",
                "natural ratio",
                "bound's first piece",
                "natural bound's",
                "pipelined's",
            ],
            [
                [
                    b.text,
                    _s(b.bound_audible_s),
                    _s(b.natural_audible_s),
                    _s(b.pipelined_audible_s),
                    _s(b.ratio, 3),
                    _s(b.natural_ratio, 3),
                    b.bound_first_piece[:24],
                    b.natural_first_piece[:24],
                    b.pipelined_first_piece[:24],
                ]
                for b in report.lower_bounds
            ],
        )
    if report.sweep:
        out += ["", "first-piece length (pipelined)"]
        out += _table(
            ["policy", "min words", "first byte", "audible", "stall", "first piece"],
            [
                [
                    s.policy,
                    str(s.first_piece_min_words),
                    _s(s.ttfa_s),
                    _s(s.audible_s),
                    _s(s.stall_s),
                    s.first_piece[:50],
                ]
                for s in report.sweep
            ],
        )
    if report.concurrency:
        out += ["", "concurrent sessions on one server (pipelined)"]
        out += _table(
            [
                "sessions",
                "first byte p50",
                "p95",
                "audible p50",
                "p95",
                "max stall",
                "aggregate rtf",
                "throughput",
                "vs one",
            ],
            [
                [
                    str(c.sessions),
                    _s(c.ttfa_p50_s),
                    _s(c.ttfa_p95_s),
                    _s(c.audible_p50_s),
                    _s(c.audible_p95_s),
                    _s(c.max_stall_s),
                    _s(c.aggregate_rtf, 3),
                    f"{c.throughput_x:.2f}x",
                    _s(c.throughput_vs_one),
                ]
                for c in report.concurrency
            ],
        )
    if report.capacity is not None:
        cap = report.capacity
        held = f"{cap.sessions} concurrent session(s) with" if cap.sessions else "no load of the ladder kept"
        out += [
            "",
            f"capacity on this machine: {held} zero stall and first audio p95 < 1 s (rtf {cap.rtf}); cost per "
            f"instance (prices: bench/kokoro_bench/data/instance_prices.json)",
        ]
        out += _table(COST_COLUMNS, [c.cells() for c in report.cost])
    out += ["", "targets"]
    verdict = {True: "met", False: "NOT met", None: "not measured"}
    out += _table(
        ["target", "value", "goal", ""], [[t.name, _s(t.value, 3), t.goal, verdict[t.met]] for t in report.targets]
    )
    return "\n".join(out)
