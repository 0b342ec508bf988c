"""The figures in docs/ and the README are generated from bench/results/*.json, never typed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kokoro_bench.report_command import BLOCKS
from kokoro_bench.reporting.docs_report import (
    BEGIN,
    PAGE,
    RESULTS,
    load_gpu_run,
    render_markdown,
    updated_capacity,
    updated_page,
)
from kokoro_bench.reporting.markers import rendered_pages, replace_between
from kokoro_stacks.settings.measured_capacity import MEASURED


def test_the_benchmark_page_is_generated_from_the_results_file() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert updated_page(page, json.loads(RESULTS.read_text(encoding="utf-8")), load_gpu_run()) == page, (
        "docs/benchmark.md is stale: run .venv/bin/python -m kokoro_bench report --write"
    )


def test_the_stacks_capacity_record_is_the_results_files() -> None:
    recorded = json.loads(MEASURED.read_text(encoding="utf-8"))
    assert updated_capacity(recorded, json.loads(RESULTS.read_text(encoding="utf-8"))) == recorded, (
        "stacks/kokoro_stacks/settings/data/measured_capacity.json is stale: run .venv/bin/python -m kokoro_bench report --write"
    )


def test_every_table_says_the_real_time_factor_it_was_measured_at() -> None:
    figures = render_markdown(json.loads(RESULTS.read_text(encoding="utf-8")), load_gpu_run())
    headings = [line for line in figures.splitlines() if line.startswith("### ")]
    assert headings and all("rtf" in h or "request" in h for h in headings)
    assert "measured on sentences" in figures.splitlines()[0]


def test_a_page_without_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="marker"):
        updated_page("# no markers here\n", {})
    assert BEGIN.startswith("<!--")


def test_a_machine_too_slow_for_one_second_first_audio_scales_on_its_zero_stall_load() -> None:
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    ladder = [{"sessions": n, "max_stall_s": stall, "ttfa_p95_s": 1.9} for n, stall in ((1, 0.0), (2, 0.0), (4, 5.0))]
    slow = {**data, "capacity": {"sessions": None, "throughput_x": None, "rtf": 0.6}, "concurrency": ladder}
    entry = updated_capacity({}, slow)[data["meta"]["engine"]]
    assert entry["sessions"] == 2 and entry["criterion"].startswith("zero stall")
    never = {**slow, "concurrency": [{**ladder[0], "max_stall_s": 3.0}]}
    assert updated_capacity({}, never)[data["meta"]["engine"]] is None  # unmeasured: the stack's default


@pytest.mark.parametrize("block", BLOCKS, ids=lambda block: block.name)
def test_each_generated_block_is_its_results_file_and_says_what_it_was_measured_at(block) -> None:
    """Every block of the other pages (soak, interrupt, languages, frameworks, images) is current, and opens
    with the commit and the real-time factor its figures were measured at."""
    assert block.results.is_file(), f"{block.results} is missing: run the command its page shows"
    figures = json.loads(block.results.read_text(encoding="utf-8"))
    pages = rendered_pages((block,))
    assert set(pages) == set(block.pages)
    for page, text in pages.items():
        assert page.read_text(encoding="utf-8") == text, (
            f"{page} is stale: run .venv/bin/python -m kokoro_bench report --write"
        )
        opening = text.split(block.begin, 1)[1].lstrip("\n").splitlines()[0]
        assert f"commit {figures['commit']}" in opening and "real-time factor" in opening, opening


def test_a_block_needs_its_marker_lines() -> None:
    with pytest.raises(ValueError, match="marker"):
        replace_between("# no markers\n", BLOCKS[0].begin, BLOCKS[0].end, lambda: "figures\n", "page.md")


def test_the_slowed_server_runs_are_one_row_per_run_and_text_slowest_last() -> None:
    from kokoro_bench.reporting.simulated_report import load_runs, markdown

    runs = load_runs()
    assert runs, "bench/results/simulated/ holds no run: run the --simulate-rtf command in docs/benchmark.md"
    slowed = [run["meta"]["simulate_rtf"] for run in runs]
    assert slowed == sorted(slowed) and all(slowed)
    rows = [line for line in markdown(runs) if line.startswith("| ") and not line.startswith("| slowed")]
    assert len(rows) == sum(len(run["lower_bounds"]) for run in runs)
    assert markdown([]) == []


def test_every_generated_block_in_the_pages_is_its_results_files() -> None:
    """``kokoro_bench report --check`` over every page it generates (benchmark, capacity, soak, interrupt,
    languages, frameworks, images): a results file re-measured without ``report --write`` fails here."""
    done = subprocess.run(
        [sys.executable, "-m", "kokoro_bench", "report", "--check"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "every page is current" in done.stderr
