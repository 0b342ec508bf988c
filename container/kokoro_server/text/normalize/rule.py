"""One rewrite rule (a pattern and how to say what it matched) and the single pass that applies them all.

All rules are joined into ONE alternation and the text is scanned once, left to right: at each position
the first rule (in priority order) that matches wins, and its match is never rescanned. So a date is not
also read as a range, and the cost is one pass however many rules there are.

Linear time is a property of the patterns, kept by two habits: every pattern that starts with a digit
or a letter run starts with a lookbehind that fails inside such a run (so a 5,000-digit number is tried
once, not 5,000 times), and no quantified group contains another unbounded quantifier.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rule:
    """``speak`` gets the rule's own match, made against the whole text (so lookarounds and
    ``m.string`` see the context), and returns the spoken form of the whole match, or a list of
    ``(start, end, spoken)`` for parts of it (so "10:45 pm" stays two written words: "10:45" and "pm"),
    or None to leave the text as written."""

    name: str
    pattern: str
    speak: Callable[[re.Match], str | list[tuple[int, int, str]] | None]
    regex: re.Pattern = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "regex", re.compile(self.pattern))


class Rules:
    def __init__(self, rules: list[Rule]):
        self._rules = {f"r{i}": rule for i, rule in enumerate(rules)}
        self._scan = re.compile("|".join(f"(?P<{key}>{r.pattern})" for key, r in self._rules.items()))

    def rewrites(self, text: str) -> Iterator[tuple[int, int, str]]:
        """``(written_start, written_end, spoken)`` for each region a rule rewrites, in text order."""
        for m in self._scan.finditer(text):
            if m.end() == m.start():
                continue
            assert m.lastgroup is not None  # every alternative of the scan is a named group
            rule = self._rules[m.lastgroup]
            own = rule.regex.match(text, m.start())
            assert own is not None  # the scan matched this rule's pattern here
            spoken = rule.speak(own)
            if isinstance(spoken, str):
                spoken = [(m.start(), m.end(), spoken)]
            for start, end, words in spoken or ():
                if words != text[start:end]:
                    yield start, end, words
