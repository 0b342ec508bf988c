"""pipecat service for the Kokoro model server: a streaming :class:`KokoroServerTTSService` over its speech session.

``KokoroServerTTSService(base_url=...)`` speaks an LLM's tokens as they are written: the project's segmenter
cuts them into pieces, each piece goes out on one long-lived session the moment it is complete, and the
words are timed as they are heard (docs/pipecat.md, docs/decisions/157-pipecat-service.md).
"""

from .tts import KokoroServerTTSService, KokoroServerTTSSettings

__version__ = "0.1.0"
__all__ = ["KokoroServerTTSService", "KokoroServerTTSSettings", "__version__"]
