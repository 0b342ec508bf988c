"""The incremental segmenter: pieces leave as soon as their end is certain, the same whatever the deltas."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from line_count import lines_executed

from speech_protocol.pieces.first_piece import MIN_MAX_CHARS
from speech_protocol.pieces.segmenter import Segmenter, SegmentPolicy, SegmentPolicyError

NO_CLAUSE = SegmentPolicy(first_piece_clause=False)


def segment(deltas: Iterable[str], policy: SegmentPolicy = SegmentPolicy()) -> list[str]:
    segmenter = Segmenter(policy)
    pieces = [piece for delta in deltas for piece in segmenter.feed(delta)]
    return pieces + segmenter.flush()


def whole(text: str, policy: SegmentPolicy = SegmentPolicy()) -> list[str]:
    return segment([text], policy)


def no_space(text: str) -> str:
    return "".join(text.split())


# -- when a piece leaves ------------------------------------------------------------------------------


def test_a_piece_leaves_as_soon_as_the_next_character_proves_its_end() -> None:
    segmenter = Segmenter()
    assert segmenter.feed("Hello there.") == []
    assert segmenter.feed(" ") == []  # "Hello there. e.g." would continue the sentence
    assert segmenter.feed("W") == ["Hello there."]
    assert segmenter.feed("e are done") == []
    assert segmenter.flush() == ["We are done"]


def test_a_newline_ends_a_piece_at_once() -> None:
    segmenter = Segmenter()
    assert segmenter.feed("Hello there.\n") == ["Hello there."]
    assert segmenter.feed("No final punctuation\n") == ["No final punctuation"]
    assert segmenter.flush() == []


def test_an_ambiguous_full_stop_waits_for_the_next_characters_only() -> None:
    segmenter = Segmenter(NO_CLAUSE)
    assert segmenter.feed("It costs 3.") == []
    assert segmenter.feed("1") == []  # decided: a decimal, not an end
    assert segmenter.feed("4 euros. I met Dr.") == ["It costs 3.14 euros."]
    assert segmenter.feed(" S") == []  # decided: a title
    assert segmenter.feed("mith. He") == ["I met Dr. Smith."]
    assert segmenter.flush() == ["He"]


def test_flush_emits_the_rest_and_starts_a_new_answer() -> None:
    segmenter = Segmenter()
    assert segmenter.feed("One two three four, five") == ["One two three four,"]
    assert segmenter.flush() == ["five"]
    assert segmenter.flush() == []
    # A fresh answer: the first-piece rule applies again.
    assert segmenter.feed("Six seven eight nine, ten") == ["Six seven eight nine,"]
    assert segmenter.flush() == ["ten"]


def test_flush_resolves_a_pending_full_stop_and_a_pending_clause() -> None:
    assert whole("We met Dr.") == ["We met Dr."]
    assert whole("Version 2.") == ["Version 2."]
    assert whole("One two three four,") == ["One two three four,"]


def test_each_piece_is_returned_once() -> None:
    segmenter = Segmenter()
    first = segmenter.feed("A b c. D e f. G")
    assert first == ["A b c.", "D e f."]
    assert segmenter.feed("") == []
    assert segmenter.feed("") == []
    assert segmenter.flush() == ["G"]


# -- sentence ends that are not ends --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        # abbreviations
        ("Dr. Smith and Mr. Jones met Prof. Lee.", ["Dr. Smith and Mr. Jones met Prof. Lee."]),
        ("Use fruit, e.g. Apples or pears. Or i.e. Bananas.", ["Use fruit, e.g. Apples or pears.", "Or i.e. Bananas."]),
        ("The U.S. economy grew. It did.", ["The U.S. economy grew.", "It did."]),
        ("We left at 7 a.m. and came back.", ["We left at 7 a.m. and came back."]),
        ("We left at 7 a.m. Then it rained.", ["We left at 7 a.m.", "Then it rained."]),
        ("Written by J. R. R. Tolkien. Read it.", ["Written by J. R. R. Tolkien.", "Read it."]),
        ("See Fig. 3 and No. 5 here. Done.", ["See Fig. 3 and No. 5 here.", "Done."]),
        ("Apples, pears, etc. are fruit.", ["Apples, pears, etc. are fruit."]),
        # decimals and versions
        ("Pi is 3.14159 roughly. Yes.", ["Pi is 3.14159 roughly.", "Yes."]),
        ("Upgrade to v2.1.3 today. Now.", ["Upgrade to v2.1.3 today.", "Now."]),
        ("It costs $1,299.99 now. Buy.", ["It costs $1,299.99 now.", "Buy."]),
        ("It costs 5. Six came.", ["It costs 5.", "Six came."]),
        # ellipses and runs of marks
        ("Wait... what happened?", ["Wait... what happened?"]),
        ("Well... I think so. Yes.", ["Well...", "I think so.", "Yes."]),
        ("Hmm\u2026 maybe not\u2026 Fine.", ["Hmm\u2026 maybe not\u2026", "Fine."]),
        ("Really?! Yes!!", ["Really?!", "Yes!!"]),
        ("The file is foo...bar here.", ["The file is foo...bar here."]),
        # URLs and email addresses
        ("Visit https://example.com/a.b?c=d for more. Then go.", ["Visit example.com for more.", "Then go."]),
        ("Go to example.com. Then rest.", ["Go to example.com.", "Then rest."]),
        ("Mail bob.smith@example.org today. Thanks.", ["Mail bob.smith@example.org today.", "Thanks."]),
        ("Read [the guide](https://x.org/v1.2/a.html). Done.", ["Read the guide.", "Done."]),
        # closing quotes and brackets stay with their sentence
        ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
        ("\u201cStop.\u201d Then he left.", ["\u201cStop.\u201d", "Then he left."]),
        ('"Why?" she asked.', ['"Why?" she asked.']),
        ("(It was late.) We slept.", ["(It was late.)", "We slept."]),
        ("**Done.** Next step.", ["Done.", "Next step."]),
        ("It is [sic.] fine. Ok.", ["It is sic. fine.", "Ok."]),
    ],
)
def test_pieces_end_only_where_a_sentence_does(text: str, pieces: list[str]) -> None:
    """What could pass for a sentence's end: the whole answer as one delta, and the pieces it leaves as."""
    assert whole(text, NO_CLAUSE) == pieces


