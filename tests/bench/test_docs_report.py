"""The figures in docs/ and the README are generated from bench/results/*.json, never typed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kokoro_bench.reporting.docs_report import (
    BEGIN,
    PAGE,
    RESULTS,
    load_gpu_run,
    render_markdown,
    updated_capacity,
    updated_page,
)
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


def test_the_soak_figures_in_the_docs_and_readme_are_the_results_files() -> None:
    from kokoro_bench.reporting.soak_report import SOAK, rendered_pages

    assert SOAK.is_file(), "bench/results/soak.json is missing: run the soak command in docs/capacity.md"
    for page, text in rendered_pages().items():
        assert page.read_text(encoding="utf-8") == text, (
            f"{page} is stale: run .venv/bin/python -m kokoro_bench report --write"
        )


def test_soak_figures_need_their_marker_lines() -> None:
    from kokoro_bench.reporting.soak_report import updated

    with pytest.raises(ValueError, match="marker"):
        updated("# no markers\n", "figures\n", "page.md")


def test_the_slowed_server_runs_are_one_row_per_run_and_text_slowest_last() -> None:
    from kokoro_bench.reporting.simulated_report import load_runs, markdown

    runs = load_runs()
    assert runs, "bench/results/simulated/ holds no run: run the --simulate-rtf command in docs/benchmark.md"
    slowed = [run["meta"]["simulate_rtf"] for run in runs]
    assert slowed == sorted(slowed) and all(slowed)
    rows = [line for line in markdown(runs) if line.startswith("| ") and not line.startswith("| slowed")]
    assert len(rows) == sum(len(run["lower_bounds"]) for run in runs)
    assert markdown([]) == []


def test_the_interrupt_figures_in_the_conversation_page_are_the_results_files() -> None:
    from kokoro_bench.reporting.interrupt_report import CONVERSATION_PAGE, INTERRUPT, rendered_pages

    assert INTERRUPT.is_file(), "bench/results/interrupt.json is missing: run the command in docs/conversation.md"
    pages = rendered_pages()
    assert list(pages) == [CONVERSATION_PAGE]
    assert CONVERSATION_PAGE.read_text(encoding="utf-8") == pages[CONVERSATION_PAGE], (
        f"{CONVERSATION_PAGE} is stale: run .venv/bin/python -m kokoro_bench report --write"
    )
    figures = json.loads(INTERRUPT.read_text(encoding="utf-8"))["figures"]
    assert f"real-time factor **{figures['server_rtf_advertised']}**" in pages[CONVERSATION_PAGE]


def test_every_generated_block_in_the_pages_is_its_results_files() -> None:
    """``kokoro_bench report --check`` over every page it generates (benchmark, capacity, soak, interrupt,
    languages, frameworks, images): a results file re-measured without ``report --write`` fails here."""
    done = subprocess.run(
        [sys.executable, "-m", "kokoro_bench", "report", "--check"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "every page is current" in done.stderr
