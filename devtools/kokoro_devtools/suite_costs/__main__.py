"""``python -m kokoro_devtools.suite_costs [--check]``: render docs/test-costs.md from tests/costs.json (run
in the repository's root), or with ``--check`` exit 1 if the page is not what the cost map renders."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .page import PAGE, RESULTS, render, write


def main(argv: list[str]) -> int:
    root = Path.cwd()
    if argv == ["--check"]:
        expected = render(json.loads((root / RESULTS).read_text(encoding="utf-8")))
        if (root / PAGE).read_text(encoding="utf-8") != expected:
            print(f"{PAGE} is not what {RESULTS} renders: run python -m kokoro_devtools.suite_costs", file=sys.stderr)
            return 1
        return 0
    if argv:
        print("usage: python -m kokoro_devtools.suite_costs [--check]", file=sys.stderr)
        return 2
    print(f"wrote {write(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