def test_numbered_lists() -> None:
    text = "Steps:\n1. Open the box.\n2. Take it out. Then smile.\n10. Done"
    assert whole(text, NO_CLAUSE) == ["Steps:", "1. Open the box.", "2. Take it out.", "Then smile.", "10. Done"]


def test_a_number_ending_a_sentence_mid_line_is_an_end() -> None:
    assert whole("The answer is 42. Next one.", NO_CLAUSE) == ["The answer is 42.", "Next one."]


def test_markdown_lines_are_pieces_and_lose_their_symbols() -> None:
    text = (
        "# Your plan\n"
        "Here is what to pack\n"
        "- **Water**, two litres\n"
        "* a _warm_ jacket\n"
        "> Remember the `map`.\n"
        "## Code\n"
        "```python\n"
        "print('hi. There')  # a. B\n"
        "```\n"
        "---\n"
        "| day | km |\n"
        "|-----|----|\n"
        "That's all"
    )
    assert whole(text, NO_CLAUSE) == [
        "Your plan",
        "Here is what to pack",
        "Water, two litres",
        "a warm jacket",
        "Remember the map.",
        "Code",
        "print('hi. There') # a. B",
        "day km",
        "That's all",
    ]


def test_a_hash_or_dash_after_a_sentence_end_is_text_not_markup() -> None:
    assert whole("I use Go. # is a sign. - is too.", NO_CLAUSE) == ["I use Go.", "# is a sign.", "- is too."]


def test_emphasis_spanning_two_sentences_is_removed_from_both() -> None:
    assert whole("**First one. Second one.** Third.", NO_CLAUSE) == ["First one.", "Second one.", "Third."]


def test_line_breaks_of_every_kind_end_pieces() -> None:
    text = "one\r\ntwo\rthree\u2028four\u2029five\x0bsix\x85seven"
    assert whole(text) == ["one", "two", "three", "four", "five", "six", "seven"]


# -- the first-piece policy and the length limit -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("Sure, I can help with that, gladly.", "Sure, I can help with that,"),
        ("The weather today is lovely: sunny and warm.", "The weather today is lovely:"),
        ("Pack light clothes today; it will be warm.", "Pack light clothes today;"),
        ("The answer is simple \u2014 always was.", "The answer is simple \u2014"),
        ("The answer is simple\u2014always was.", "The answer is simple\u2014"),
        ("The answer is simple - always was.", "The answer is simple -"),
        ('"We have four rooms," she said to him.', '"We have four rooms,"'),
    ],
)
def test_the_first_piece_ends_at_a_clause_once_it_holds_four_words(text: str, first: str) -> None:
    pieces = whole(text)
    assert pieces[0] == first
    assert no_space("".join(pieces)) == no_space(text)


