"""The voice every part speaks in when nobody names one: the server, the agent, the stacks and the CLIs.

Defined here, in the package all of them install, so that a change of default voice is one line; each
part still accepts any voice name the server knows.
"""

from __future__ import annotations

# Kokoro's American English female voice "heart": the voice its model card grades highest, and the one every
# figure of the benchmark was measured with (speech_protocol.pace's words per second among them).
DEFAULT_VOICE = "af_heart"

__all__ = ["DEFAULT_VOICE"]
