"""LiveKit Agents plugin for the Kokoro model server: a streaming :class:`TTS` over its speech session.

``TTS(base_url=...)`` speaks an LLM's text as it is written: the project's segmenter cuts it into pieces,
each piece goes out on one long-lived session the moment it is complete, and the audio frames carry
word-aligned transcripts (docs/livekit.md, docs/decisions/152-livekit-plugin.md).
"""

from livekit.agents import Plugin

from .log import logger
from .tts import TTS, SynthesizeStream
from .version import __version__

__all__ = ["TTS", "SynthesizeStream", "__version__"]


class KokoroPlugin(Plugin):
    def __init__(self) -> None:
        super().__init__(__name__, __version__, __package__, logger)


Plugin.register_plugin(KokoroPlugin())
