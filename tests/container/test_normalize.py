"""The speech normalizer: its text on every case of the test set, what G2P makes of it, the map back to
the written text, and hostile input (never a crash, never a silent drop)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jiwer
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kokoro_server.text.normalize import Normalized, normalize

CASES = json.loads((Path(__file__).parent / "normalization_cases.json").read_text())["cases"]
IDS = [f"{c['category']}:{c['written']}" for c in CASES]
_STRESS_AND_PAUSES = re.compile(r"[ˈˌ\s,.!?;:—…'\"()-]")


def test_the_set_covers_every_category_with_80_cases_or_more():
    categories = {c["category"] for c in CASES}
    assert len(CASES) >= 80
    assert categories >= {
        "cardinal",
        "ordinal",
        "money",
        "percent",
        "range",
        "date",
        "time",
        "duration",
        "unit",
        "phone",
        "email",
        "url",
        "version",
        "quarter",
        "abbreviation",
        "symbol",
        "acronym",
    }


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_normalized_text(case):
    """Exactly the expected text: the spoken form, or the written parts G2P reads right left as written."""
    assert normalize(case["written"]).spoken == case.get("normalized", case["spoken"])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_g2p_reads_the_normalized_text_as_a_person_says_it(phonemizer, case):
    """What the model will be given for the written form equals what it is given for the spoken form
    (stress marks and pauses aside): this also checks every part that is left to misaki."""
    written = _STRESS_AND_PAUSES.sub("", phonemizer.phonemize(normalize(case["written"]).spoken, "a")[0])
    spoken = _STRESS_AND_PAUSES.sub("", phonemizer.phonemize(case["spoken"], "a")[0])
    assert jiwer.cer(spoken, written) <= 0.1, (written, spoken)


def test_off_is_the_identity():
    text = "Pay $5M by 2026-11-30."
    assert normalize(text, enabled=False) == Normalized(text, text)


# ----------------------------------------------------------------------------- the map to written text


def _written_word_at(text: str, offset: int) -> str:
    start = text.rfind(" ", 0, offset) + 1
    end = text.find(" ", offset)
    return text[start : end if end >= 0 else len(text)]


def _spoken_words(spoken: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group()) for m in re.finditer(r"\S+", spoken)]


def test_every_spoken_word_maps_to_the_written_word_it_came_from():
    n = normalize("Pay $5M by 2026-11-30 at 10:45 pm, call 555-0123.")
    mapped = [(word, _written_word_at(n.written, n.written_offset(pos))) for pos, word in _spoken_words(n.spoken)]
    assert mapped == [
        ("Pay", "Pay"),
        ("five", "$5M"),
        ("million", "$5M"),
        ("dollars", "$5M"),
        ("by", "by"),
        ("November", "2026-11-30"),
        ("thirtieth,", "2026-11-30"),
        ("twenty", "2026-11-30"),
        ("twenty-six", "2026-11-30"),
        ("at", "at"),
        ("ten", "10:45"),
        ("forty-five", "10:45"),
        ("PM,", "pm,"),
        ("call", "call"),
        ("five", "555-0123."),
        ("five", "555-0123."),
        ("five,", "555-0123."),
        ("zero", "555-0123."),
        ("one", "555-0123."),
        ("two", "555-0123."),
        ("three.", "555-0123."),
    ]


def test_one_written_word_rewritten_in_parts_maps_to_itself():
    """ "72°F" is rewritten as two regions (number, unit), both inside the one written word."""
    n = normalize("It was 72°F.")
    assert n.spoken == "It was seventy-two degrees Fahrenheit."
    assert {_written_word_at(n.written, n.written_offset(p)) for p, w in _spoken_words(n.spoken)[2:]} == {"72°F."}


def test_regions_are_ordered_and_text_between_them_is_copied():
    n = normalize("On 2026-11-30, Dr. Patel ran 5 km in 30 min at St. Louis; see example.com.")
    assert n.rewrites, n
    spoken_pos = written_pos = 0
    for s_start, s_end, w_start, w_end in n.rewrites:
        assert s_start >= spoken_pos and w_start >= written_pos
        assert n.spoken[spoken_pos:s_start] == n.written[written_pos:w_start]
        assert n.spoken[s_start:s_end].strip(), "a region is never spoken as nothing"
        spoken_pos, written_pos = s_end, w_end
    assert n.spoken[spoken_pos:] == n.written[written_pos:]


_PIECES = [c["written"] for c in CASES] + ["$$$", "10^30", "١٢٣", "--", "::", "9-", "@", "#", "/", "e.g.", "St."]


@given(st.lists(st.sampled_from(_PIECES) | st.text(max_size=8), max_size=8))
def test_map_invariants_hold_for_any_mix(pieces):
    text = " ".join(pieces)
    n = normalize(text)
    offsets = [n.written_offset(i) for i in range(len(n.spoken) + 1)]
    assert offsets == sorted(offsets), "the map never runs backwards"
    assert offsets[0] >= 0 and offsets[-1] == len(text)
    rebuilt, pos = [], 0
    for s_start, s_end, w_start, w_end in n.rewrites:
        rebuilt.append(text[pos:w_start] + n.spoken[s_start:s_end])
        pos = w_end
    assert "".join(rebuilt) + text[pos:] == n.spoken


# ----------------------------------------------------------------------------- hostile input

# The brief's hostile inputs, checked through G2P as well: it must get speakable text.
HOSTILE = {
    "5,000-digit number": "7" * 5000,
    "5,000 digits with separators": ",".join(["123"] * 1250)[:5000],
    "5,000-digit decimal": "0." + "5" * 4998,
    "dollar signs": "$$$",
    "power": "10^30",
    "huge power": "10^999999",
    "arabic-indic digits": "١٢٣ and ٣.٥",
    "devanagari digits": "१२३४५",
    "fullwidth digits": "３ apples",
    "5,000 non-ascii digits": "٣" * 5000,
    "superscripts": "x² and 5³ and 2⁻¹",
    "mixed scripts": "Привет 42 мир, 東京 3 km, Ωmega 5%",
}
# Runs of symbols with no space: the normalizer's own cost stays linear on them (G2P's cost on such
# one-token runs is bounded elsewhere, before G2P sees them).
SYMBOL_RUNS = {
    "dashes": "9-" * 2500,
    "colons": "1:" * 2500,
    "money": "$1" * 2500,
    "dots": "a." * 2500,
    "at signs": "@" * 5000,
    "slashes": "1/" * 2500,
    "long address": "a" * 4990 + "@b.com",
}


def _regions_are_spoken(n: Normalized) -> None:
    for s_start, s_end, _w_start, _w_end in n.rewrites:
        assert n.spoken[s_start:s_end].strip(), "a rewritten region is never spoken as nothing"


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_input_is_normalized_and_speakable(phonemizer, text):
    n = normalize(text)
    _regions_are_spoken(n)
    phonemes, _tokens = phonemizer.phonemize(n.spoken, "a")
    assert any(c.isalpha() for c in phonemes), "something speakable comes out"


@pytest.mark.parametrize("text", SYMBOL_RUNS.values(), ids=SYMBOL_RUNS.keys())
def test_symbol_runs_do_not_break_the_normalizer(text):
    n = normalize(text)
    _regions_are_spoken(n)
    assert n.written_offset(len(n.spoken)) == len(text)


def test_every_digit_of_a_huge_number_is_spoken():
    assert normalize("1" * 5000).spoken == " ".join(["one"] * 5000)
    assert normalize("0." + "5" * 20).spoken == "zero point " + " ".join(["five"] * 20)
    assert normalize("$$$").spoken == "dollar dollar dollar"
    assert normalize("١٢٣").spoken == "123"