@pytest.mark.parametrize(
    "text",
    [
        "Yes, I can, of course do that.",  # the clauses come too early
        "We sold 1,000,000 copies in one year.",  # not a clause mark: no space after
        "A well-known and long-standing fact holds.",  # a hyphen inside a word
        "The time is 10:30 in the morning here.",
    ],
)
def test_no_clause_cut_without_enough_words_or_a_real_clause_mark(text: str) -> None:
    assert whole(text) == [text]


def test_only_the_first_piece_ends_at_a_clause() -> None:
    text = "One two three four, five. Six seven eight nine, ten eleven."
    assert whole(text) == ["One two three four,", "five.", "Six seven eight nine, ten eleven."]


def test_the_clause_rule_counts_words_not_markup() -> None:
    assert whole("# **Note** - this one, is fine.") == ["Note - this one, is fine."]
    assert whole("**One** *two* three four, five")[0] == "One two three four,"


@pytest.mark.parametrize(("words", "first"), [(1, "Yes,"), (2, "Yes, indeed,"), (6, "Yes, indeed, I can do it,")])
def test_the_first_piece_word_count_is_configurable(words: int, first: str) -> None:
    pieces = whole("Yes, indeed, I can do it, right away.", SegmentPolicy(first_piece_min_words=words))
    assert pieces[0] == first


def test_the_first_piece_rule_can_be_turned_off() -> None:
    text = "One two three four, five six."
    assert whole(text, NO_CLAUSE) == [text]


def test_a_heading_is_the_first_piece_and_ends_the_rule() -> None:
    assert whole("# Plan\nOne two three four, five six.") == ["Plan", "One two three four, five six."]


def test_a_dropped_fence_line_does_not_use_up_the_first_piece() -> None:
    assert whole("---\nOne two three four, five six.") == ["One two three four,", "five six."]


def test_a_long_sentence_is_cut_at_its_last_clause_below_the_limit() -> None:
    policy = SegmentPolicy(max_chars=40, first_piece_clause=False)
    text = "alpha beta, gamma delta epsilon; zeta eta theta iota kappa lambda mu."
    assert whole(text, policy) == ["alpha beta, gamma delta epsilon;", "zeta eta theta iota kappa lambda mu."]


def test_a_long_sentence_may_be_cut_after_an_unspaced_dash() -> None:
    policy = SegmentPolicy(max_chars=30, first_piece_clause=False)
    text = "alpha beta gamma\u2014delta epsilon zeta eta theta."
    assert whole(text, policy) == ["alpha beta gamma\u2014", "delta epsilon zeta eta theta."]


def test_without_a_clause_a_long_sentence_is_cut_at_a_word() -> None:
    policy = SegmentPolicy(max_chars=20)
    pieces = whole("aaaa bbbb cccc dddd eeee ffff gggg.", policy)
    assert pieces == ["aaaa bbbb cccc dddd", "eeee ffff gggg."]


def test_a_word_longer_than_the_limit_is_cut_at_the_limit() -> None:
    policy = SegmentPolicy(max_chars=16)
    assert whole("x" * 40 + " end.", policy) == ["x" * 16, "x" * 16, "x" * 8 + " end."]


def test_a_sentence_exactly_at_the_limit_is_one_piece() -> None:
    sentence = "abc defgh ijklm."  # 16 characters
    assert whole(sentence + " Next.", SegmentPolicy(max_chars=16)) == [sentence, "Next."]


def test_the_limit_holds_for_markup_heavy_text() -> None:
    policy = SegmentPolicy(max_chars=30)
    pieces = whole("**" + "word " * 40 + "**", policy)
    assert pieces and all(len(p) <= 30 for p in pieces)
    assert no_space("".join(pieces)) == "word" * 40


@pytest.mark.parametrize(
    "bad",
    [
        {"first_piece_min_words": 0},
        {"first_piece_min_words": -3},
        {"first_piece_min_words": 2.5},
        {"first_piece_min_words": True},
        {"first_piece_clause": "yes"},
        {"max_chars": MIN_MAX_CHARS - 1},
        {"max_chars": 0},
        {"max_chars": "300"},
        {"max_chars": None},
    ],
)
def test_a_bad_policy_is_refused_when_built(bad: dict) -> None:
    with pytest.raises(SegmentPolicyError) as caught:
        SegmentPolicy(**bad)
    assert next(iter(bad)) in str(caught.value)


