"""``python -m kokoro_devtools.suite_costs [--check]``: render docs/test-costs.md from tests/costs.json (run
in the repository's root), or with ``--check`` exit 1 if the page is not what the cost map renders. A missing
or unreadable cost map is one ``error:`` line and exit 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .page import PAGE, RESULTS, render


def main(argv: list[str]) -> int:
    if argv not in ([], ["--check"]):
        print("usage: python -m kokoro_devtools.suite_costs [--check]", file=sys.stderr)
        return 2
    root = Path.cwd()
    try:
        expected = render(json.loads((root / RESULTS).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        print(f"error: {RESULTS} is not a cost map ({err!r}): run ./test.sh --cost-map", file=sys.stderr)
        return 2
    if argv == ["--check"]:
        if not (root / PAGE).is_file() or (root / PAGE).read_text(encoding="utf-8") != expected:
            print(f"{PAGE} is not what {RESULTS} renders: run python -m kokoro_devtools.suite_costs", file=sys.stderr)
            return 1
        return 0
    (root / PAGE).write_text(expected, encoding="utf-8")
    print(f"wrote {root / PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
