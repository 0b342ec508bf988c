"""Provider selection and the answer's text stream, through real Strands agents."""

from __future__ import annotations

import json

import pytest
from servers import free_port
from starlette.applications import Starlette
from starlette.responses import StreamingResponse
from starlette.routing import Route

from kokoro_processes.servers import agent_server_thread
from voice_agent.events import AgentError
from voice_agent.llm import ScriptedReplyModel, build_agent, build_model, text_deltas
from voice_agent.settings import LlmSettings

REPLY = "Sure. The museum opens at nine, and closes at five"


async def test_scripted_reply_streams_word_by_word_through_an_agent() -> None:
    agent = build_agent(LlmSettings(provider="scripted", reply=REPLY, tokens_per_s=500))
    deltas = [delta async for delta in text_deltas(agent, "When is the museum open?")]
    assert "".join(deltas) == REPLY and len(deltas) == len(REPLY.split())


async def test_closing_the_stream_stops_the_model() -> None:
    agent = build_agent(LlmSettings(provider="scripted", reply="word " * 1000, tokens_per_s=1000))
    stream = text_deltas(agent, "talk")
    assert await stream.__anext__() == "word "
    await stream.aclose()
    with pytest.raises(StopAsyncIteration):
        await stream.__anext__()


def test_provider_selection() -> None:
    from strands.models import BedrockModel
    from strands.models.openai import OpenAIModel

    assert isinstance(build_model(LlmSettings(provider="scripted")), ScriptedReplyModel)
    bedrock = build_model(LlmSettings(model_id="us.amazon.nova-lite-v1:0", region="eu-west-1"))
    assert isinstance(bedrock, BedrockModel) and bedrock.get_config()["model_id"] == "us.amazon.nova-lite-v1:0"
    assert bedrock.client.meta.region_name == "eu-west-1"
    openai = build_model(LlmSettings(provider="openai", base_url="http://127.0.0.1:9/v1", model_id="llama"))
    assert isinstance(openai, OpenAIModel) and openai.get_config()["model_id"] == "llama"


def _openai_compatible_app(words: list[str]) -> Starlette:
    """A minimal OpenAI-compatible chat server: streams ``words`` as chat completion chunks."""

    async def completions(request):
        body = await request.json()
        assert body["stream"] is True and body["messages"][-1]["role"] == "user"

        async def chunks():
            for word in words:
                delta = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": word}}]}
                yield f"data: {json.dumps(delta)}\n\n"
            yield f"data: {json.dumps({'choices': [{'index': 0, 'delta': {}, 'finish_reason': 'stop'}]})}\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(chunks(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


async def test_openai_compatible_server_streams_the_answer() -> None:
    words = ["It ", "is ", "sunny."]
    with agent_server_thread(_openai_compatible_app(words)) as url:
        agent = build_agent(LlmSettings(provider="openai", base_url=f"{url}/v1", model_id="local-model"))
        assert [delta async for delta in text_deltas(agent, "Weather?")] == words


async def test_unreachable_llm_is_a_typed_error() -> None:
    settings = LlmSettings(provider="openai", base_url=f"http://127.0.0.1:{free_port()}/v1", model_id="m")
    agent = build_agent(settings)
    agent.model.client_args["max_retries"] = 0  # the openai client's own back-off would only slow the test
    with pytest.raises(AgentError) as caught:
        async for _ in text_deltas(agent, "hello"):
            pass
    assert caught.value.code == "llm_failed"