def test_the_policy_is_frozen() -> None:
    with pytest.raises(AttributeError):
        SegmentPolicy().max_chars = 10  # type: ignore[misc]  # assigning to a frozen field is the test


@pytest.mark.parametrize("bad", [None, b"bytes", 42, ["list"]])
def test_a_delta_that_is_not_text_is_a_type_error(bad: object) -> None:
    segmenter = Segmenter()
    with pytest.raises(TypeError, match="delta must be str"):
        segmenter.feed(bad)  # type: ignore[arg-type]  # a delta that is not str is the test
    assert segmenter.feed("Still works. ") == []


def test_a_policy_that_is_not_a_policy_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="SegmentPolicy"):
        Segmenter({"max_chars": 10})  # type: ignore[arg-type]  # a dict instead of a SegmentPolicy is the test


# -- hostile input ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["", " ", "\n\n\n", ".", "?!?!...", ". . . , , ; : - \u2014", "*** ___ ``` ~~~", "\U0001f600" * 5]
)
def test_nothing_speakable_gives_no_pieces(text: str) -> None:
    assert whole(text) == []
    assert segment(text) == []


def test_control_and_invisible_characters_never_reach_a_piece() -> None:
    text = "Hel\x00lo\x07 the\u200bre. \x1b[31mRed\ud800 text\ufeff.\x7f"
    pieces = whole(text, NO_CLAUSE)
    assert pieces == ["Hello there.", "31mRed text."]
    for piece in pieces:
        piece.encode("utf-8")  # no lone surrogate survives
        assert not any(unicodedata.category(c) in ("Cc", "Cf", "Cs") for c in piece)


def test_tabs_and_runs_of_spaces_become_one_space() -> None:
    assert whole("a \t  b\u00a0\u00a0c.   ") == ["a b c."]


HOSTILE_PATTERNS = {
    "prose": "Dr. Smith met J. Doe at 3.14 p.m., e.g. near https://x.com/a.b. **Bold** [it](http://y.org)! So... ok\n",
    "lowercase after every stop": "a. ",
    "stops": ".",
    "bangs": "!",
    "one long word": "x",
    "clause marks": ", ",
    "dash soup": "\u2014,\u2014;",
    "quotes after stops": '."',
    "controls": "\x00\x01 \t",
    "markup": "**_`[](",
}
MEGABYTE = 1_000_000


