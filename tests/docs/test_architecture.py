"""docs/architecture.md stays true: every module and folder it names exists, and every part of the
import-linter layering appears in its picture, as many as the page says."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "architecture.md"
# The picture names files relative to the package on the line above it; the tables name them from the root.
BASES = [
    REPO,
    REPO / "agent" / "voice_agent",
    REPO / "container" / "kokoro_server",
    REPO / "speech_protocol" / "speech_protocol",
    REPO / "speech_protocol" / "speech_protocol" / "pieces",
    REPO / "container" / "kokoro_server" / "text",
    REPO / "container" / "kokoro_server" / "engine",
]


def _named_paths(text: str) -> set[str]:
    return set(re.findall(r"[\w/]+\.py|[\w]+(?:/[\w]+)+/", text))


def test_every_named_path_exists() -> None:
    missing = sorted(p for p in _named_paths(PAGE.read_text()) if not any((base / p).exists() for base in BASES))
    assert missing == [], f"docs/architecture.md names paths that do not exist: {missing}"


def test_every_named_module_exists() -> None:
    dotted = set(re.findall(r"`((?:kokoro_server|speech_protocol|voice_agent)(?:\.\w+)+)`", PAGE.read_text()))
    roots = {
        "kokoro_server": REPO / "container",
        "voice_agent": REPO / "agent",
        "speech_protocol": REPO / "speech_protocol",
    }
    for name in sorted(dotted):
        path = roots[name.split(".")[0]].joinpath(*name.split("."))
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), name


NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]


def test_the_picture_shows_every_layer_and_the_page_counts_them() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    text = PAGE.read_text()
    assert [p for p in config["root_packages"] if p not in text] == []
    counted = re.search(r"^(\w+) packages, each of its own name", text, re.M)
    assert counted is not None and NUMBERS.index(counted[1].lower()) == len(config["root_packages"]), counted
    assert "docs/architecture.md" in (REPO / "README.md").read_text(), "the README links the page"
