"""The endurance figures in docs/capacity.md and the README, from ``bench/results/soak.json``, and the soak with
renders stopped while they run, from ``bench/results/soak_terminated.json`` (both written by
``python -m kokoro_bench soak ... --json``)."""

from __future__ import annotations

from ..paths import REPO, RESULTS
from .markers import Block, measured_at

CAPACITY_PAGE = REPO / "docs" / "capacity.md"


def _kinds(counts: dict) -> str:
    return ", ".join(f"`{k}` {v}" for k, v in sorted(counts.items())) or "none"


def command(report: dict) -> str:
    flag = " --terminated" if report.get("terminated") else ""
    return f"python -m kokoro_bench soak --minutes {report['minutes']:g} --sessions {report['sessions']}{flag}"


def table(report: dict) -> str:
    """The full figures, for docs/capacity.md."""
    rss, done = report["rss_mb"], report["completed"]
    rows = [
        ("sessions completed", f"{sum(done.values())} ({_kinds(done)})"),
        ("expected errors", _kinds(report["expected_errors"])),
        ("unexpected errors", _kinds(report["unexpected_errors"])),
        ("RSS", f"{rss['start']} MB at start, {rss['after_warm_up']} MB after warm-up, {rss['end']} MB at the end"),
        (
            "RSS slope after warm-up",
            f"{report['rss_slope_mb_per_min']} MB/min, {report['rss_growth_pct_per_30_min']} % per 30 min (goal < 5 %)",
        ),
        ("descriptors", f"{report['fds']['after_warm_up']} after warm-up, {report['fds']['end']} at the end"),
        ("threads", f"{report['threads']['after_warm_up']} after warm-up, {report['threads']['end']} at the end"),
        (
            "processes (the server and its G2P workers, whose RSS, descriptors and threads are counted too)",
            f"{report['processes']['after_warm_up']} after warm-up, {report['processes']['end']} at the end",
        ),
        ("leaks", ", ".join(report.get("leaks") or []) or "none"),
    ]
    if report.get("terminated"):
        stopped = sum(n for kind, n in done.items() if kind.endswith("_mid_render"))
        late = report.get("heard_before_stop", 0)
        rows.insert(1, ("renders stopped while running", f"{stopped} ({late} cancels came after the render ended)"))
    lines = [measured_at(report, command(report), report["server_rtf"]) + ".", "", "| figure | value |", "|---|---|"]
    return "\n".join(lines + [f"| {name} | {value} |" for name, value in rows]) + "\n"


def summary(report: dict) -> str:
    """One line for the README."""
    rss = report["rss_mb"]
    return (
        f"Endurance, last run (`{command(report)}` at commit {report['commit']}, real-time factor "
        f"{report['server_rtf']}): RSS {rss['after_warm_up']} -> {rss['end']} MB after warm-up "
        f"({report['rss_growth_pct_per_30_min']} % per 30 min), {sum(report['completed'].values())} sessions, "
        f"{sum(report['unexpected_errors'].values())} unexpected errors, "
        f"leaks: {', '.join(report.get('leaks') or []) or 'none'}.\n"
    )


BLOCK = Block("soak", RESULTS / "soak.json", {CAPACITY_PAGE: table, REPO / "README.md": summary})
TERMINATED = Block("terminated soak", RESULTS / "soak_terminated.json", {CAPACITY_PAGE: table})