def repeat_to(pattern: str, size: int) -> str:
    return (pattern * (size // len(pattern) + 1))[:size]


@pytest.mark.parametrize("delta_size", [3, None])
@pytest.mark.parametrize("name", HOSTILE_PATTERNS)
def test_work_grows_linearly_with_the_text(name: str, delta_size: int | None) -> None:
    """Counted in lines of segmenter code run, not seconds: re-scanning would make 10x text cost 100x."""
    small = lines_run(repeat_to(HOSTILE_PATTERNS[name], 3_000), delta_size)
    large = lines_run(repeat_to(HOSTILE_PATTERNS[name], 30_000), delta_size)
    assert large <= 13 * small


def lines_run(text: str, delta_size: int | None) -> int:
    """Lines of voice_agent code executed to segment the text, fed in deltas of that size or at once."""
    size = delta_size or len(text)
    return lines_executed(lambda: segment(text[i : i + size] for i in range(0, len(text), size)))


MEGABYTE_PATTERNS = ["prose", "lowercase after every stop", "bangs", "one long word", "controls", "markup"]


@pytest.mark.parametrize("name", MEGABYTE_PATTERNS)
def test_a_megabyte_of_hostile_text_is_segmented_within_the_limits(name: str) -> None:
    text = repeat_to(HOSTILE_PATTERNS[name], MEGABYTE)
    deltas = [text] if name != "prose" else [text[i : i + 7] for i in range(0, MEGABYTE, 7)]
    pieces = segment(deltas)
    assert all(0 < len(p) <= SegmentPolicy().max_chars for p in pieces)


# -- properties ----------------------------------------------------------------------------------------------

WORDS = [
    "hello",
    "World",
    "we",
    "It",
    "Dr.",
    "e.g.",
    "U.S.",
    "a.m.",
    "J.",
    "3.14",
    "v2.1",
    "1,000",
    "42",
    "bob@example.org",
    "it's",
    '"Quote',
    "(aside",
    "caf\u00e9",
    "\u65e5\u672c",
    "naïve",
]
ENDINGS = ["", "", "", "", ",", ".", ".", "!", "?", "...", "\u2026", ":", ";", "\u2014", '."', "?)", ".'"]
GAPS = [" ", " ", " ", " ", "\n", "  ", "\t", "\n\n", " \r\n"]

prose = st.lists(
    st.tuples(st.sampled_from(WORDS), st.sampled_from(ENDINGS), st.sampled_from(GAPS)), min_size=1, max_size=60
).map(lambda tokens: "".join(w + e + g for w, e, g in tokens))

sentence = st.lists(st.sampled_from(WORDS[:8]), min_size=1, max_size=12).map(" ".join)
SPANS = [("**", "**"), ("*", "*"), ("_", "_"), ("`", "`"), ("~~", "~~"), ("[", "](https://example.com/a.b)")]


@st.composite
def markdown(draw: st.DrawFn) -> tuple[str, str]:
    """A markdown document and the text a listener should hear."""
    written, heard = [], []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["heading", "bullet", "numbered", "quote", "paragraph", "code"]))
        if kind == "code":
            lines = draw(st.lists(sentence.map(lambda s: s + " = f(x)"), min_size=1, max_size=3))
            written.append("```python\n" + "\n".join(lines) + "\n```")
            heard.extend(lines)
            continue
        text = draw(sentence) + draw(st.sampled_from([".", "!", "?", ""]))
        opening, closing = draw(st.sampled_from(SPANS))
        styled = f"{opening}{text}{closing}"
        prefix, kept = {
            "heading": ("#" * draw(st.integers(1, 6)) + " ", ""),
            "bullet": (draw(st.sampled_from(["-", "*", "+"])) + " ", ""),
            "numbered": ("3. ", "3. "),
            "quote": ("> ", ""),
            "paragraph": ("", ""),
        }[kind]
        written.append(prefix + styled)
        heard.append(kept + text)
    return "\n".join(written), " ".join(heard)


arbitrary = st.one_of(
    st.text(max_size=400),
    st.lists(
        st.sampled_from([*"ab. ,!?\n\"')*_#-[]():/`~|>\u2014", "Dr", "e.g.", "https://", "\x00", "\r", "\u2028", "1."]),
        max_size=200,
    ).map("".join),
)


def policies(shortest: int = MIN_MAX_CHARS) -> st.SearchStrategy[SegmentPolicy]:
    """Policies with small limits, so that forced cuts happen often.

    ``shortest`` above the longest generated word (or link) keeps cuts between words: a word longer
    than the limit is cut hard, and a tail of bare punctuation after such a cut is not spoken.
    """
    return st.builds(
        SegmentPolicy,
        first_piece_min_words=st.integers(1, 6),
        first_piece_clause=st.booleans(),
        max_chars=st.integers(shortest, shortest + 80),
    )


@st.composite
def split(draw: st.DrawFn, text: str) -> list[str]:
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=20)))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]


def assert_same_whatever_the_deltas(text: str, policy: SegmentPolicy, deltas: list[str]) -> list[str]:
    pieces = whole(text, policy)
    assert segment(deltas, policy) == pieces
    assert segment(text, policy) == pieces  # one character at a time
    return pieces


def assert_well_formed(pieces: list[str], policy: SegmentPolicy) -> None:
    for piece in pieces:
        assert piece and piece == piece.strip()
        assert len(piece) <= policy.max_chars
        assert any(c.isalnum() for c in piece)
        assert not any(unicodedata.category(c) in ("Cc", "Cs") for c in piece)


@settings(max_examples=150, deadline=None)
@given(prose, policies(shortest=24), st.data())
def test_prose_loses_and_duplicates_nothing(text: str, policy: SegmentPolicy, data: st.DataObject) -> None:
    pieces = assert_same_whatever_the_deltas(text, policy, data.draw(split(text)))
    assert_well_formed(pieces, policy)
    assert no_space("".join(pieces)) == no_space(text)


@settings(max_examples=150, deadline=None)
@given(markdown(), policies(shortest=48), st.data())
def test_markdown_is_heard_without_its_markup(doc: tuple[str, str], policy: SegmentPolicy, data: st.DataObject) -> None:
    written, heard = doc
    pieces = assert_same_whatever_the_deltas(written, policy, data.draw(split(written)))
    assert_well_formed(pieces, policy)
    assert no_space("".join(pieces)) == no_space(heard)


