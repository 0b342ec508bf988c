"""Generated blocks in hand-written pages: the text between two marker lines, replaced whole.

Figures typed by hand drift from the runs they claim to report, so ``python -m kokoro_bench report`` writes
them between markers in docs/benchmark.md, docs/capacity.md and the README, and ``--check`` compares.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path


def replace_between(page: str, begin: str, end: str, body: Callable[[], str], name: str) -> str:
    """``page`` with what lies between its ``begin`` and ``end`` lines replaced by ``body()``, which is
    rendered only once the markers are found (a page without them is refused before any work)."""
    if begin not in page or end not in page:
        raise ValueError(f"{name} lacks the marker lines around its generated figures")
    head, rest = page.split(begin, 1)
    _old, tail = rest.split(end, 1)
    return f"{head}{begin}\n{body()}{end}{tail}"


def page_from_results(results: Path, page: Path, begin: str, end: str, body: Callable[[dict], str]) -> dict[Path, str]:
    """``page`` with its block rendered by ``body`` from the JSON in ``results`` (nothing without the file)."""
    if not results.is_file():
        return {}
    figures = json.loads(results.read_text(encoding="utf-8"))
    text = page.read_text(encoding="utf-8")
    return {page: replace_between(text, begin, end, lambda: body(figures), str(page))}
