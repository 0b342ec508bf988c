"""Markdown written for eyes comes out as text the synthesizer can read, one piece at a time."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speech_protocol.pieces.speakable import has_words, is_fence, speakable


def body(piece: str) -> str:
    return speakable(piece, line_start=False)


def line(piece: str) -> str:
    return speakable(piece, line_start=True)


@pytest.mark.parametrize(
    ("raw", "spoken"),
    [
        ("**bold** and __strong__ and *it* and _em_", "bold and strong and it and em"),
        ("~~gone~~ and `inline code`", "gone and inline code"),
        ("see [the docs](https://example.com/a_b) now", "see the docs now"),
        ('a [titled link](https://x.org "Title here") here', "a titled link here"),
        ("[Paris](https://en.wikipedia.org/wiki/Paris_(France)) is big.", "Paris is big."),
        ("![a cat](cat.png) sat", "a cat sat"),
        ("Visit https://www.example.com/path?q=1#frag.", "Visit example.com."),
        ("(see https://example.org/a)", "(see example.org)"),
        ("autolink <https://kokoro.dev/docs> here", "autolink kokoro.dev here"),
        ("mail bob.smith@example.org today", "mail bob.smith@example.org today"),
        ("call snake_case_name now", "call snake case name now"),
        ("| a | b |", "a b"),
        ("C# and #hashtag stay", "C# and #hashtag stay"),
        ("  lots   of\tspace  ", "lots of space"),
        ("Caf\u00e9 na\u00efve \u65e5\u672c\u8a9e", "Caf\u00e9 na\u00efve \u65e5\u672c\u8a9e"),
    ],
)
def test_inline_markup_is_removed(raw: str, spoken: str) -> None:
    assert body(raw) == spoken


@pytest.mark.parametrize(
    ("raw", "spoken"),
    [
        ("# Heading", "Heading"),
        ("### Closed heading ###", "Closed heading"),
        ("## C#", "C#"),
        ("- dash bullet", "dash bullet"),
        ("* star bullet", "star bullet"),
        ("+ plus bullet", "plus bullet"),
        ("• round bullet", "round bullet"),
        ("> quoted", "quoted"),
        ("> > nested **quote**", "nested quote"),
        ("1. First item", "1. First item"),
        ("2) Second item", "2) Second item"),
    ],
)
def test_line_markup_counts_only_at_a_line_start(raw: str, spoken: str) -> None:
    assert line(raw) == spoken


def test_a_hash_inside_a_line_is_text() -> None:
    assert body("# not a heading here") == "# not a heading here"
    assert body("- minus five") == "- minus five"


def test_markup_split_across_pieces_is_removed_from_each_half() -> None:
    """The segmenter may cut inside emphasis or link text; each half loses its own symbols."""
    assert [body("**First sentence."), body("Second part**")] == ["First sentence.", "Second part"]
    assert [body("[see the docs."), body("Then here](https://x.com/a).")] == ["see the docs.", "Then here."]


@pytest.mark.parametrize("raw", ["", "   ", "---", "***", "|---|---|", "**", "?!...", "```", "> ", "\U0001f44d"])
def test_pieces_without_words_are_not_spoken(raw: str) -> None:
    assert line(raw) == ""
    assert body(raw) == ""


def test_code_lines_keep_their_symbols() -> None:
    assert speakable("  x = a * b  # note", line_start=True, in_code=True) == "x = a * b # note"
    assert speakable("}", line_start=True, in_code=True) == ""


@pytest.mark.parametrize("raw", ["```", "```python", "   ~~~", "````text"])
def test_fences(raw: str) -> None:
    assert is_fence(raw)


@pytest.mark.parametrize("raw", ["``", "text ```", "`code`", ""])
def test_not_fences(raw: str) -> None:
    assert not is_fence(raw)


def test_has_words() -> None:
    assert has_words("a") and has_words("7") and has_words("\u00e9")
    assert not has_words("") and not has_words("?! -- **")


def test_hostile_markup_is_handled_in_linear_time() -> None:
    """Patterns that make naive regexes backtrack: unclosed link targets, long URL runs, bracket soup."""
    assert body("](" * 50_000 + "x") == "(" * 50_000 + "x"
    assert body("https://" + "a." * 50_000 + "com") == "a." * 50_000 + "com"
    assert body("[" * 50_000 + "word" + "]" * 50_000) == "word"
    assert body("_*`~~" * 50_000 + "w") == "w"


@given(st.text())
def test_never_grows_a_piece_and_never_invents_text(raw: str) -> None:
    for spoken in (line(raw), body(raw), speakable(raw, line_start=True, in_code=True)):
        assert len(spoken) <= len(raw)
        assert spoken == spoken.strip()
        assert spoken == "" or has_words(spoken)
        assert_subsequence([c for c in spoken if c.isalnum()], [c for c in raw if c.isalnum()])


def assert_subsequence(needle: list[str], haystack: list[str]) -> None:
    rest = iter(haystack)
    assert all(ch in rest for ch in needle), (needle, haystack)
