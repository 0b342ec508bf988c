"""The answers every strategy speaks: the same three texts, by name, in every run.

``short``: a 2-sentence answer; ``typical``: a 6-sentence answer (89 words, the size of the answer measured in
005-latency-and-first-piece.md); ``long``: 3 paragraphs with a list, the kind of answer where waiting for the whole
text hurts most. Written as an LLM would stream them, markdown list included.
"""

from __future__ import annotations

SHORT = (
    "Sure, the museum opens at nine in the morning on weekdays. "
    "Tickets cost twelve dollars, and children under six get in free."
)

TYPICAL = (
    "Yes, of course, the museum is open every day, except on Mondays, from nine in the morning until six. "
    "There are a few things to keep in mind before you go. "
    "Tickets cost twelve dollars for adults, and children under six get in free. "
    "The best time to visit is early on a weekday, when the galleries are quiet. "
    "Plan for about two hours if you want to see the main collection. "
    "There is a small cafe on the ground floor if you need a break along the way."
)

LONG = (
    "Here is a plan for your first day in the city, with a few options depending on the weather. "
    "Start early, because the old town is at its best before the tour groups arrive. "
    "Most of the sights are within walking distance of each other, so comfortable shoes matter more "
    "than a transit pass.\n\n"
    "In the morning, I would suggest these three stops:\n"
    "- The cathedral, which opens at eight and is free before ten.\n"
    "- The covered market, where you can have breakfast at one of the small counters.\n"
    "- The river walk, which takes about forty minutes at an easy pace.\n\n"
    "After lunch, the history museum is a good choice if it rains, and the botanical garden if it "
    "does not. Both close at six, so leave at least two hours for either one. In the evening, the "
    "streets around the main square fill with people, and most restaurants serve dinner from eight. "
    "If you would like, I can suggest a few places to eat that are popular with locals."
)

TEXTS: dict[str, str] = {"short": SHORT, "typical": TYPICAL, "long": LONG}