@settings(max_examples=200, deadline=None)
@given(arbitrary, policies(), st.data())
def test_any_text_gives_well_formed_pieces(text: str, policy: SegmentPolicy, data: st.DataObject) -> None:
    pieces = assert_same_whatever_the_deltas(text, policy, data.draw(split(text)))
    assert_well_formed(pieces, policy)
    heard = iter(c for c in text if c.isalnum())
    assert all(c in heard for c in "".join(pieces) if c.isalnum()), "a piece holds text that was not written"


# ---------------------------------------------------------------------------- cut before a function word

LONG_OPENING = "Here is a plan for your first day in the city, with a few options depending on the weather. "


@pytest.mark.parametrize("size", [1, 2, 5, 1000])
def test_without_a_clause_soon_the_first_piece_ends_before_a_preposition(size: int) -> None:
    segmenter = Segmenter(SegmentPolicy(first_piece_min_words=3))
    text = LONG_OPENING
    pieces = [p for i in range(0, len(text), size) for p in segmenter.feed(text[i : i + size])] + segmenter.flush()
    assert pieces[:2] == [
        "Here is a plan",
        "for your first day in the city, with a few options depending on the weather.",
    ]


def test_a_clause_mark_just_after_the_function_word_is_worth_waiting_for() -> None:
    segmenter = Segmenter(SegmentPolicy(first_piece_min_words=3))
    pieces = segmenter.feed("We can meet in town, or at the station later today. Fine.") + segmenter.flush()
    assert pieces[0] == "We can meet in town,"


def test_words_that_bind_to_the_word_before_are_not_cut_points() -> None:
    segmenter = Segmenter(SegmentPolicy(first_piece_min_words=2))
    text = "A large cup of very hot sweet tea to drink slowly is what I want now. Yes."
    assert (segmenter.feed(text) + segmenter.flush())[0] == text.removesuffix(" Yes.")


def test_only_the_first_piece_is_cut_before_a_function_word() -> None:
    segmenter = Segmenter(SegmentPolicy(first_piece_min_words=2))
    text = "Sure thing. The museum opens at nine in the morning on weekdays."
    assert segmenter.feed(text) + segmenter.flush() == ["Sure thing.", text.removeprefix("Sure thing. ")]


# -- other languages' marks ----------------------------------------------------------------------------


def test_japanese_and_chinese_sentences_end_at_full_width_marks_with_no_space_after() -> None:
    assert whole("今日は晴れです。明日は雨でしょう！傘はありますか？", NO_CLAUSE) == [
        "今日は晴れです。",
        "明日は雨でしょう！",
        "傘はありますか？",
    ]
    segmenter = Segmenter(NO_CLAUSE)
    assert segmenter.feed("他说「好的。") == []  # a closing bracket may still come
    assert segmenter.feed("」我们走吧") == ["他说「好的。」"]  # the next character proves its end
    assert segmenter.feed("。") == []
    assert segmenter.flush() == ["我们走吧。"]


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("你好，我们明天上午见面吧，好吗？", "你好，我们明天上午见面吧，"),  # 你好， is one word, the next clause four
        ("はい、明日の午前中に伺います、よろしいですか。", "はい、明日の午前中に伺います、"),
    ],
)
def test_the_first_piece_counts_words_in_characters_where_no_space_marks_them(text: str, first: str) -> None:
    assert whole(text, SegmentPolicy(first_piece_min_words=4))[0] == first


def test_a_piece_too_long_is_cut_after_a_full_width_comma() -> None:
    text = "我想预订今晚两个人的桌子，" * 30  # no sentence end in 390 characters
    pieces = whole(text, NO_CLAUSE)
    assert "".join(pieces) == text and len(pieces) > 1 and all(p.endswith("，") for p in pieces)


def test_spanish_openers_and_the_hindi_danda() -> None:
    assert whole("¿Cómo estás? ¡Muy bien! Gracias.", NO_CLAUSE) == ["¿Cómo estás?", "¡Muy bien!", "Gracias."]
    assert whole("नमस्ते। आप कैसे हैं? धन्यवाद।", NO_CLAUSE) == ["नमस्ते।", "आप कैसे हैं?", "धन्यवाद।"]
