"""``python -m kokoro_bench report``: every page's figures, generated from the results files.

Typed-in figures drift from the runs they claim to report. This renders docs/benchmark.md's tables from
``bench/results/bench.json`` (:mod:`kokoro_bench.reporting.docs_report`), the stacks' capacity record from the
same run, and every other page's blocks (:data:`BLOCKS`) from their studies' results files; ``--check`` only
says whether the pages are current (the test suite runs it), exit 1 if one is not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from kokoro_stacks.settings.measured_capacity import MEASURED

from .reporting import soak_report
from .reporting.docs_report import GPU_RESULTS, PAGE, RESULTS, load_gpu_run, updated_capacity, updated_page
from .reporting.markers import rendered_pages
from .studies import frameworks, images, interrupt, language_answers, latecomer

# Every other page's block: a results file, the pages it fills, and how.
BLOCKS = (
    soak_report.BLOCK,
    soak_report.TERMINATED,
    interrupt.BLOCK,
    interrupt.LONG_BLOCK,
    language_answers.BLOCK,
    frameworks.BLOCK,
    images.BLOCK,
    latecomer.BLOCK,
)


def report(
    results: Annotated[Path, typer.Option("--json", help="The results file.")] = RESULTS,
    gpu_results: Annotated[Path, typer.Option("--gpu-json", help="The GPU run's results file, if any.")] = GPU_RESULTS,
    page: Annotated[Path, typer.Option(help="The page whose figures to replace.")] = PAGE,
    check: Annotated[bool, typer.Option(help="Exit 1 if a page is stale (for CI).")] = False,
    write: Annotated[bool, typer.Option(help="Rewrite the stale pages (tracked files) in place.")] = False,
) -> None:
    """Render the figures of RESULTS into PAGE (between its marker lines); without --write, only say which
    tracked files are stale."""
    try:
        data = json.loads(results.read_text(encoding="utf-8"))
        old = page.read_text(encoding="utf-8")
        new = updated_page(old, data, load_gpu_run(gpu_results))
        old_capacity = json.loads(MEASURED.read_text(encoding="utf-8")) if MEASURED.exists() else {}
        new_capacity = updated_capacity(old_capacity, data)
        generated = rendered_pages(BLOCKS)
    except (OSError, ValueError, KeyError, TypeError) as err:
        typer.echo(f"bench report: {err}", err=True)
        raise typer.Exit(2) from None
    if not write:
        stale = [str(p) for p, text in generated.items() if p.read_text(encoding="utf-8") != text]
        stale += [str(page)] * (new != old) + [str(MEASURED)] * (new_capacity != old_capacity)
        if not stale:
            typer.echo("every page is current", err=True)
            return
        typer.echo(
            f"stale: {', '.join(stale)}; rewrite them: .venv/bin/python -m kokoro_bench report --write", err=True
        )
        raise typer.Exit(1 if check else 0)
    page.write_text(new, encoding="utf-8")
    MEASURED.write_text(json.dumps(new_capacity, indent=1) + "\n", encoding="utf-8")
    for generated_page, text in generated.items():
        generated_page.write_text(text, encoding="utf-8")
    typer.echo(f"wrote {page}, {MEASURED}" + "".join(f", {p}" for p in generated), err=True)
