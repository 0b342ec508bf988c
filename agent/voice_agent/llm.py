"""Which model writes the answer, and the answer as a stream of text deltas.

Three providers (``LLM_PROVIDER``, 008-three-interfaces.md): Bedrock (the default, ConverseStream), any
OpenAI-compatible server (``LLM_BASE_URL``), and :class:`ScriptedReplyModel`, which streams a fixed
reply at a fixed rate: demos, tests and benchmarks run the whole voice path without an LLM.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator
from typing import Any

from strands import Agent
from strands.models import Model

from speech_protocol.pace import WIDE_SCRIPT

from .events import AgentError
from .settings import LlmSettings

# Spoken, not read: markdown and lists would be read out or stripped, so ask for plain sentences. The
# speech model speaks nine languages, each in its own voices, so the answer is written in
# the user's language rather than always in English.
VOICE_SYSTEM_PROMPT = (
    "You are a helpful voice assistant. Your answers are spoken aloud: reply in short, plain "
    "sentences, without markdown, lists, tables or code. Keep answers brief unless asked for detail. "
    "Reply in the language the user writes in."
)
# A word and the spaces after it; in Japanese and Chinese, written without spaces, two characters and the
# marks after them, about what an LLM's tokenizer gives there (an LLM never streams a whole sentence at once).
_TOKEN = re.compile(f"[{WIDE_SCRIPT}]{{1,2}}[^{WIDE_SCRIPT}\\w\\s]*\\s*|[^\\s{WIDE_SCRIPT}]+\\s*|\\s+")


def scripted_tokens(reply: str) -> list[str]:
    """The tokens the scripted model streams ``reply`` in: each word with the spaces after it."""
    return _TOKEN.findall(reply)


class ScriptedReplyModel(Model):
    """A Strands model provider that ignores the prompt and streams ``reply`` word by word.

    It emits the same stream events a real provider does, so the agent loop, the segmenter and the
    speech session see exactly what they see in production, with the LLM's speed under control.
    """

    def __init__(self, reply: str, tokens_per_s: float):
        self.config: dict[str, Any] = {"reply": reply, "tokens_per_s": tokens_per_s}

    def update_config(self, **model_config: Any) -> None:
        self.config.update(model_config)

    def get_config(self) -> dict[str, Any]:
        return dict(self.config)

    async def structured_output(self, output_model: Any, prompt: Any, system_prompt: Any = None, **kwargs: Any):
        raise AgentError("llm_failed", "the scripted reply model has no structured output")
        yield  # pragma: no cover - makes this an async generator, as the interface requires

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: Any = None, **kwargs: Any):
        delay = 1.0 / self.config["tokens_per_s"]
        tokens = scripted_tokens(self.config["reply"])
        yield {"messageStart": {"role": "assistant"}}
        yield {"contentBlockStart": {"start": {}}}
        for token in tokens:
            await asyncio.sleep(delay)
            yield {"contentBlockDelta": {"delta": {"text": token}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}
        yield {
            "metadata": {
                "usage": {"inputTokens": 0, "outputTokens": len(tokens), "totalTokens": len(tokens)},
                "metrics": {"latencyMs": 0},
            }
        }


def build_model(settings: LlmSettings) -> Model:
    """The configured provider; the real ones are imported only when chosen."""
    if settings.provider == "scripted":
        return ScriptedReplyModel(settings.reply, settings.tokens_per_s)
    if settings.provider == "openai":
        from strands.models.openai import OpenAIModel

        # Local OpenAI-compatible servers (vLLM, llama.cpp, Ollama) accept any key, but the client needs one.
        client_args = {"base_url": settings.base_url, "api_key": settings.api_key or "unused"}
        return OpenAIModel(client_args=client_args, model_id=settings.model_id or "")
    from strands.models import BedrockModel

    options: dict[str, Any] = {"region_name": settings.region} if settings.region else {}
    if settings.model_id:
        options["model_id"] = settings.model_id
    return BedrockModel(**options)


def build_agent(settings: LlmSettings) -> Agent:
    return Agent(model=build_model(settings), system_prompt=VOICE_SYSTEM_PROMPT, callback_handler=None)


async def text_deltas(agent: Agent, prompt: str) -> AsyncGenerator[str, None]:
    """The answer's text as it is written. Closing this generator stops the LLM stream."""
    stream = agent.stream_async(prompt)
    try:
        async for event in stream:
            data = event.get("data")
            if isinstance(data, str) and data and "reasoning" not in event and "citation" not in event:
                yield data
    except AgentError:
        raise
    except Exception as err:
        raise AgentError("llm_failed", f"the language model failed: {type(err).__name__}: {str(err)[:300]}") from err
    finally:
        await stream.aclose()  # type: ignore[attr-defined]  # strands types stream_async AsyncIterator; it is an async generator
