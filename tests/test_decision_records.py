"""Every decision record says whether it still holds, and docs/decisions/README.md indexes every record with
that status."""

from __future__ import annotations

import re

from servers import REPO

DECISIONS = REPO / "docs" / "decisions"
STATUS = re.compile(r"^Status: (accepted(?: \(.+\))?|superseded by (\d{3}))$", re.MULTILINE)


def records() -> dict[str, str]:
    return {path.name[:3]: path.read_text(encoding="utf-8") for path in sorted(DECISIONS.glob("[0-9][0-9][0-9]-*.md"))}


def test_every_record_has_one_status_line_and_supersedes_only_into_a_record() -> None:
    found = records()
    for number, text in found.items():
        statuses = STATUS.findall(text)
        assert len(statuses) == 1, f"{number}: needs exactly one 'Status: accepted' or 'Status: superseded by NNN' line"
        successor = statuses[0][1]
        assert not successor or (successor in found and successor != number), f"{number}: superseded by {successor}?"


def test_the_index_lists_every_record_with_its_status() -> None:
    index = (DECISIONS / "README.md").read_text(encoding="utf-8")
    rows = {m[0]: m[1] for m in re.findall(r"^\| \[(\d{3})\]\(\d{3}-[^)]+\.md\) \| [^|]+ \| ([^|]+) \|", index, re.M)}
    expected = {number: STATUS.findall(text)[0][0] for number, text in records().items()}
    assert {number: status.strip() for number, status in rows.items()} == expected, (
        "docs/decisions/README.md is out of step with the records' Status lines"
    )
