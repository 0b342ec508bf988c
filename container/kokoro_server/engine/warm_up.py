"""What the server speaks at start-up to warm and time the model: a module of its own, with no import, so
that the settings (and the CLI that checks them) name it without loading G2P."""

from __future__ import annotations

# Sentence-length, so the real-time factor measured on it (and advertised in Ready) is that of real pieces:
# a one-word text reads far slower than sentences do (docs/decisions/133-warm-up-on-a-sentence.md).
WARM_UP_TEXT = "Thanks for asking, the museum is open every day from nine until five."
