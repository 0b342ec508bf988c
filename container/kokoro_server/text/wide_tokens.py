"""Tokens for Japanese and Chinese, whose misaki G2P returns a phoneme string and no tokens, and whose text
has no spaces to tie the phoneme string's words to written words: without tokens, a whole sentence would
be one written word, timed as one.

Each G2P's own segmentation is rebuilt here from the same steps it takes (misaki 0.9.4, pinned): for
Chinese, jieba's words, each read by ``ZHG2P.word2ipa``; for Japanese, cutlet's word groups, each
romanized by cutlet itself. The rebuilt tokens are used only when their phonemes, joined, are exactly the
string the G2P returned; otherwise (None) the caller keeps one token for the whole text, as before. So the
phonemes the model speaks are always the G2P's own (docs/decisions/156-word-timing-in-japanese-and-chinese.md).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from kokoro_server.text.tokens import Token

_HANZI_RUNS = re.compile("[\u4e00-\u9fff]+|[^\u4e00-\u9fff]+")
_NO_SPACE_BEFORE_GLOTTAL = re.compile(r'(?<![!",.:;?»—…”]) (?=ʔ)|(?<=ʔ) (?!["«“])')  # cutlet's own rule


def _checked(tokens: list[Token], phonemes: str) -> list[Token] | None:
    return tokens if tokens and "".join(t.phonemes + t.whitespace for t in tokens) == phonemes else None


def chinese_tokens(text: str, phonemes: str) -> list[Token] | None:
    """misaki's ``ZHG2P`` (Kokoro v1.0's, no frontend): numerals as words (cn2an), full-width marks
    mapped, then each run of hanzi cut by jieba and each word read alone; other runs kept as written."""
    import cn2an
    import jieba
    from misaki.zh import ZHG2P

    mapped = ZHG2P.map_punctuation(cn2an.transform(text, "an2cn"))
    tokens: list[Token] = []
    for run in _HANZI_RUNS.findall(mapped):
        if not "\u4e00" <= run[0] <= "\u9fff":
            tokens.append(Token(run.strip(), run.replace(chr(815), ""), ""))
            continue
        words = jieba.lcut(run, cut_all=False)
        for i, word in enumerate(words):
            tokens.append(Token(word, ZHG2P.word2ipa(word).replace(chr(815), ""), " " if i < len(words) - 1 else ""))
    return _checked(tokens, phonemes)


def japanese_tokens(g2p: Any, text: str, phonemes: str) -> list[Token] | None:
    """misaki's ``JAG2P`` (cutlet): fugashi's words grouped as cutlet groups them, each group romanized by
    cutlet, then the spaces between groups normalized as cutlet does."""
    cutlet = getattr(g2p, "cutlet", None)
    if cutlet is None or not text:
        return None
    import jaconv
    from misaki.cutlet import JA_WORDS, Word

    words = [
        Word(
            w.surface,
            jaconv.kata2hira(w.feature.pron or w.feature.kana or w.surface),
            6 if w.char_type == 7 or not w.is_unk else w.char_type,
        )
        for w in cutlet.tagger(cutlet._normalize_text(text))
    ]
    groups = _groups(words, JA_WORDS)
    romaji = cutlet._romaji_tokens(words)
    if len(romaji) != len(groups):
        return None
    # Each character of cutlet's joined string, with the group it came from (None: a space).
    chars: list[tuple[str, int | None]] = []
    for index, token in enumerate(romaji):
        for ch in str(token):
            space = ch.isspace()
            if not (space and (not chars or chars[-1][1] is None)):
                chars.append((" ", None) if space else ({"(": "«", ")": "»"}.get(ch, ch), index))
    while chars and chars[-1][1] is None:
        chars.pop()
    joined = "".join(ch for ch, _ in chars)
    dropped = {m.start() for m in _NO_SPACE_BEFORE_GLOTTAL.finditer(joined)}
    tokens: list[Token] = []
    owner: int | None = None
    for at, (ch, group) in enumerate(chars):
        if at in dropped:
            continue
        if group is None:
            if tokens:
                tokens[-1] = tokens[-1]._replace(whitespace=tokens[-1].whitespace + ch)
        elif group == owner and not tokens[-1].whitespace:
            tokens[-1] = tokens[-1]._replace(phonemes=tokens[-1].phonemes + ch)
        else:
            owner = group
            tokens.append(Token(unicodedata.normalize("NFKC", groups[group]), ch, ""))
    return _checked(tokens, phonemes)


def _groups(words: list, known: Any) -> list[str]:
    """The surfaces of cutlet's word groups (its ``_romaji_tokens`` joins runs of one character type that
    form a known word), in the order it romanizes them."""
    groups: list[str] = []
    i = 0
    while i < len(words):
        z = next((z for z in range(i + 1, len(words)) if words[z].char_type != words[i].char_type), len(words))
        j = next((j for j in range(z, i, -1) if "".join(w.surface for w in words[i:j]) in known), None)
        end = i + 1 if j is None else j
        groups.append("".join(w.surface for w in words[i:end]))
        i = end
    return groups
