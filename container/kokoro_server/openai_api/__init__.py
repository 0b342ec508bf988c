"""OpenAI's speech API on the model server: ``POST /v1/audio/speech``, ``GET /v1/models``,
``GET /v1/audio/voices`` and the word-timed variant ``POST /v1/audio/speech/timestamps``
(docs/openai-api.md). A client written for OpenAI (its SDK, LiveKit, pipecat) speaks to kokoro-serve by
changing its base URL; the text goes through the same normalizer, G2P, scheduler and admission control
as ``/invocations``."""
