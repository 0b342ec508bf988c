"""OpenAI's voice names as Kokoro voices, so clients that only offer OpenAI's names (pipecat checks the
name against its own list) still reach this server.

Five of OpenAI's names are Kokoro voices already (``af_alloy``, ``am_echo``, ``bm_fable``, ``af_nova``,
``am_onyx``); the rest go to a Kokoro voice of the same register, and OpenAI's two recommended voices to
Kokoro's best graded female and male English voices (docs/openai-api.md has the table).
"""

from __future__ import annotations

OPENAI_VOICES = {
    "alloy": "af_alloy",
    "ash": "am_fenrir",
    "ballad": "bm_lewis",
    "coral": "af_bella",
    "echo": "am_echo",
    "fable": "bm_fable",
    "nova": "af_nova",
    "onyx": "am_onyx",
    "sage": "af_sarah",
    "shimmer": "af_nicole",
    "verse": "am_puck",
    "marin": "af_heart",
    "cedar": "am_michael",
}


def kokoro_voice(name: str) -> str:
    """The Kokoro voice (or blend) to speak for ``name``: an OpenAI name, any case, becomes its Kokoro
    voice; anything else is taken as a Kokoro voice or blend and checked where every voice is."""
    return OPENAI_VOICES.get(name.strip().lower(), name)
